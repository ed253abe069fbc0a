"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/react";

/**
 * Marks stale exactly what an engagement change affects: its detail, its timeline, the list, and the
 * bulk run's controls (whether it may start follows from the steps, the status and the target).
 */
export function useEngagementInvalidation(engagementId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.engagements.get.queryKey({ engagementId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.engagements.timeline.queryKey({ engagementId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.engagements.list.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.bulk.overview.queryKey({ engagementId }) }),
    ]);
}
