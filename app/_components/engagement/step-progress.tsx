import { ProgressBar } from "@/app/_components/ui";
import { STEP_TITLES } from "@/app/_lib/labels";
import { stepsDone } from "@/app/_lib/steps";

/** "Step 3 · Callback URL added" with a small bar of the steps behind it. */
export function StepProgress({ currentStep }: { currentStep: number }) {
  const done = stepsDone(currentStep);
  return (
    <div className="min-w-40 space-y-1">
      <p className="text-sm text-slate-800">
        {currentStep > 6 ? (
          "All six steps done"
        ) : (
          <>
            <span className="font-medium">Step {currentStep}</span> · {STEP_TITLES[currentStep]}
          </>
        )}
      </p>
      <ProgressBar label="Steps done" value={done} max={6} valueText={`${done} of 6 steps done`} size="sm" className="w-32" />
    </div>
  );
}
