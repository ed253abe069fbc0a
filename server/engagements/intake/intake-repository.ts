/**
 * The one module that touches drizzle for submissions and the migration items they carry. Every
 * function is synchronous (better-sqlite3): operations call them inside their transactions.
 * Questions about the customer's real migration go through `realItems` (no rehearsal items).
 */
import { and, asc, count, desc, eq, inArray, isNotNull, lte, ne, sql } from "drizzle-orm";
import { intakeSubmissions, migrationItems, migrationRuns, users } from "@/db/schema";
import { realItems } from "@/server/items/item-scope";
import type { DbOrTx } from "@/server/security/audit";

export type SubmissionRow = typeof intakeSubmissions.$inferSelect;
export type NewSubmission = typeof intakeSubmissions.$inferInsert;

/** The engagement's current submission (the newest that was not replaced), or undefined. */
export function findCurrentSubmission(tx: DbOrTx, engagementId: string): SubmissionRow | undefined {
  return tx
    .select()
    .from(intakeSubmissions)
    .where(and(eq(intakeSubmissions.engagementId, engagementId), ne(intakeSubmissions.status, "replaced")))
    .orderBy(desc(intakeSubmissions.submittedAt), desc(intakeSubmissions.id))
    .get();
}

/** One submission of the engagement, or undefined. */
export function findSubmission(tx: DbOrTx, engagementId: string, submissionId: string): SubmissionRow | undefined {
  return tx
    .select()
    .from(intakeSubmissions)
    .where(and(eq(intakeSubmissions.engagementId, engagementId), eq(intakeSubmissions.id, submissionId)))
    .get();
}

/** Every submission of the engagement, newest first, with who submitted and reviewed it. */
export function listSubmissions(tx: DbOrTx, engagementId: string) {
  const rows = tx
    .select()
    .from(intakeSubmissions)
    .where(eq(intakeSubmissions.engagementId, engagementId))
    .orderBy(desc(intakeSubmissions.submittedAt), desc(intakeSubmissions.id))
    .all();
  const ids = [...new Set(rows.flatMap((r) => [r.submittedById, r.reviewedById]).filter((x): x is string => !!x))];
  const people = new Map(
    ids.length ? tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids)).all().map((p) => [p.id, p]) : [],
  );
  return { rows, people };
}

/** Inserts a submission. */
export function insertSubmission(tx: DbOrTx, values: NewSubmission): void {
  tx.insert(intakeSubmissions).values(values).run();
}

/** Changes a submission's review fields. */
export function updateSubmission(
  tx: DbOrTx,
  submissionId: string,
  set: Partial<Pick<SubmissionRow, "status" | "reviewedById" | "reviewedAt" | "returnNote">>,
): void {
  tx.update(intakeSubmissions).set(set).where(eq(intakeSubmissions.id, submissionId)).run();
}

/** How many real migration items the engagement has. */
export function countRealItems(tx: DbOrTx, engagementId: string): number {
  return tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId)).get()?.n ?? 0;
}

/** Deletes the engagement's real migration items (a replaced submission's set); returns how many. */
export function deleteRealItems(tx: DbOrTx, engagementId: string): number {
  const n = countRealItems(tx, engagementId);
  if (n) tx.delete(migrationItems).where(realItems(engagementId)).run();
  return n;
}

/**
 * Whether the migration has started: a real company has left `pending`, or a single-company test
 * or bulk run was requested and not cancelled. From then on the token file cannot be replaced.
 */
export function migrationHasStarted(tx: DbOrTx, engagementId: string): boolean {
  const moved = tx
    .select({ id: migrationItems.id })
    .from(migrationItems)
    .where(realItems(engagementId, ne(migrationItems.state, "pending")))
    .limit(1)
    .get();
  if (moved) return true;
  const run = tx
    .select({ id: migrationRuns.id })
    .from(migrationRuns)
    .where(and(eq(migrationRuns.engagementId, engagementId), inArray(migrationRuns.kind, ["pilot", "bulk"]), ne(migrationRuns.status, "cancelled")))
    .limit(1)
    .get();
  return !!run;
}

/** One page of the engagement's real items, in file order: names, references and masks only. */
export function pageRealItems(tx: DbOrTx, engagementId: string, page: { offset: number; limit: number }) {
  return tx
    .select({
      id: migrationItems.id,
      position: migrationItems.position,
      sourceRef: migrationItems.sourceRef,
      name: migrationItems.name,
      externalRef: migrationItems.externalRef,
      recordsHint: migrationItems.recordsHint,
      credentialsMask: migrationItems.credentialsMask,
      accessTokenExpiresAt: migrationItems.accessTokenExpiresAt,
      state: migrationItems.state,
    })
    .from(migrationItems)
    .where(realItems(engagementId))
    .orderBy(asc(migrationItems.position))
    .limit(page.limit)
    .offset(page.offset)
    .all();
}

/** The ids of the engagement's real items, in file order. */
export function realItemIds(tx: DbOrTx, engagementId: string): string[] {
  return tx
    .select({ id: migrationItems.id })
    .from(migrationItems)
    .where(realItems(engagementId))
    .orderBy(asc(migrationItems.position))
    .all()
    .map((r) => r.id);
}

/** What the duration estimate needs of the real items: companies and the `records` hints. */
export function recordsSummary(tx: DbOrTx, engagementId: string): { companies: number; hintedSum: number; hintedCompanies: number } {
  const row = tx
    .select({
      companies: count(),
      hintedSum: sql<number>`coalesce(sum(${migrationItems.recordsHint}), 0)`,
      hintedCompanies: count(migrationItems.recordsHint),
    })
    .from(migrationItems)
    .where(realItems(engagementId))
    .get();
  return { companies: row?.companies ?? 0, hintedSum: Number(row?.hintedSum ?? 0), hintedCompanies: row?.hintedCompanies ?? 0 };
}

/** Step 4's risk from the file: companies, access tokens expired by `now`, and those with no expiry given. */
export function tokenExpiryCounts(tx: DbOrTx, engagementId: string, now: Date): { companies: number; expired: number; withExpiry: number } {
  const companies = countRealItems(tx, engagementId);
  const withExpiry =
    tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId, isNotNull(migrationItems.accessTokenExpiresAt))).get()?.n ?? 0;
  const expired =
    tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId, lte(migrationItems.accessTokenExpiresAt, now))).get()?.n ?? 0;
  return { companies, expired, withExpiry };
}
