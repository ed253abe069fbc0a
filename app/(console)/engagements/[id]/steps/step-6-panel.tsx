"use client";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { Step6Parts } from "@/app/_components/engagement/step-6-parts";
import { Reconnections } from "@/app/_components/migration/reconnections";
import { BulkSection } from "./bulk-section";
import { FreshTokensReview } from "./fresh-tokens-review";
import { HandoverSection } from "./handover-section";

/**
 * Step 6 in the console, one part at a time: the bulk run (started once step 5 has passed; the
 * Start button says why not before), the companies waiting for their end customers, the review of
 * fresh tokens the customer sends for the companies that failed on theirs, and the handover (a
 * report already produced still shows).
 */
export function Step6Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  return (
    <Step6Parts
      engagement={engagement}
      viewer="console"
      parts={{
        run: <BulkSection engagement={engagement} announce={announce} />,
        reconnections: <Reconnections engagementId={engagement.id} announce={announce} />,
        "fresh-tokens": <FreshTokensReview engagementId={engagement.id} announce={announce} />,
        handover: <HandoverSection engagement={engagement} locked={step.displayState === "locked"} announce={announce} />,
      }}
    />
  );
}
