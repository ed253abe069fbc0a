import type { ReactNode } from "react";
import { Badge } from "@/app/_components/ui";
import { formatDateTime, formatDuration, responsibleLabel } from "@/app/_lib/labels";
import type { StepView } from "@/app/_lib/types";
import { companiesText, countOf, warningsText } from "@/core/words";
import { StepStateBadge } from "./status-badge";
import { StepMark } from "./step-rail";

/**
 * One step of the checklist as its own view: who is responsible, where it stands, who completed
 * it, evidence, reopen reasons, then the step's own flow (`panel`) and the viewer's controls
 * (`actions`; the portal passes none).
 */
export function StepCard({ step, actions, panel }: { step: StepView; actions: ReactNode; panel: ReactNode }) {
  const titleId = `step-${step.number}-title`;
  return (
    <section
      id={`step-${step.number}`}
      aria-labelledby={titleId}
      data-step={step.number}
      data-state={step.displayState}
      className="scroll-mt-20 rounded-lg border border-slate-200 bg-white shadow-xs"
    >
      <div className="flex items-start gap-3 border-b border-slate-200 px-4 py-3 sm:px-5">
        <StepMark step={step} className="mt-0.5 hidden sm:flex" />
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <h3 id={titleId} className="text-base font-semibold text-slate-900">
              <span className="sr-only">Step {step.number}: </span>
              <span aria-hidden="true" className="text-slate-500 sm:hidden">
                {step.number}.{" "}
              </span>
              {step.title}
            </h3>
            <StepStateBadge state={step.displayState} />
            <Badge tone="muted">
              <span className="sr-only">Responsible: </span>
              {responsibleLabel(step.responsible)}
            </Badge>
          </div>
          <p className="mt-0.5 text-sm text-slate-600">{step.doneWhen}</p>
        </div>
      </div>
      <div className="min-w-0 space-y-3 px-4 py-4 sm:px-5">
        {step.waitsFor ? <p className="text-sm text-slate-600">{step.waitsFor}</p> : null}
        <StepRecord step={step} />
        {panel ? <div>{panel}</div> : null}
        {actions ? <div>{actions}</div> : null}
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
    <dl className="grid grid-cols-[minmax(0,1fr)] gap-x-4 gap-y-1 rounded-md bg-slate-50 px-3 py-2 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
      {rows.map((r) => (
        <div key={r.term} className="contents">
          <dt className="font-medium text-slate-700">{r.term}</dt>
          <dd className="text-slate-800 wrap-anywhere">{r.detail}</dd>
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
      return flow.proof
        ? `Callback URL ${flow.callbackUrl}, proven by a round trip: a test connection authorized on the platform linked ${formatDateTime(flow.proof.linkedAt)}`
        : `Callback URL ${flow.callbackUrl}, on the customer's word (unproven: no round trip was made)`;
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
