"use client";
import { useEffect, useRef, useState, type HTMLAttributes, type ReactNode, type RefObject, type TdHTMLAttributes, type ThHTMLAttributes } from "react";
import { cn } from "./cn";

/**
 * A table in a box of its own that scrolls sideways when the table is wider than it; the caption
 * names it for screen readers (visually hidden by default). While the table is wider than its box
 * — and always when `scrollable` says it may be (a token file's columns) — the box is a named,
 * focusable region, so keyboard users can scroll it too. The box is positioned, so text kept for
 * screen readers only (absolutely placed) scrolls and clips with the table instead of widening
 * the page.
 */
export function Table({
  caption,
  captionVisible = false,
  scrollable = false,
  children,
  className,
}: {
  caption: string;
  captionVisible?: boolean;
  scrollable?: boolean;
  children: ReactNode;
  className?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const overflows = useOverflow(box);
  const region = scrollable || overflows;
  return (
    <div
      ref={box}
      className={cn("relative overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-xs focus-visible:outline-2 focus-visible:outline-indigo-600", className)}
      {...(region ? { role: "region", "aria-label": caption, tabIndex: 0 } : {})}
    >
      <table className="min-w-full divide-y divide-slate-200 text-sm">
        <caption className={captionVisible ? "px-4 py-3 text-left font-semibold" : "sr-only"}>{caption}</caption>
        {children}
      </table>
    </div>
  );
}

/** Whether the box's content is wider than the box, followed as either changes size. */
function useOverflow(box: RefObject<HTMLDivElement | null>): boolean {
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const measure = () => setOverflows(el.scrollWidth > el.clientWidth + 1);
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    measure();
    return () => observer.disconnect();
  }, [box]);
  return overflows;
}

export function THead({ children }: { children: ReactNode }) {
  return <thead className="bg-slate-50">{children}</thead>;
}

export function TBody({ children }: { children: ReactNode }) {
  return <tbody className="divide-y divide-slate-100">{children}</tbody>;
}

export function Tr({ className, ...rest }: HTMLAttributes<HTMLTableRowElement>) {
  return <tr className={cn("align-top", className)} {...rest} />;
}

export function Th({ className, scope = "col", ...rest }: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope={scope} className={cn("px-4 py-2.5 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase", className)} {...rest} />;
}

export function Td({ className, ...rest }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={cn("px-4 py-3 text-slate-800", className)} {...rest} />;
}
