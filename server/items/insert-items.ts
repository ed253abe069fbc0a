/**
 * Turning an accepted token file's rows into migration items: one row per company, its
 * credentials encrypted for that row alone (see item-credentials.ts), masks and the access token's
 * expiry kept beside them for screens. Used by the intake's submission, the rehearsal and tests;
 * the caller runs it inside its transaction.
 *
 * On SQLite, one prepared single-row INSERT, run per row inside the caller's transaction: a
 * 100,000-row file is stored in about a second. (Multi-row INSERTs of 500 rows, re-prepared for
 * every chunk, cost about ten times as much: SQLite compiles a 9,500-parameter statement each
 * time.) On PostgreSQL each statement is a round trip to the server, so rows go in multi-row
 * INSERTs instead.
 */
import { is, sql } from "drizzle-orm";
import { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { q, type Steps, type Tx } from "@/db/database";
import { migrationItems } from "@/db/schema";
import type { TokenRow } from "@/server/intake";
import { companyNameOnService, fileWhereOfSourceRef, type ManagedPlatform } from "@/server/platforms";
import type { KeyRing } from "@/server/security/secrets";
import { accessTokenExpiry, maskCredentials, sealItemCredentials } from "./item-credentials";

/** Rows per INSERT on PostgreSQL: 15 parameters a row, well under its 65,535 a statement. */
const PG_ROWS_PER_INSERT = 1_000;

const p = <T>(name: string) => sql.placeholder(name) as unknown as T;

/** The single-row insert, with every column a placeholder (prepared once per call). */
function prepareInsert(tx: Tx) {
  return tx
    .insert(migrationItems)
    .values({
      id: p("id"),
      engagementId: p("engagementId"),
      submissionId: p("submissionId"),
      position: p("position"),
      sourceRef: p("sourceRef"),
      name: p("name"),
      serviceName: p("serviceName"),
      externalRef: p("externalRef"),
      recordsHint: p("recordsHint"),
      credentialsCipher: p("credentialsCipher"),
      credentialsMask: p("credentialsMask"),
      // Nullable: a raw placeholder (milliseconds or null), since drizzle's timestamp encoder cannot take null.
      accessTokenExpiresAt: sql`${sql.placeholder("accessTokenExpiresAtMs")}`,
      state: "pending",
      rehearsalRunId: p("rehearsalRunId"),
      updatedAt: p("updatedAt"),
    })
    .prepare();
}

/**
 * Inserts one pending migration item per row, in file order. Returns how many were inserted. A
 * step of the caller's transaction.
 */
export function* insertMigrationItems(
  tx: Tx,
  params: {
    ring: KeyRing;
    platform: ManagedPlatform;
    engagementId: string;
    submissionId: string;
    rows: readonly (Pick<TokenRow, "line" | "cell" | "name" | "externalRef" | "records" | "credentials"> & {
      /** Where the row was, when it is not the row's index in `rows` (a rehearsal's twins keep their real item's). */
      position?: number;
      sourceRef?: string;
      /** The name sent to the service; by default the name rule's for the row (a token file's rows carry it from their check). */
      serviceName?: string;
    })[];
    at: Date;
    /** A rehearsal's simulated items: the run that made them (see item-scope.ts). */
    rehearsalRunId?: string;
  },
): Steps<number> {
  const { ring, platform, engagementId, submissionId, at } = params;
  if (!params.rows.length) return 0;
  const rehearsalRunId = params.rehearsalRunId ?? null;
  const values = params.rows.map((row, index) => {
    const id = crypto.randomUUID();
    const sourceRef = row.sourceRef ?? (row.cell ? `cell ${row.cell}` : `line ${row.line}`);
    return {
      id,
      engagementId,
      submissionId,
      position: row.position ?? index,
      sourceRef,
      name: row.name,
      serviceName: row.serviceName ?? companyNameOnService({ name: row.name, externalRef: row.externalRef, where: fileWhereOfSourceRef(sourceRef) }).name,
      externalRef: row.externalRef,
      recordsHint: row.records,
      credentialsCipher: sealItemCredentials(ring, { engagementId, itemId: id }, row.credentials),
      credentialsMask: maskCredentials(platform, row.credentials),
      accessTokenExpiresAt: accessTokenExpiry(row.credentials),
      rehearsalRunId,
      updatedAt: at,
    };
  });
  if (is(tx, BaseSQLiteDatabase)) {
    const insert = prepareInsert(tx);
    for (const { accessTokenExpiresAt, ...v } of values) {
      // The prepared statement runs as a step like any query (its sync run() inside the transaction).
      yield* q.run({ run: () => insert.run({ ...v, accessTokenExpiresAtMs: accessTokenExpiresAt?.getTime() ?? null }) });
    }
  } else {
    for (let start = 0; start < values.length; start += PG_ROWS_PER_INSERT) {
      yield* q.run(tx.insert(migrationItems).values(values.slice(start, start + PG_ROWS_PER_INSERT).map((v) => ({ ...v, state: "pending" as const }))));
    }
  }
  return values.length;
}
