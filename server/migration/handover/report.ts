/**
 * The handover report's rows and its CSV. A row is an item as the customer reads it: its ids, its
 * final state, its checks, and for the ones not migrated why and what to do. The CSV holds every
 * row, each cell neutralised against formula injection (the spreadsheet guard the intake's
 * exports use), written with csv-stringify.
 */
import { stringify } from "csv-stringify/sync";
import { neutraliseSpreadsheetCell } from "@/server/intake/spreadsheet-cell";
import { customerOutcome } from "./customer-actions";
import type { ReportItem } from "./handover-repository";
import { readFailure } from "../engine/stored-failure";
import { describeChecks, readChecks } from "./item-results";
import { validationLines } from "@/core/migration/failure";
import type { HandoverRow } from "@/core/migration/handover-schemas";
import { itemStateLabel } from "@/core/migration/state-words";
import { serviceNameOf } from "@/server/platforms";

/** An item as a report row. */
export function toReportRow(item: ReportItem): HandoverRow {
  const checks = readChecks(item.checks);
  const error = readFailure(item.lastError);
  const outcome = customerOutcome({ state: item.state, outcomeReason: item.outcomeReason, lastError: error, checks, attempts: item.attempts });
  return {
    id: item.id,
    position: item.position,
    sourceRef: item.sourceRef,
    name: item.name,
    serviceName: serviceNameOf(item),
    externalRef: item.externalRef,
    state: item.state,
    companyId: item.companyId,
    connectionId: item.connectionId,
    attempts: item.attempts,
    checks,
    checksSummary: describeChecks(checks),
    error,
    reason: outcome.reason,
    customerAction: outcome.action,
  };
}

/** The CSV's columns: heading and value. */
const COLUMNS: readonly [heading: string, value: (r: HandoverRow) => string | number | null][] = [
  ["Company name", (r) => r.name],
  ["Name on the service", (r) => r.serviceName],
  ["External reference", (r) => r.externalRef],
  ["Row in token file", (r) => r.sourceRef],
  ["Final state", (r) => itemStateLabel(r.state)],
  ["Company ID", (r) => r.companyId],
  ["Connection ID", (r) => r.connectionId],
  ["Connection status", (r) => r.checks?.connection ?? null],
  ["Checks", (r) => r.checksSummary],
  ["Data types", (r) => r.checks?.dataTypes.map((d) => `${d.dataType}: ${d.status}${d.records !== null ? ` (${d.records})` : ""}`).join("; ") ?? null],
  ["Reason", (r) => r.reason],
  ["What you need to do", (r) => r.customerAction],
  ["Error status", (r) => r.error?.status ?? null],
  ["Error", (r) => (r.error ? [r.error.error, ...validationLines(r.error)].filter(Boolean).join("; ") : null)],
  ["Correlation ID", (r) => r.error?.correlationId ?? null],
  ["Attempts", (r) => r.attempts],
];

/** One CSV record: every cell text, neutralised so no spreadsheet reads it as a formula. */
export function reportCsvRecord(row: HandoverRow): string[] {
  return COLUMNS.map(([, value]) => {
    const v = value(row);
    return v === null ? "" : neutraliseSpreadsheetCell(String(v));
  });
}

/**
 * CSV text for a chunk of rows; the first chunk starts with a byte-order mark (so spreadsheet
 * programs read UTF-8 names right) and the header row.
 */
export function reportCsvChunk(rows: readonly HandoverRow[], first: boolean): string {
  const records = rows.map(reportCsvRecord);
  return stringify(first ? [COLUMNS.map(([heading]) => heading), ...records] : records, { bom: first, record_delimiter: "windows" });
}

/** The report's file name: "FER-1042-handover-report.csv". */
export function reportFileName(reference: string): string {
  return `${reference.replace(/[^A-Za-z0-9-]/g, "_")}-handover-report.csv`;
}
