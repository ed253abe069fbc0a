"use client";
import { useEffect, useState } from "react";
import { cn } from "./cn";
import { useHydrated } from "./use-hydrated";

async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Permission refused or no focus: fall back to the old selection trick below.
    }
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("Copy failed");
}

export type CopyButtonProps = {
  value: string;
  /** What is copied, for the accessible name: "Copy engagement reference". */
  label: string;
  className?: string;
};

/** Copies a value and says "Copied" (visibly and to screen readers). */
export function CopyButton({ value, label, className }: CopyButtonProps) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const hydrated = useHydrated();

  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);

  return (
    <span className={cn("inline-flex items-center gap-1.5", className)}>
      <button
        type="button"
        disabled={!hydrated}
        onClick={() => {
          writeClipboard(value).then(
            () => setState("copied"),
            () => setState("failed"),
          );
        }}
        className="inline-flex size-7 items-center justify-center rounded text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
        aria-label={`Copy ${label}`}
        title={`Copy ${label}`}
        data-copy-value={value}
      >
        <svg viewBox="0 0 20 20" className="size-4" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true">
          <rect x="7" y="7" width="10" height="10" rx="2" />
          <path d="M13 7V5a2 2 0 0 0-2-2H5a2 2 0 0 0-2 2v6a2 2 0 0 0 2 2h2" />
        </svg>
      </button>
      <span role="status" className="text-xs font-medium text-emerald-700">
        {state === "copied" ? "Copied" : state === "failed" ? <span className="text-red-700">Copy failed</span> : null}
      </span>
    </span>
  );
}
