"use client";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { PortalStep5Panel } from "./step-5-panel";
import { Step6Panel } from "./step-6-panel";

/**
 * The flow inside each step's card, one file per step (step-1-panel.tsx …). A step without a flow
 * of its own yet shows nothing here; its Start/Complete/Reopen actions stay below.
 */
export function StepPanel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  switch (step.number) {
    case 1:
    case 2:
    case 3:
    case 4:
      return null;
    case 5:
      return <PortalStep5Panel engagement={engagement} />;
    case 6:
      return <Step6Panel engagement={engagement} step={step} announce={announce} />;
    default: {
      const never: never = step.number;
      return never;
    }
  }
}
