/**
 * The one module that touches drizzle for submissions and the migration items they carry. Every
 * function is a transaction step (`yield*` it in a body; readSteps outside a transaction).
 * Questions about the customer's real migration go through `realItems` (no rehearsal items).
 */
import { and, asc, count, desc, eq, gt, inArray, isNotNull, lte, max, ne, sql } from "drizzle-orm";
import { intakeSubmissions, migrationItems, migrationRuns, users } from "@/db/schema";
import { realItems } from "@/server/items/item-scope";
import { q, type Steps, type Tx } from "@/db/database";

export type SubmissionRow = typeof intakeSubmissions.$inferSelect;
export type NewSubmission = typeof intakeSubmissions.$inferInsert;

/** The engagement's current submission (the newest that was not replaced), or undefined. */
export function* findCurrentSubmission(tx: Tx, engagementId: string): Steps<SubmissionRow | undefined> {
  return yield* q.get(
    tx
      .select()
      .from(intakeSubmissions)
      .where(and(eq(intakeSubmissions.engagementId, engagementId), ne(intakeSubmissions.status, "replaced")))
      .orderBy(desc(intakeSubmissions.submittedAt), desc(intakeSubmissions.id)),
  );
}

/** One submission of the engagement, or undefined. */
export function* findSubmission(tx: Tx, engagementId: string, submissionId: string): Steps<SubmissionRow | undefined> {
  return yield* q.get(
    tx.select().from(intakeSubmissions).where(and(eq(intakeSubmissions.engagementId, engagementId), eq(intakeSubmissions.id, submissionId))),
  );
}

/** Every submission of the engagement, newest first, with who submitted and reviewed it. */
export function* listSubmissions(tx: Tx, engagementId: string) {
  const rows = yield* q.all(
    tx
      .select()
      .from(intakeSubmissions)
      .where(eq(intakeSubmissions.engagementId, engagementId))
      .orderBy(desc(intakeSubmissions.submittedAt), desc(intakeSubmissions.id)),
  );
  const ids = [...new Set(rows.flatMap((r) => [r.submittedById, r.reviewedById]).filter((x): x is string => !!x))];
  const named = ids.length ? yield* q.all(tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids))) : [];
  const people = new Map(named.map((p) => [p.id, p]));
  return { rows, people };
}

/** Inserts a submission. */
export function* insertSubmission(tx: Tx, values: NewSubmission): Steps<void> {
  yield* q.run(tx.insert(intakeSubmissions).values(values));
}

/** Changes a submission's review fields. */
export function* updateSubmission(
  tx: Tx,
  submissionId: string,
  set: Partial<Pick<SubmissionRow, "status" | "reviewedById" | "reviewedAt" | "returnNote">>,
): Steps<void> {
  yield* q.run(tx.update(intakeSubmissions).set(set).where(eq(intakeSubmissions.id, submissionId)));
}

/** What a submission records of its file, once the file has been read. */
export type SubmissionFile = Pick<SubmissionRow, "rowCount" | "warningCount" | "countsByKind" | "preview" | "warnings" | "replacedItemCount">;

/** Records what a submission's file held (a submission is stored before its companies, which point to it). */
export function* recordSubmissionFile(tx: Tx, submissionId: string, file: SubmissionFile): Steps<void> {
  yield* q.run(tx.update(intakeSubmissions).set(file).where(eq(intakeSubmissions.id, submissionId)));
}

/** How many real migration items the engagement has. */
export function* countRealItems(tx: Tx, engagementId: string): Steps<number> {
  return (yield* q.get(tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId))))?.n ?? 0;
}

/**
 * Deletes the engagement's real migration items (a replaced submission's set), but those of
 * `keepSubmission` (the one replacing it, stored first); returns how many.
 */
export function* deleteRealItems(tx: Tx, engagementId: string, keepSubmission?: string): Steps<number> {
  const which = realItems(engagementId, keepSubmission ? ne(migrationItems.submissionId, keepSubmission) : undefined);
  const n = (yield* q.get(tx.select({ n: count() }).from(migrationItems).where(which)))?.n ?? 0;
  if (n) yield* q.run(tx.delete(migrationItems).where(which));
  return n;
}

/**
 * Whether the migration has started: a real company has left `pending`, or a single-company test
 * or bulk run was requested and not cancelled. From then on the token file cannot be replaced.
 */
export function* migrationHasStarted(tx: Tx, engagementId: string): Steps<boolean> {
  const moved = yield* q.get(
    tx
      .select({ id: migrationItems.id })
      .from(migrationItems)
      .where(realItems(engagementId, ne(migrationItems.state, "pending")))
      .limit(1),
  );
  if (moved) return true;
  const run = yield* q.get(
    tx
      .select({ id: migrationRuns.id })
      .from(migrationRuns)
      .where(and(eq(migrationRuns.engagementId, engagementId), inArray(migrationRuns.kind, ["pilot", "bulk"]), ne(migrationRuns.status, "cancelled")))
      .limit(1),
  );
  return !!run;
}

/** One page of the engagement's real items, in file order: names, references and masks only. */
export function* pageRealItems(tx: Tx, engagementId: string, page: { offset: number; limit: number }) {
  return yield* q.all(
    tx
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
      .offset(page.offset),
  );
}

/** The ids of the engagement's real items, in file order. */
export function* realItemIds(tx: Tx, engagementId: string): Steps<string[]> {
  const rows = yield* q.all(tx.select({ id: migrationItems.id }).from(migrationItems).where(realItems(engagementId)).orderBy(asc(migrationItems.position)));
  return rows.map((r) => r.id);
}

/** What the duration estimate needs of the real items: companies and the `records` hints. */
export function* recordsSummary(tx: Tx, engagementId: string): Steps<{ companies: number; hintedSum: number; hintedCompanies: number }> {
  const row = yield* q.get(
    tx
      .select({
        companies: count(),
        hintedSum: sql<number>`coalesce(sum(${migrationItems.recordsHint}), 0)`,
        hintedCompanies: count(migrationItems.recordsHint),
      })
      .from(migrationItems)
      .where(realItems(engagementId)),
  );
  return { companies: row?.companies ?? 0, hintedSum: Number(row?.hintedSum ?? 0), hintedCompanies: row?.hintedCompanies ?? 0 };
}

/** Step 4's risk from the file: companies, access tokens expired by `now`, and those with no expiry given. */
export function* tokenExpiryCounts(tx: Tx, engagementId: string, now: Date): Steps<{ companies: number; expired: number; withExpiry: number }> {
  const companies = yield* countRealItems(tx, engagementId);
  const withExpiry =
    (yield* q.get(tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId, isNotNull(migrationItems.accessTokenExpiresAt)))))?.n ?? 0;
  const expired = (yield* q.get(tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId, lte(migrationItems.accessTokenExpiresAt, now)))))?.n ?? 0;
  return { companies, expired, withExpiry };
}

/** Companies whose access token expires after `after` (from the file), and the latest such expiry: step 4's "old app still refreshing". */
export function* expiringAfter(tx: Tx, engagementId: string, after: Date): Steps<{ companies: number; lastExpiry: Date | null }> {
  const row = yield* q.get(
    tx
      .select({ n: count(), last: max(migrationItems.accessTokenExpiresAt) })
      .from(migrationItems)
      .where(realItems(engagementId, gt(migrationItems.accessTokenExpiresAt, after))),
  );
  return { companies: row?.n ?? 0, lastExpiry: row?.last ?? null };
}
