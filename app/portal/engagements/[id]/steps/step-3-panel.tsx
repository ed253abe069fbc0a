"use client";
import { useQuery } from "@tanstack/react-query";
import { CallbackRoundTrip } from "@/app/_components/intake/callback-round-trip";
import { CallbackPanel } from "@/app/_components/intake/confirmation-panels";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { ConfirmStep } from "./confirm-step";

/**
 * Step 3 in the portal: the callback URL with the platform's steps, the round trip that proves it,
 * and the customer's confirmation by hand (recorded as unproven) where no round trip can be made.
 */
export function PortalStep3Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const view = useQuery(trpc.confirmations.get.queryOptions({ engagementId: engagement.id }));
  if (!view.data) return null;
  return (
    <div className="space-y-3">
      <CallbackPanel callback={view.data.callback} />
      <CallbackRoundTrip engagement={engagement} callbackUrl={view.data.callback.url} announce={announce} done={step.state === "done"} />
      <ConfirmStep
        engagement={engagement}
        step={step}
        announce={announce}
        statement={
          <>
            The callback URL is on our registered {engagement.platform.name} OAuth app.
            <span className="block text-xs text-slate-600">Confirmed without a round trip, this is recorded as unproven.</span>
          </>
        }
        button="Confirm the callback URL is added"
      />
    </div>
  );
}
