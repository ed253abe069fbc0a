"use client";
import { useLinkStatus } from "next/link";

/**
 * Put inside a <Link>: while the page it leads to is loading, a thin bar runs along the top of
 * the window, so a slow server render never looks like a dead click.
 */
export function LinkPending() {
  const { pending } = useLinkStatus();
  if (!pending) return null;
  return (
    // Hidden from assistive tech: Next announces the new page itself, and a label here would
    // become part of the link's name while it loads.
    <span
      aria-hidden="true"
      className="fixed inset-x-0 top-0 z-50 block h-1 overflow-hidden bg-indigo-100"
    >
      <span className="absolute inset-y-0 block w-1/3 animate-[ferry-indeterminate_1.2s_ease-in-out_infinite] bg-indigo-600" />
    </span>
  );
}
