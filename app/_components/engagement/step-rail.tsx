"use client";
import { cn } from "@/app/_components/ui";
import { sectionHref, type EngagementSection } from "@/app/_lib/engagement-section";
import { stepStateLabel } from "@/app/_lib/labels";
import type { StepView } from "@/app/_lib/types";
import { SectionLink } from "./section-link";

/** The circle of a step: a tick once done, its number otherwise, coloured by where it stands. */
export function StepMark({ step, className }: { step: Pick<StepView, "number" | "state" | "displayState">; className?: string }) {
  const done = step.state === "done";
  return (
    <span
      aria-hidden="true"
      className={cn(
        "flex size-7 shrink-0 items-center justify-center rounded-full text-sm font-semibold",
        done
          ? "bg-emerald-600 text-white"
          : step.displayState === "in_progress"
            ? "bg-sky-600 text-white"
            : "bg-white text-slate-600 ring-1 ring-slate-300 ring-inset",
        className,
      )}
    >
      {done ? "✓" : step.number}
    </span>
  );
}

/**
 * The engagement's six steps and its activity as navigation, each its own URL: where each step
 * stands, and which one holds the viewer's move. It stays at the top of the window while a step
 * is read, so another step is always one click away. On a phone only the circles and the
 * activity's icon show (the names stay the links' accessible names), and the row scrolls in its
 * own box if it must.
 */
export function StepRail({
  steps,
  section,
  moveStep,
  activityLabel,
}: {
  steps: readonly StepView[];
  section: EngagementSection;
  /** The step of the viewer's own next move, marked on its link. */
  moveStep: number | null;
  activityLabel: string;
}) {
  const activity = section.kind === "activity";
  return (
    <nav aria-label="Engagement steps" className="sticky top-0 z-20 -mx-4 border-b border-slate-200 bg-slate-50/95 px-4 py-2 backdrop-blur sm:mx-0 sm:px-0 print:hidden">
      <ol className="relative flex gap-1 overflow-x-auto">
        {steps.map((step) => {
          const current = section.kind === "step" && section.step === step.number;
          const yours = moveStep === step.number;
          return (
            <li key={step.number} className="shrink-0 lg:min-w-0 lg:flex-1 lg:shrink">
              <SectionLink
                href={sectionHref({ kind: "step", step: step.number })}
                aria-current={current ? "page" : undefined}
                data-step-link={step.number}
                className={cn(
                  "relative flex h-full items-center gap-2 rounded-md px-2 py-1.5 text-left ring-inset hover:bg-white",
                  current ? "bg-white shadow-xs ring-2 ring-indigo-600" : "ring-1 ring-transparent",
                )}
              >
                <StepMark step={step} />
                <span className="sr-only min-w-0 sm:not-sr-only">
                  <span className="sr-only">Step {step.number}: </span>
                  <span className={cn("block text-sm leading-tight", current ? "font-semibold text-slate-900" : "font-medium text-slate-800")}>{step.title}</span>
                  <span className="block text-xs text-slate-600">
                    <span className="sr-only">, </span>
                    {stepStateLabel(step.displayState)}
                    {yours ? (
                      <span className="ml-1.5 font-semibold text-amber-800">
                        <span className="sr-only">, </span>Your move
                      </span>
                    ) : null}
                  </span>
                </span>
                {yours ? <span aria-hidden="true" className="size-2 shrink-0 rounded-full bg-amber-500 sm:hidden" /> : null}
              </SectionLink>
            </li>
          );
        })}
        <li className="shrink-0 sm:ml-auto">
          <SectionLink
            href={sectionHref({ kind: "activity" })}
            aria-current={activity ? "page" : undefined}
            className={cn(
              "relative flex h-full items-center gap-2 rounded-md px-2 py-1.5 text-sm ring-inset hover:bg-white sm:px-3",
              activity ? "bg-white font-semibold text-slate-900 shadow-xs ring-2 ring-indigo-600" : "font-medium text-slate-800 ring-1 ring-transparent",
            )}
          >
            <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true" className="size-4 text-slate-500">
              <path d="M4 5h12M4 10h12M4 15h8" strokeLinecap="round" />
            </svg>
            <span className="sr-only sm:not-sr-only">{activityLabel}</span>
          </SectionLink>
        </li>
      </ol>
    </nav>
  );
}
