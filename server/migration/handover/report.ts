/**
 * The handover report's rows and its CSV. A row is an item as the customer reads it: its ids, its
 * final state, its checks, and for the ones not migrated why and what to do. The CSV states the
 * reconciliation at the top (one count a row, then an empty row) and then holds every row under
 * its header; each cell is neutralised against formula injection (the spreadsheet guard the
 * intake's exports use), written with csv-stringify.
 */
import { reconnectLinkUrl, type ReconnectLinks } from "../watch/reconnect-link";
import { stringify } from "csv-stringify/sync";
import { neutraliseSpreadsheetCell } from "@/server/intake/spreadsheet-cell";
import { customerOutcome } from "./customer-actions";
import type { ReportItem } from "./handover-repository";
import { readFailure } from "../engine/stored-failure";
import { describeChecks, failingDataTypes, readChecks } from "./item-results";
import { completenessDetails, completenessOf, storedChecks } from "../completeness/completeness";
import { VERDICT_WORDS } from "@/core/migration/completeness";
import { validationLines, type Failure } from "@/core/migration/failure";
import type { ItemChecks } from "@/core/migration/item-results";
import type { HandoverRow } from "@/core/migration/handover-schemas";
import { itemStateLabel } from "@/core/migration/state-words";
import { RECONCILIATION_LINES, reconciliationInWords, type Reconciliation } from "@/core/migration/reconciliation";
import { serviceNameOf } from "@/server/platforms";

/**
 * A failure's status in one word, for the report's "Error status": the service's HTTP status where
 * it answered with an error; where it answered but the platform refused, the status that refusal
 * left — the connection's ("Deauthorized") or the sync's ("AuthError", "FetchError"); "No answer"
 * where none came in time. Null when there is no failure.
 */
export function errorStatusOf(error: Failure | null, checks: ItemChecks | null): string | null {
  if (!error) return null;
  if (error.status !== null) return String(error.status);
  switch (error.kind) {
    case "reauthorization_required":
    case "unexpected_status":
      return checks?.connection ?? (error.kind === "reauthorization_required" ? "Deauthorized" : null);
    case "auth_error_during_sync":
      return "AuthError";
    case "sync_failed": {
      const failing = [...failingDataTypes(checks).keys()];
      return failing.length ? failing.join(", ") : null;
    }
    case "timeout":
    case "network":
      return "No answer";
    case "sync_timeout":
      return "Timed out";
    default:
      return null;
  }
}

/** An item as a report row. */
export function toReportRow(item: ReportItem, links: ReconnectLinks, platformKey: string): HandoverRow {
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
    attemptsInAll: item.attemptsInAll,
    checks,
    checksSummary: describeChecks(checks),
    completeness: completenessOf({ platformKey, checks: storedChecks(item.checks), oldCounts: item.oldCounts }),
    error,
    errorStatus: errorStatusOf(error, checks),
    reason: outcome.reason,
    customerAction: outcome.action,
    linkUrl: item.state === "reconnect_pending" && item.companyId ? reconnectLinkUrl(links, item.id) : null,
    reconnectedAt: item.reconnectedAt,
    droppedAt: item.droppedAt,
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
  // A support person filters on the first and reads the second: each short data type with the
  // platform's caveat, and each validation message with its count, in one cell.
  ["Data completeness", (r) => (r.completeness ? VERDICT_WORDS[r.completeness.verdict] : null)],
  ["Completeness details", (r) => (r.completeness ? completenessDetails(r.completeness) || r.completeness.summary : null)],
  ["Reason", (r) => r.reason],
  ["What you need to do", (r) => r.customerAction],
  ["Reconnect link", (r) => r.linkUrl],
  ["Error status", (r) => r.errorStatus],
  ["Error", (r) => (r.error ? [r.error.error, ...validationLines(r.error)].filter(Boolean).join("; ") : null)],
  ["Correlation ID", (r) => r.error?.correlationId ?? null],
  ["Attempts in all", (r) => r.attemptsInAll],
  ["Failed attempts in a row", (r) => r.attempts],
];

/** One CSV record: every cell text, neutralised so no spreadsheet reads it as a formula. */
export function reportCsvRecord(row: HandoverRow): string[] {
  return COLUMNS.map(([, value]) => {
    const v = value(row);
    return v === null ? "" : neutraliseSpreadsheetCell(String(v));
  });
}

/** The heading of the CSV's first cell, which says the reconciliation follows. */
export const RECONCILIATION_CSV_HEADING = "Reconciliation";

/**
 * The records above the table: the engagement, the reconciliation in words and one count a row
 * (as the report's screens show them), the single-company test's company, and an empty record
 * before the table's header, so a reader (or a script) finds the table after the first empty line.
 */
export function reconciliationCsvRecords(r: Reconciliation, reference: string): string[][] {
  const cell = (v: string) => neutraliseSpreadsheetCell(v);
  return [
    [RECONCILIATION_CSV_HEADING, cell(`${reference}: ${reconciliationInWords(r)}`)],
    ...RECONCILIATION_LINES.map((l) => [l.label, String(r[l.key])]),
    ["Single-company test's company", r.pilot ? cell(r.pilot.name) : ""],
    [],
  ];
}

/**
 * CSV text for a chunk of rows; the first chunk starts with a byte-order mark (so spreadsheet
 * programs read UTF-8 names right), the reconciliation and the header row.
 */
export function reportCsvChunk(rows: readonly HandoverRow[], first: { reconciliation: Reconciliation; reference: string } | null): string {
  const records = rows.map(reportCsvRecord);
  const head = first ? [...reconciliationCsvRecords(first.reconciliation, first.reference), COLUMNS.map(([heading]) => heading)] : [];
  return stringify([...head, ...records], { bom: first !== null, record_delimiter: "windows" });
}

/** The report's file name: "FER-1042-handover-report.csv". */
export function reportFileName(reference: string): string {
  return `${reference.replace(/[^A-Za-z0-9-]/g, "_")}-handover-report.csv`;
}
