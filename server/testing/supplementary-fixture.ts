/**
 * The supplementary file's tests' set-up: an engagement whose bulk run has ended with some
 * companies failed on their tokens (the handover fixture's items, attached to a completed bulk
 * run as the runner leaves them), and files of fresh tokens naming companies by externalRef or name.
 */
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import type { Database } from "@/db/database";
import { migrationItems, migrationRuns } from "@/db/schema";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { getManagedPlatform } from "@/server/platforms";
import { seedHandover, type CompanySpec, type HandoverFixture } from "./handover-fixture";
import { asDatabase, type People } from "./test-db";
import { csvBytes, headerFor } from "./token-files";

const qbo = getManagedPlatform("qhyg")!;

/** The companies of `afterBulkRun` by default: verified, two needing reauthorization, one failed on its tokens during the sync, one failed on a 500. */
export const AFTER_BULK_COMPANIES: CompanySpec[] = [
  { state: "verified", name: "Harbour Books Ltd", externalRef: "HB-01" },
  { state: "reauth_required", name: "Copperleaf Cafe", externalRef: "CC-02" },
  { state: "reauth_required", name: "Wildrose Wedding Co", externalRef: null },
  {
    state: "failed",
    name: "Société Générale Café",
    externalRef: "SG-04",
    lastError: { kind: "auth_error_during_sync", status: null, error: "AuthError: the tokens were refused during the sync", correlationId: null, operation: "getDataStatus" },
  },
  { state: "failed", name: "Server Trouble Ltd", externalRef: "ST-05" },
];

export type AfterBulkRun = HandoverFixture & { runId: string };

/** An engagement at step 6 whose completed bulk run left `companies` as they say (QuickBooks Online). */
export async function afterBulkRun(target: Db | Database["db"] | Database, people: People, params: { companies?: CompanySpec[]; organizationId?: string } = {}): Promise<AfterBulkRun> {
  const db = asDatabase(target).db;
  const f = await seedHandover(db, people, { companies: params.companies ?? AFTER_BULK_COMPANIES, ...(params.organizationId ? { organizationId: params.organizationId } : {}) });
  const now = new Date();
  const runId = crypto.randomUUID();
  await db
    .insert(migrationRuns)
    .values({ id: runId, engagementId: f.engagementId, kind: "bulk", status: "completed", requestedById: people.support.id, requestedAt: now, startedAt: now, finishedAt: now, outcome: {} });
  await db.update(migrationItems).set({ runId }).where(eq(migrationItems.engagementId, f.engagementId));
  return { ...f, runId };
}

/** A row of a file of fresh tokens: the company by name and/or externalRef, and distinct well-formed credentials (`seed`). */
export type FreshRow = { name: string; externalRef?: string | null; seed: number };

/** Fresh QuickBooks Online credentials for `seed` (the stand-ins the token-file tests use). */
export const freshCredentials = (seed: number) => credentialsFor(qbo, 500_000 + seed);

/** A CSV of fresh tokens in the platform's template columns. */
export function freshTokenCsv(rows: readonly FreshRow[]): Buffer {
  const header = headerFor(qbo);
  return csvBytes([
    header,
    ...rows.map((r) => {
      const credentials = freshCredentials(r.seed);
      return header.map((column) => (column === "companyName" ? r.name : column === "externalRef" ? (r.externalRef ?? "") : column === "records" ? "" : (credentials[column] ?? "")));
    }),
  ]);
}

/** The secret values of a file's rows (to scan for). */
export function freshSecrets(rows: readonly FreshRow[]): string[] {
  const secret = qbo.credentialFields.filter((f) => f.secret).map((f) => f.name);
  return rows.flatMap((r) => secret.map((name) => freshCredentials(r.seed)[name]!));
}
