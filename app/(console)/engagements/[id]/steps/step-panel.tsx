"use client";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { ConsoleStep1Panel } from "./step-1-panel";
import { ConsoleStep2Panel } from "./step-2-panel";
import { ConsoleStep3Panel } from "./step-3-panel";
import { ConsoleStep4Panel } from "./step-4-panel";
import { Step5Panel } from "./step-5-panel";
import { Step6Panel } from "./step-6-panel";

/**
 * The flow inside each step's card, one file per step (step-1-panel.tsx …). A step without a flow
 * renders beside its Start/Complete/Reopen actions (those its flow does not own).
 */
export function StepPanel(props: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  switch (props.step.number) {
    case 1:
      return <ConsoleStep1Panel {...props} />;
    case 2:
      return <ConsoleStep2Panel {...props} />;
    case 3:
      return <ConsoleStep3Panel {...props} />;
    case 4:
      return <ConsoleStep4Panel {...props} />;
    case 5:
      return <Step5Panel {...props} />;
    case 6:
      return <Step6Panel {...props} />;
    default: {
      const never: never = props.step.number;
      return never;
    }
  }
}
