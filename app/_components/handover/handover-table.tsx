import type { ReactNode } from "react";
import { CopyableId, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
import type { HandoverRow } from "@/core/migration/handover-schemas";
import { FailureDetails } from "@/app/_components/migration/failure-details";
import { formatDateTime } from "@/app/_lib/labels";
import { NameOnService } from "@/app/_components/migration/name-on-service";
import { ItemStateBadge } from "./item-state-badge";

/** One labelled line of the outcome column. */
function Line({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <span className="font-semibold text-slate-700">{term}: </span>
      {children}
    </div>
  );
}

/**
 * The report's companies as a table: each company's final state and ids, its checks, and for
 * those not migrated why, what the customer must do and the service's last error. Used by the
 * step 6 panels (a page at a time) and the printable report.
 */
export function HandoverTable({ rows, caption, captionVisible = false }: { rows: readonly HandoverRow[]; caption: string; captionVisible?: boolean }) {
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
              <Line term="Checks">{r.checksSummary}</Line>
              {r.reason ? <Line term="Why">{r.reason}</Line> : null}
              {r.customerAction ? <Line term="What to do">{r.customerAction}</Line> : null}
              {r.linkUrl ? (
                <Line term="Reconnect link">
                  <CopyableId value={r.linkUrl} label={`reconnect link of ${r.name}`} />
                </Line>
              ) : null}
              {r.reconnectedAt ? <Line term="Came back">Verified again {formatDateTime(r.reconnectedAt)}</Line> : null}
              {r.droppedAt && r.state === "reconnect_pending" ? <Line term="Dropped">Its connection dropped {formatDateTime(r.droppedAt)}, after its migration</Line> : null}
              {r.error ? (
                <Line term="Last error">
                  <FailureDetails failure={r.error} subject={`${r.name}'s last error`} />
                </Line>
              ) : null}
            </Td>
          </Tr>
        ))}
      </TBody>
    </Table>
  );
}
