"use client";
import { useState, type ReactNode } from "react";
import { Notice } from "./ui/notice";

export type Announcement = { tone: "success" | "error"; text: string };
export type Announce = (announcement: Announcement | null) => void;

/**
 * A page's announcement area: the outcome of the last action, read out politely by screen readers.
 * Render `region` where the message belongs; call `announce` after an action.
 */
export function useAnnouncement(): { announce: Announce; region: ReactNode } {
  const [announcement, announce] = useState<Announcement | null>(null);
  const region = (
    <div aria-live="polite">
      {announcement ? <Notice tone={announcement.tone === "error" ? "warning" : "success"}>{announcement.text}</Notice> : null}
    </div>
  );
  return { announce, region };
}
