"use client";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { PortalStep1Panel } from "./step-1-panel";
import { PortalStep2Panel } from "./step-2-panel";
import { PortalStep3Panel } from "./step-3-panel";
import { PortalStep4Panel } from "./step-4-panel";
import { PortalStep5Panel } from "./step-5-panel";
import { Step6Panel } from "./step-6-panel";

/**
 * The flow inside each step's card, one file per step (step-1-panel.tsx …). A step without a flow
 * shows what the customer does or sees at that step.
 */
export function StepPanel(props: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  switch (props.step.number) {
    case 1:
      return <PortalStep1Panel {...props} />;
    case 2:
      return <PortalStep2Panel {...props} />;
    case 3:
      return <PortalStep3Panel {...props} />;
    case 4:
      return <PortalStep4Panel {...props} />;
    case 5:
      return <PortalStep5Panel engagement={props.engagement} />;
    case 6:
      return <Step6Panel {...props} />;
    default: {
      const never: never = props.step.number;
      return never;
    }
  }
}
