import { currentStepTitle } from "@/app/_lib/labels";
import { StepsDoneBar } from "./engagement-header";

/** "Step 3 · Callback URL added" with a bar of how many of the six steps are done. */
export function StepProgress({ currentStep, stepsDone }: { currentStep: number; stepsDone: number }) {
  return (
    <div className="min-w-40 space-y-1">
      <p className="text-sm text-slate-800">
        {currentStep > 6 ? (
          "All six steps done"
        ) : (
          <>
            <span className="font-medium">Step {currentStep}</span> · {currentStepTitle(currentStep)}
          </>
        )}
      </p>
      <StepsDoneBar stepsDone={stepsDone} size="sm" className="w-32" />
    </div>
  );
}
