"use client";
import { useQuery } from "@tanstack/react-query";
import { SUPPORT_QUEUE } from "@/app/_lib/support-queue";
import type { RouterOutputs } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

/**
 * How many engagements wait on support, beside the navigation's link to them: read with the page
 * on the server (`initial`, the same query, so the browser does not ask again at once), then kept
 * current while the console is open (every minute, on focus, and whenever a change invalidates the
 * engagement lists).
 */
export function SupportQueueCount({ initial }: { initial: RouterOutputs["engagements"]["list"] | null }) {
  const trpc = useTRPC();
  const queue = useQuery({ ...trpc.engagements.list.queryOptions(SUPPORT_QUEUE), initialData: initial ?? undefined, select: (list) => list.total, refetchInterval: 60_000 });
  const n = queue.data;
  if (n === undefined) return null;
  return (
    <span
      className={n > 0 ? "ml-1.5 rounded-full bg-amber-100 px-1.5 py-0.5 text-xs font-semibold text-amber-900 tabular-nums" : "ml-1.5 rounded-full bg-slate-100 px-1.5 py-0.5 text-xs font-semibold text-slate-600 tabular-nums"}
    >
      {n.toLocaleString("en-GB")}
      <span className="sr-only"> {n === 1 ? "engagement waits" : "engagements wait"} on support</span>
    </span>
  );
}
