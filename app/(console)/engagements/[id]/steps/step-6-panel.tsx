"use client";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { HandoverSection } from "./handover-section";

/**
 * Step 6 in the console: the bulk run (its own section, beside this one) and the handover. Shown
 * once step 5 is done; before that the step card says what it waits for.
 */
export function Step6Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  if (step.displayState === "locked") return null;
  return (
    <div className="space-y-4">
      <HandoverSection engagement={engagement} announce={announce} />
    </div>
  );
}
