"use client";
import type { AnchorHTMLAttributes } from "react";
import { useUrlInPlace } from "@/app/_lib/use-url-in-place";

/** How long a place inside a step may take to appear (its data loads after the step is shown). */
const ANCHOR_WAIT_MS = 5_000;

/**
 * Scrolls to the element with `id` once it is on the page: a place inside a step (the handover
 * report, the fresh tokens' review) is drawn only after its own data has loaded.
 */
export function scrollToAnchor(id: string): () => void {
  const scroll = () => {
    const el = document.getElementById(id);
    if (!el) return false;
    el.scrollIntoView({ block: "start" });
    return true;
  };
  if (scroll()) return () => {};
  const observer = new MutationObserver(() => {
    if (scroll()) stop();
  });
  const timer = setTimeout(() => stop(), ANCHOR_WAIT_MS);
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
  };
  observer.observe(document.body, { childList: true, subtree: true });
  return stop;
}

/**
 * A link to a section of the engagement's page (`?step=3`, `?step=6&part=handover`, `?tab=activity`):
 * a plain click changes the URL in place (useUrlInPlace: history.pushState, which Next's router
 * follows), so the section shows at once without asking the server for the page again, and the
 * back button returns to the section before. A click with a modifier opens it as any link would.
 */
export function SectionLink({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const changeUrl = useUrlInPlace();
  return (
    <a
      href={href}
      onClick={(event) => {
        onClick?.(event);
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        changeUrl(href);
      }}
      {...rest}
    />
  );
}
