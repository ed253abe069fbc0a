import type { ReactNode } from "react";
import { Badge } from "@/app/_components/ui";
import { formatDateTime, formatDuration, responsibleLabel } from "@/app/_lib/labels";
import type { StepView } from "@/app/_lib/types";
import { companiesText, countOf, warningsText } from "@/core/words";
import { StepStateBadge } from "./status-badge";

export type ChecklistProps = {
  steps: readonly StepView[];
  /** The viewer's controls for a step; the portal passes nothing (read only). */
  renderActions?: (step: StepView) => ReactNode;
  /** The step's own flow (token file, window, test run…), shown inside its card. */
  renderPanel?: (step: StepView) => ReactNode;
};

/** The six steps: who is responsible, where each stands, who completed it, evidence, reopen reasons. */
export function Checklist({ steps, renderActions, renderPanel }: ChecklistProps) {
  return (
    <ol className="space-y-3" aria-label="Checklist steps">
      {steps.map((step) => (
        <li key={step.number}>
          <StepCard step={step} actions={renderActions?.(step)} panel={renderPanel?.(step)} />
        </li>
      ))}
    </ol>
  );
}

function StepCard({ step, actions, panel }: { step: StepView; actions: ReactNode; panel: ReactNode }) {
  const titleId = `step-${step.number}-title`;
  const done = step.state === "done";
  return (
    <section
      id={`step-${step.number}`}
      aria-labelledby={titleId}
      data-step={step.number}
      data-state={step.displayState}
      className="scroll-mt-4 rounded-lg border border-slate-200 bg-white p-4 shadow-xs sm:p-5"
    >
      <div className="flex gap-4">
        <span
          aria-hidden="true"
          className={
            done
              ? "flex size-8 shrink-0 items-center justify-center rounded-full bg-emerald-600 text-sm font-semibold text-white"
              : step.displayState === "in_progress"
                ? "flex size-8 shrink-0 items-center justify-center rounded-full bg-sky-600 text-sm font-semibold text-white"
                : "flex size-8 shrink-0 items-center justify-center rounded-full bg-slate-100 text-sm font-semibold text-slate-600 ring-1 ring-slate-300 ring-inset"
          }
        >
          {done ? "✓" : step.number}
        </span>
        <div className="min-w-0 flex-1 space-y-3">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <h3 id={titleId} className="text-base font-semibold text-slate-900">
              <span className="sr-only">Step {step.number}: </span>
              {step.title}
            </h3>
            <StepStateBadge state={step.displayState} />
            <Badge tone="muted">
              <span className="sr-only">Responsible: </span>
              {responsibleLabel(step.responsible)}
            </Badge>
          </div>
          <p className="text-sm text-slate-600">{step.doneWhen}</p>
          {step.waitsFor ? <p className="text-sm text-slate-600">{step.waitsFor}</p> : null}
          <StepRecord step={step} />
          {panel ? <div>{panel}</div> : null}
          {actions ? <div>{actions}</div> : null}
        </div>
      </div>
    </section>
  );
}

function StepRecord({ step }: { step: StepView }) {
  const rows: { term: string; detail: ReactNode }[] = [];
  if (step.completedAt) {
    rows.push({ term: "Completed", detail: `${step.completedBy?.name ?? "Someone"} · ${formatDateTime(step.completedAt)}` });
  }
  if (step.evidence?.note || step.evidence?.onBehalfOfCustomer) {
    rows.push({
      term: "Evidence",
      detail: (
        <>
          {step.evidence.note ?? "—"}
          {step.evidence.onBehalfOfCustomer ? <span className="ml-2 text-xs text-slate-500">(recorded on the customer&apos;s behalf)</span> : null}
        </>
      ),
    });
  }
  const flow = step.evidence?.flow;
  if (flow) rows.push({ term: "Record", detail: flowEvidence(flow) });
  if (step.reopenedReason) {
    rows.push({
      term: "Reopened",
      detail: (
        <>
          {step.reopenedReason}
          <span className="ml-2 text-xs text-slate-500">
            {step.reopenedBy?.name ?? "Someone"} · {formatDateTime(step.reopenedAt)}
          </span>
        </>
      ),
    });
  }
  if (!rows.length) return null;
  return (
    <dl className="grid gap-x-4 gap-y-1 rounded-md bg-slate-50 px-3 py-2 text-sm sm:grid-cols-[max-content_1fr]">
      {rows.map((r) => (
        <div key={r.term} className="contents">
          <dt className="font-medium text-slate-700">{r.term}</dt>
          <dd className="text-slate-800">{r.detail}</dd>
        </div>
      ))}
    </dl>
  );
}

type FlowEvidence = NonNullable<NonNullable<StepView["evidence"]>["flow"]>;

/** What a step's own flow recorded, in words. */
function flowEvidence(flow: FlowEvidence): string {
  switch (flow.kind) {
    case "intake_accepted":
      return `Token file of ${companiesText(flow.rowCount)} (${warningsText(flow.warningCount)}), submitted by ${flow.submittedBy} on ${formatDateTime(flow.submittedAt)}`;
    case "window_accepted":
      return `Window ${formatDateTime(flow.startsAt)} – ${formatDateTime(flow.endsAt)} (estimated ${formatDuration(flow.estimateSeconds)})`;
    case "callback_confirmed":
      return `Callback URL ${flow.callbackUrl}`;
    case "syncing_disabled":
      return `File submitted ${formatDateTime(flow.fileSubmittedAt)}; ${countOf(flow.expiredAccessTokens, "access token", "access tokens")} expired at the time; refresh tokens ${flow.refreshTokensRotate ? "rotate" : "do not rotate"}`;
    case "test_passed":
      return `Single-company test passed (company ${flow.companyId})`;
    case "handed_over":
      return `Handover acknowledged ${formatDateTime(flow.acknowledgedAt)}; credentials purged ${formatDateTime(flow.purgedAt)}`;
    default: {
      const never: never = flow;
      return never;
    }
  }
}
