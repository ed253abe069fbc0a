"use client";
import type { ReactNode } from "react";
import { Badge, CopyableId, Notice, ProgressBar, ResponsiveTable, Table, TBody, Td, Th, THead, Tr, type BadgeTone, type ResponsiveColumn } from "@/app/_components/ui";
import { formatDuration } from "@/core/format";
import { countOf } from "@/core/words";
import { CompletenessView } from "./completeness-view";
import { FailureDetails } from "./failure-details";
import { formatDateTime } from "@/app/_lib/labels";
import type { RouterOutputs } from "@/app/_lib/types";

export type TestRunDetail = RouterOutputs["tests"]["get"];
export type TestRunSummary = RouterOutputs["tests"]["list"][number];
type Status = TestRunSummary["status"];
type CheckResult = TestRunDetail["checks"][number]["result"];

const STATUS: Record<Status, { label: string; tone: BadgeTone }> = {
  queued: { label: "Waiting for a worker", tone: "info" },
  running: { label: "Running", tone: "info" },
  paused: { label: "Paused", tone: "warning" },
  stopped: { label: "Stopped", tone: "warning" },
  passed: { label: "Passed", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  completed: { label: "Completed", tone: "success" },
  cancelled: { label: "Cancelled", tone: "muted" },
};

const CHECK: Record<CheckResult, { label: string; tone: BadgeTone }> = {
  passed: { label: "Passed", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  running: { label: "Running", tone: "info" },
  not_reached: { label: "Not reached", tone: "muted" },
};

/** "Single-company test" or "Rehearsal": every place names a rehearsal as one. */
/** The data types' sync statuses counted, in words: "25 Complete, 3 NotSupported". */
function syncStatusText(dataTypes: readonly { status: string }[]): string {
  const counts = new Map<string, number>();
  for (const d of dataTypes) counts.set(d.status, (counts.get(d.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} ${status}`).join(", ");
}

export function RunKindBadge({ kind }: { kind: TestRunSummary["kind"] }) {
  return kind === "rehearsal" ? <Badge tone="warning">Rehearsal (sandbox)</Badge> : <Badge tone="neutral">Single-company test</Badge>;
}

export function RunStatusBadge({ status }: { status: Status }) {
  return <Badge tone={STATUS[status].tone}>{STATUS[status].label}</Badge>;
}

/** Milliseconds in words ("850 ms", "12.3 s", "4 min 5 s"); "—" when not measured. */
function msText(ms: number | null): string {
  return ms === null ? "—" : formatDuration(ms / 1000, { fine: true });
}

/** Terms and their details as a two-column list. */
export function Facts({ rows }: { rows: { term: string; detail: ReactNode }[] }) {
  return (
    <dl className="grid gap-x-4 gap-y-1.5 text-sm sm:grid-cols-[max-content_1fr]">
      {rows.map((r) => (
        <div key={r.term} className="contents">
          <dt className="font-medium text-slate-700">{r.term}</dt>
          <dd className="min-w-0 text-slate-800">{r.detail}</dd>
        </div>
      ))}
    </dl>
  );
}

type Call = TestRunDetail["calls"][number];

/** Every call of a run on one line each where it can: when, what, the answer, how long, the correlationId to quote. */
const CALL_COLUMNS: ResponsiveColumn<Call>[] = [
  { label: "Time", className: "whitespace-nowrap text-xs text-slate-600", cell: (c) => formatDateTime(c.at) },
  {
    label: "Call",
    title: true,
    cell: (c) => (
      <>
        <span className="font-medium">{c.operation}</span>
        <span className="block text-xs break-all text-slate-600">
          {c.method} {c.path}
        </span>
      </>
    ),
  },
  {
    label: "Answer",
    wide: true,
    cell: (c) => (
      <>
        <Badge tone={c.ok ? "success" : "danger"}>{c.status ?? c.errorKind ?? "no answer"}</Badge>
        {c.errorText ? <span className="mt-1 block text-xs text-red-800">{c.errorText}</span> : null}
        {c.attempts > 1 ? <span className="mt-1 block text-xs text-slate-600">{countOf(c.attempts, "attempt", "attempts")}</span> : null}
      </>
    ),
  },
  { label: "Took", className: "text-right text-xs whitespace-nowrap tabular-nums", cell: (c) => msText(c.durationMs) },
  { label: "correlationId", className: "whitespace-nowrap", cell: (c) => (c.correlationId ? <CopyableId value={c.correlationId} label={`correlationId of ${c.operation}`} short /> : "—") },
];

/**
 * One single-company test or rehearsal in full, as it stands: progress, the result and what to do
 * next, the two checks, every data type and every call with its correlationId. Read only: the
 * console adds its controls around it, the portal shows it as is.
 */
export function TestRunView({ run }: { run: TestRunDetail }) {
  const failure = run.failure;
  return (
    <article className="space-y-4" aria-label={`${run.kind === "rehearsal" ? "Rehearsal" : "Single-company test"} on ${run.company ?? "a company"}`}>
      <div className="flex flex-wrap items-center gap-2">
        <RunKindBadge kind={run.kind} />
        <RunStatusBadge status={run.status} />
        <span className="text-sm text-slate-700">
          {run.company ?? "A company"}
          {run.pickedBy === "smallest" ? " (the smallest company)" : ""} · asked by {run.requestedBy ?? "someone"} · {formatDateTime(run.requestedAt)}
        </span>
      </div>
      {run.kind === "rehearsal" ? (
        <p className="text-sm text-slate-600">
          A rehearsal runs on simulated companies on the built-in sandbox: it never touches the real service target or the customer&apos;s tokens, and never changes the checklist.
        </p>
      ) : null}

      {run.active ? (
        <div className="space-y-1.5">
          {run.preparation && !run.preparation.done ? (
            <ProgressBar
              label="Simulated companies made"
              value={run.preparation.created}
              max={Math.max(1, run.preparation.total)}
              valueText={`${run.preparation.created} of ${run.preparation.total}`}
            />
          ) : (
            <ProgressBar label="Test progress" value={run.progress.done} max={run.progress.of} valueText={`${run.progress.done} of ${run.progress.of} stages: ${run.progress.label}`} />
          )}
          <p className="text-sm text-slate-700" aria-live="polite">
            {run.progress.label}…
          </p>
        </div>
      ) : null}

      {run.result === "passed" ? (
        <Notice tone="success" title="Passed">
          {run.stepEffect?.kind === "completed" ? "Step 5 is done, with this test as its evidence." : (run.stepEffect?.reason ?? "Both checks passed.")}
          {run.completeness && (run.completeness.verdict === "short" || run.completeness.verdict === "validation_issues") ? (
            <span className="mt-1 block">The connection works, but its data needs a look: {run.completeness.summary} (Complete data, below.)</span>
          ) : null}
        </Notice>
      ) : null}
      {run.result === "failed" ? (
        <Notice tone="error" title="Failed: what to do next">
          <p>{run.advice?.text ?? run.statusReason}</p>
          {run.stepEffect?.kind === "reopened" ? <p className="mt-1">Step 4 (Syncing disabled) was reopened with this reason.</p> : null}
          {failure ? <FailureDetails failure={failure} subject="the failure" className="mt-2" /> : null}
        </Notice>
      ) : null}
      {run.status === "cancelled" ? <Notice tone="warning" title="Cancelled">{run.statusReason}</Notice> : null}

      <section aria-label="Checks">
        <h4 className="text-sm font-semibold text-slate-900">Checks</h4>
        <ul className="mt-2 space-y-2">
          {run.checks.map((c) => (
            <li key={c.key} className="flex flex-wrap items-start gap-2 text-sm">
              <Badge tone={CHECK[c.result].tone}>{CHECK[c.result].label}</Badge>
              <span className="font-medium text-slate-900">{c.label}</span>
              <span className="basis-full text-slate-600 sm:basis-auto">{c.detail}</span>
            </li>
          ))}
        </ul>
      </section>

      <Facts
        rows={[
          { term: "Company", detail: run.item ? `${run.item.name}${run.item.externalRef ? ` (${run.item.externalRef})` : ""}${run.item.records !== null ? ` · ${run.item.records} records` : ""}` : "—" },
          { term: "Service", detail: run.target ? `${run.target.name}${run.target.baseUrl ? ` — ${run.target.baseUrl}` : ""}` : "—" },
          { term: "companyId", detail: run.item?.companyId ? <CopyableId value={run.item.companyId} label="companyId" truncate /> : "—" },
          { term: "connectionId", detail: run.item?.connectionId ? <CopyableId value={run.item.connectionId} label="connectionId" truncate /> : "—" },
          {
            term: "Durations",
            detail: `waited ${msText(run.durations.waitedMs)} for a worker · ran ${msText(run.durations.runMs)} · sync ${msText(run.durations.syncMs)}`,
          },
        ]}
      />

      {run.dataTypes.length ? (
        // Folded once every data type synced as it should: the counts that matter are in Complete data below.
        <details className="rounded-md border border-slate-200" open={run.active || run.dataTypes.some((d) => d.status !== "Complete" && d.status !== "NotSupported")}>
          <summary className="cursor-pointer px-3 py-2 text-sm font-medium text-slate-800">
            Sync status of {run.dataTypes.length} data types: {syncStatusText(run.dataTypes)}
          </summary>
          <div className="px-3 pb-3">
            <Table caption={`Data types of ${run.company ?? "the company"} (${run.dataTypes.length})`}>
              <THead>
                <Tr>
                  <Th>Data type</Th>
                  <Th>Status</Th>
                  <Th className="text-right">Records</Th>
                </Tr>
              </THead>
              <TBody>
                {run.dataTypes.map((d) => (
                  <Tr key={d.dataType}>
                    <Td className="py-1.5">{d.dataType}</Td>
                    <Td className="py-1.5">
                      <Badge tone={d.status === "Complete" ? "success" : d.status === "NotSupported" ? "muted" : d.status.endsWith("Error") ? "danger" : "info"}>{d.status}</Badge>
                    </Td>
                    <Td className="py-1.5 text-right tabular-nums">{d.records ?? "—"}</Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          </div>
        </details>
      ) : null}

      {run.completeness ? <CompletenessView completeness={run.completeness} company={run.company ?? "the company"} /> : null}

      {run.calls.length ? (
        <ResponsiveTable
          caption={`Calls to the service (${run.calls.length})`}
          columns={CALL_COLUMNS}
          rows={run.calls}
          rowKey={(c) => String(c.id)}
          rowProps={(c) => ({ "data-operation": c.operation })}
        />
      ) : (
        <p className="text-sm text-slate-600">{run.active ? "No call to the service yet." : "No call to the service was made."}</p>
      )}
    </article>
  );
}

/** The engagement's runs, newest first, each selectable. */
export function TestRunList({ runs, selectedId, onSelect }: { runs: readonly TestRunSummary[]; selectedId: string | null; onSelect: (id: string) => void }) {
  const columns: ResponsiveColumn<TestRunSummary>[] = [
    { label: "Run", className: "whitespace-nowrap", cell: (r) => <RunKindBadge kind={r.kind} /> },
    { label: "Company", cell: (r) => r.company ?? "—" },
    { label: "Status", className: "whitespace-nowrap", cell: (r) => <RunStatusBadge status={r.status} /> },
    {
      label: "Asked",
      className: "text-xs text-slate-600",
      cell: (r) => (
        <>
          {formatDateTime(r.requestedAt)}
          {r.requestedBy ? ` · ${r.requestedBy}` : ""}
        </>
      ),
    },
    {
      label: "Show",
      labelHidden: true,
      cell: (r) => (
        <button
          type="button"
          className="text-sm font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600"
          aria-pressed={r.id === selectedId}
          onClick={() => onSelect(r.id)}
        >
          Show<span className="sr-only"> the {r.kind === "rehearsal" ? "rehearsal" : "test"} on {r.company ?? "a company"} of {formatDateTime(r.requestedAt)}</span>
        </button>
      ),
    },
  ];
  return (
    <ResponsiveTable
      caption={`Tests and rehearsals (${runs.length})`}
      columns={columns}
      rows={runs}
      rowKey={(r) => r.id}
      rowClassName={(r) => (r.id === selectedId ? "bg-indigo-50" : undefined)}
    />
  );
}
