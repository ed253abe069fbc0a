"use client";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { HandoverSection } from "./handover-section";

/**
 * Step 6 in the console: the bulk run (its own section, beside this one) and the handover. While
 * step 5 is not done the step card says what it waits for (a report already produced still shows).
 */
export function Step6Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  return (
    <div className="space-y-4">
      <HandoverSection engagement={engagement} locked={step.displayState === "locked"} announce={announce} />
    </div>
  );
}
