import type { ReactNode } from "react";
import { CopyableId, ResponsiveTable, Table, TBody, Td, Th, THead, Tr, type ResponsiveColumn } from "@/app/_components/ui";
import type { HandoverRow } from "@/core/migration/handover-schemas";
import { FailureDetails, FailureSummary } from "@/app/_components/migration/failure-details";
import { formatDateTime } from "@/app/_lib/labels";
import { NameOnService } from "@/app/_components/migration/name-on-service";
import { CompletenessBadge } from "@/app/_components/migration/completeness-view";
import { ItemStateBadge } from "./item-state-badge";

/** One labelled line of the outcome column; `clamp` keeps long words to two lines on a screen (the whole on hover). */
function Line({ term, children, clamp }: { term: string; children: ReactNode; clamp?: string }) {
  return (
    <div className={clamp ? "line-clamp-2" : undefined} title={clamp}>
      <span className="font-semibold text-slate-700">{term}: </span>
      {children}
    </div>
  );
}

/**
 * The company's data in one line: on a screen a complete (or not compared) company shows its badge
 * alone, the sentence on hover and to screen readers; one that needs a look shows the sentence too.
 */
function DataLine({ completeness: c, compact }: { completeness: NonNullable<HandoverRow["completeness"]>; compact: boolean }) {
  const quiet = compact && (c.verdict === "complete" || c.verdict === "not_compared");
  return (
    <Line term="Data" clamp={compact && !quiet ? c.summary : undefined}>
      <span title={quiet ? c.summary : undefined}>
        <CompletenessBadge verdict={c.verdict} />
      </span>
      {quiet ? <span className="sr-only"> {c.summary}</span> : ` ${c.summary}`}
    </Line>
  );
}

/** For the companies not migrated: why, what the customer must do, the way back, the last error. */
function Outcome({ row: r, compact }: { row: HandoverRow; compact: boolean }) {
  return (
    <>
      <Line term="Checks">{r.checksSummary}</Line>
      {r.completeness ? <DataLine completeness={r.completeness} compact={compact} /> : null}
      {r.reason ? (
        <Line term="Why" clamp={compact ? r.reason : undefined}>
          {r.reason}
        </Line>
      ) : null}
      {r.customerAction ? <Line term="What to do">{r.customerAction}</Line> : null}
      {r.linkUrl ? (
        <Line term="Reconnect link">
          <CopyableId value={r.linkUrl} label={`reconnect link of ${r.name}`} tail={compact} />
        </Line>
      ) : null}
      {r.reconnectedAt ? <Line term="Came back">Verified again {formatDateTime(r.reconnectedAt)}</Line> : null}
      {r.droppedAt && r.state === "reconnect_pending" ? <Line term="Dropped">Its connection dropped {formatDateTime(r.droppedAt)}, after its migration</Line> : null}
      {r.error ? (
        <Line term="Last error">
          {compact ? <FailureSummary failure={r.error} subject={`${r.name}'s last error`} /> : <FailureDetails failure={r.error} subject={`${r.name}'s last error`} />}
        </Line>
      ) : null}
    </>
  );
}

/** The report's companies on a screen: one line per id and state, the company kept in view, stacked rows on a phone. */
const COMPACT_COLUMNS: ResponsiveColumn<HandoverRow>[] = [
  {
    label: "Company",
    sticky: "start",
    title: true,
    className: "min-w-44 max-w-60",
    cell: (r) => (
      <>
        <span className="block font-medium break-words text-slate-900">{r.name}</span>
        <NameOnService name={r.name} serviceName={r.serviceName} />
        <span className="block text-xs text-slate-600">
          {r.externalRef ? `${r.externalRef} · ` : ""}
          {r.sourceRef}
        </span>
      </>
    ),
  },
  { label: "Final state", className: "whitespace-nowrap", cell: (r) => <ItemStateBadge state={r.state} /> },
  { label: "companyId", className: "whitespace-nowrap", cell: (r) => <CopyableId value={r.companyId} label={`company ID of ${r.name}`} short /> },
  { label: "connectionId", className: "whitespace-nowrap", cell: (r) => <CopyableId value={r.connectionId} label={`connection ID of ${r.name}`} short /> },
  { label: "Outcome", wide: true, className: "min-w-80 max-w-[36rem] space-y-1 text-xs", cell: (r) => <Outcome row={r} compact /> },
];

/**
 * The report's companies as a table: each company's final state and ids, its checks, and for
 * those not migrated why, what the customer must do and the service's last error. `compact` for
 * the step 6 panels (a page at a time, ids short); otherwise the printable report, every value whole.
 */
export function HandoverTable({ rows, caption, captionVisible = false, compact = false }: { rows: readonly HandoverRow[]; caption: string; captionVisible?: boolean; compact?: boolean }) {
  if (compact) return <ResponsiveTable caption={caption} captionVisible={captionVisible} columns={COMPACT_COLUMNS} rows={rows} rowKey={(r) => r.id} dense />;
  return (
    <Table caption={caption} captionVisible={captionVisible} className="print:overflow-visible print:border-0 print:shadow-none">
      <THead>
        <Tr>
          <Th>Company and final state</Th>
          <Th>Company and connection ids</Th>
          <Th>Outcome</Th>
        </Tr>
      </THead>
      <TBody>
        {rows.map((r) => (
          <Tr key={r.id} className="break-inside-avoid">
            <Td className="max-w-52 min-w-32 space-y-1">
              <span className="block font-medium break-words text-slate-900">{r.name}</span>
              <NameOnService name={r.name} serviceName={r.serviceName} />
              <span className="block text-xs text-slate-600">
                {r.externalRef ? `${r.externalRef} · ` : ""}
                {r.sourceRef}
              </span>
              <ItemStateBadge state={r.state} />
            </Td>
            <Td className="min-w-48 space-y-1 text-xs">
              <p className="text-slate-600">companyId</p>
              <CopyableId value={r.companyId} label={`company ID of ${r.name}`} />
              <p className="text-slate-600">connectionId</p>
              <CopyableId value={r.connectionId} label={`connection ID of ${r.name}`} />
            </Td>
            <Td className="min-w-60 space-y-1 text-xs">
              <Outcome row={r} compact={false} />
            </Td>
          </Tr>
        ))}
      </TBody>
    </Table>
  );
}
