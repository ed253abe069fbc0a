"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/react";

/**
 * Marks stale what a step's flow changes (a submission, a window, a confirmation): the flows'
 * views of this engagement, and the engagement itself, its timeline and the list (the console and
 * the portal read the same procedures).
 */
export function useFlowInvalidation(engagementId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const input = { engagementId };
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.intake.get.queryKey(input) }),
      queryClient.invalidateQueries({ queryKey: trpc.intake.items.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.windows.plan.queryKey(input) }),
      queryClient.invalidateQueries({ queryKey: trpc.confirmations.get.queryKey(input) }),
      queryClient.invalidateQueries({ queryKey: trpc.engagements.get.queryKey(input) }),
      queryClient.invalidateQueries({ queryKey: trpc.engagements.timeline.queryKey(input) }),
      queryClient.invalidateQueries({ queryKey: trpc.engagements.list.pathKey() }),
    ]);
}
