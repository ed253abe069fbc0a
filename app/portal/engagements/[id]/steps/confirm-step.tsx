"use client";
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type ReactNode } from "react";
import { useFlowInvalidation } from "@/app/_components/engagement/use-flow-invalidation";
import { Button } from "@/app/_components/ui";
import type { Announce } from "@/app/_components/use-announcement";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

/**
 * The customer's confirmation of step 3 or 4: a statement to tick and a button, offered only while
 * the server says the checklist allows the step's completion (a locked step says what it waits for).
 */
export function ConfirmStep({
  engagement,
  step,
  announce,
  statement,
  button,
}: {
  engagement: EngagementDetail;
  step: StepView;
  announce: Announce;
  statement: ReactNode;
  button: string;
}) {
  const trpc = useTRPC();
  const id = useId();
  const [ticked, setTicked] = useState(false);
  const invalidate = useFlowInvalidation(engagement.id);
  const options = {
    onSuccess: async () => {
      await invalidate();
      announce({ tone: "success" as const, text: `Confirmed step ${step.number} (${step.title}).` });
    },
    onError: (e: unknown) => announce({ tone: "error" as const, text: toFormError(e).message }),
  };
  const callback = useMutation(trpc.confirmations.callbackUrl.mutationOptions(options));
  const syncing = useMutation(trpc.confirmations.syncingDisabled.mutationOptions(options));
  const mutation = step.number === 3 ? callback : syncing;
  const complete = step.actions.find((a) => a.action === "complete");
  if (step.state === "done") return null;
  if (!complete) return null;
  return (
    <div className="space-y-3 rounded-md border border-slate-200 p-3">
      <div className="flex items-start gap-2">
        <input id={id} type="checkbox" className="mt-1 size-4" checked={ticked} onChange={(e) => setTicked(e.target.checked)} />
        <label htmlFor={id} className="text-sm text-slate-800">
          {statement}
        </label>
      </div>
      <Button size="sm" disabled={!ticked} pending={mutation.isPending} onClick={() => mutation.mutate({ engagementId: engagement.id })}>
        {button}
      </Button>
    </div>
  );
}
