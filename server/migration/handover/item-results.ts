/**
 * Reading the checks the engine stored on a migration item for the handover report (its last
 * error is read by server/migration/engine/stored-failure.ts). They are JSON the engine writes
 * (`checks: {connection: {status}, sync: {dataTypes: {type: status}}, read: {dataType, records}}`:
 * pipeline.ts's ItemChecks), read leniently (unknown fields kept out, a malformed value read as
 * absent) so one odd row never breaks a report of thousands.
 */
import { z } from "zod";
import type { ItemChecks } from "@/core/migration/item-results";
import { PASSING_PULL_STATUSES } from "@/server/migration/engine/pipeline";
import { countOf, recordsText } from "@/core/words";

/**
 * The engine's checks as stored (server/migration/engine/pipeline.ts, `ItemChecks`): the connection's
 * status after the authorization call, the last status of each data type of the sync, and the read
 * that proved data arrived with the record count the service reported.
 */
const ZStoredChecks = z.object({
  connection: z.object({ status: z.string() }).loose().nullish(),
  sync: z.object({ dataTypes: z.record(z.string(), z.string()) }).loose().nullish(),
  read: z.object({ dataType: z.string(), records: z.number().nullish() }).loose().nullish(),
  records: z.record(z.string(), z.number().nullable()).nullish().catch(null),
});

/** The stored checks, or null when there are none or they cannot be read. */
export function readChecks(raw: unknown): ItemChecks | null {
  const parsed = ZStoredChecks.safeParse(raw);
  if (!parsed.success || raw === null) return null;
  const { connection, sync, read, records } = parsed.data;
  // By name: a JSON object's key order is not kept by PostgreSQL's jsonb, so the report would list
  // the data types in one order on SQLite and another on PostgreSQL.
  const dataTypes = Object.entries(sync?.dataTypes ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([dataType, status]) => ({
      dataType,
      status,
      // The service counts the records of the data types read back: the proof's, and (after a
      // single-company test) every other one it lists.
      records: read && read.dataType === dataType ? (read.records ?? null) : (records?.[dataType] ?? null),
    }));
  if (!connection && !dataTypes.length) return null;
  return { connection: connection?.status ?? null, dataTypes };
}

/** The data types that did not pass, by status ("FetchError" → ["invoices", …]). */
export function failingDataTypes(checks: ItemChecks | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const d of checks?.dataTypes ?? []) {
    if (PASSING_PULL_STATUSES.has(d.status)) continue;
    out.set(d.status, [...(out.get(d.status) ?? []), d.dataType]);
  }
  return out;
}

/**
 * The checks in one line: "Linked; 24 of 26 data types complete, 2 not supported; 1,300 records",
 * or with the failures named: "Linked; 25 of 26 data types complete; FetchError: invoices".
 */
export function describeChecks(checks: ItemChecks | null): string {
  if (!checks) return "Not checked";
  const parts: string[] = [];
  if (checks.connection) parts.push(checks.connection);
  const types = checks.dataTypes;
  if (types.length) {
    const complete = types.filter((d) => d.status === "Complete").length;
    const unsupported = types.filter((d) => d.status === "NotSupported").length;
    parts.push(`${complete} of ${countOf(types.length, "data type", "data types")} complete${unsupported ? `, ${unsupported} not supported` : ""}`);
    for (const [status, names] of failingDataTypes(checks)) parts.push(`${status}: ${names.join(", ")}`);
    const records = types.reduce((sum, d) => sum + (d.records ?? 0), 0);
    if (types.some((d) => d.records !== null)) parts.push(recordsText(records));
  }
  return parts.join("; ");
}
