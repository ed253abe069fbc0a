"use client";
import { useQuery } from "@tanstack/react-query";
import { SUPPORT_QUEUE } from "@/app/_lib/support-queue";
import { useTRPC } from "@/app/_trpc/react";

/**
 * How many engagements wait on support, beside the navigation's link to them: read with the page
 * on the server (`initial`), then kept current while the console is open (every minute, on focus,
 * and whenever a change invalidates the engagement lists).
 */
export function SupportQueueCount({ initial }: { initial: number | null }) {
  const trpc = useTRPC();
  const queue = useQuery({ ...trpc.engagements.list.queryOptions(SUPPORT_QUEUE), select: (list) => list.total, refetchInterval: 60_000 });
  const n = queue.data ?? initial;
  if (n === null || n === undefined) return null;
  return (
    <span
      className={n > 0 ? "ml-1.5 rounded-full bg-amber-100 px-1.5 py-0.5 text-xs font-semibold text-amber-900 tabular-nums" : "ml-1.5 rounded-full bg-slate-100 px-1.5 py-0.5 text-xs font-semibold text-slate-600 tabular-nums"}
    >
      {n.toLocaleString("en-GB")}
      <span className="sr-only"> {n === 1 ? "engagement waits" : "engagements wait"} on support</span>
    </span>
  );
}
