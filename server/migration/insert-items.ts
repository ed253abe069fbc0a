/**
 * Turning an accepted token file's rows into migration items: one row per company, its
 * credentials encrypted for that row alone (see item-credentials.ts), masks and the access token's
 * expiry kept beside them for screens. Used by the intake's submission, the rehearsal and tests;
 * the caller runs it inside its transaction.
 */
import { migrationItems } from "@/db/schema";
import type { TokenRow } from "@/server/intake";
import type { ManagedPlatform } from "@/server/platforms";
import type { DbOrTx } from "@/server/security/audit";
import type { KeyRing } from "@/server/security/secrets";
import { accessTokenExpiry, maskCredentials, sealItemCredentials } from "./item-credentials";

/** Rows per INSERT: 19 columns each stays far below SQLite's 32,766 bound variables. */
const CHUNK = 500;

/**
 * Inserts one pending migration item per row, in file order. Returns how many were inserted.
 * Synchronous (better-sqlite3): call it inside the caller's transaction.
 */
export function insertMigrationItems(
  tx: DbOrTx,
  params: {
    ring: KeyRing;
    platform: ManagedPlatform;
    engagementId: string;
    submissionId: string;
    rows: readonly (Pick<TokenRow, "line" | "cell" | "name" | "externalRef" | "records" | "credentials"> & {
      /** Where the row was, when it is not the row's index in `rows` (a rehearsal's twins keep their real item's). */
      position?: number;
      sourceRef?: string;
    })[];
    at: Date;
    /** A rehearsal's simulated items: the run that made them (see item-scope.ts). */
    rehearsalRunId?: string;
  },
): number {
  const { ring, platform, engagementId, submissionId, at } = params;
  for (let start = 0; start < params.rows.length; start += CHUNK) {
    const values = params.rows.slice(start, start + CHUNK).map((row, i) => {
      const id = crypto.randomUUID();
      return {
        id,
        engagementId,
        submissionId,
        position: row.position ?? start + i,
        sourceRef: row.sourceRef ?? (row.cell ? `cell ${row.cell}` : `line ${row.line}`),
        name: row.name,
        externalRef: row.externalRef,
        recordsHint: row.records,
        credentialsCipher: sealItemCredentials(ring, { engagementId, itemId: id }, row.credentials),
        credentialsMask: maskCredentials(platform, row.credentials),
        accessTokenExpiresAt: accessTokenExpiry(row.credentials),
        state: "pending" as const,
        rehearsalRunId: params.rehearsalRunId ?? null,
        updatedAt: at,
      };
    });
    tx.insert(migrationItems).values(values).run();
  }
  return params.rows.length;
}
