/**
 * The one module of the supplementary file that touches drizzle: the files and their rows, the
 * engagement's companies as matching reads them, those waiting for fresh tokens, and an item
 * given its fresh credentials. Transaction steps (db/database.ts): operations compose them with
 * `yield*` in their transactions, and read with them outside one through `readSteps`.
 */
import { and, asc, count, desc, eq, inArray, isNotNull, ne, or, sql, type SQL } from "drizzle-orm";
import { forUpdate, q, type Steps, type Written, type Tx } from "@/db/database";
import { insertMany } from "@/db/insert-many";
import { migrationItems, supplementaryFiles, supplementaryRows, users, watches } from "@/db/schema";
import { realItems } from "@/server/items/item-scope";
import type { MigrationItemState } from "@/core/migration/states";
import { TOKEN_FAILURE_KINDS, type CandidateCompany } from "./rules";

export type SupplementaryFileRow = typeof supplementaryFiles.$inferSelect;
export type NewSupplementaryFile = typeof supplementaryFiles.$inferInsert;

/** The failure's kind: `->>` reads JSON alike on SQLite (3.38 and later) and PostgreSQL's jsonb. */
const lastErrorKind = sql<string | null>`${migrationItems.lastError} ->> 'kind'`;

/**
 * Companies waiting for fresh tokens, as SQL: the same as `waitsForFreshTokens` (rules.ts), for
 * lists and counts that must not read every company. A test holds the two together.
 */
export const waitingForTokens: SQL = and(
  isNotNull(migrationItems.connectionId),
  or(
    inArray(migrationItems.state, ["reauth_required", "reconnect_pending"]),
    and(eq(migrationItems.state, "failed"), inArray(lastErrorKind, [...TOKEN_FAILURE_KINDS])),
  ),
)!;

/** Every real company of the engagement, as matching reads it. */
export function* candidateCompanies(tx: Tx, engagementId: string): Steps<CandidateCompany[]> {
  const rows = yield* q.all(
    tx
    .select({
      id: migrationItems.id,
      name: migrationItems.name,
      externalRef: migrationItems.externalRef,
      state: migrationItems.state,
      lastErrorKind,
      hasConnection: sql<number>`${migrationItems.connectionId} is not null`,
    })
    .from(migrationItems)
    .where(realItems(engagementId))
    .orderBy(asc(migrationItems.position)),
  );
  // A 0/1 on SQLite, a boolean on PostgreSQL.
  return rows.map((c) => ({ ...c, hasConnection: Boolean(c.hasConnection) }));
}

/** How many real companies wait for fresh tokens. */
export function* countWaiting(tx: Tx, engagementId: string): Steps<number> {
  const row = yield* q.get(tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId, waitingForTokens)));
  return row?.n ?? 0;
}

/** The first `limit` companies waiting for fresh tokens, in file order, with what the engine recorded of their failure. */
export function* listWaiting(tx: Tx, engagementId: string, limit: number) {
  return yield* q.all(
    tx
    .select({
      id: migrationItems.id,
      name: migrationItems.name,
      externalRef: migrationItems.externalRef,
      state: migrationItems.state,
      sourceRef: migrationItems.sourceRef,
      outcomeReason: migrationItems.outcomeReason,
      lastError: migrationItems.lastError,
    })
    .from(migrationItems)
    .where(realItems(engagementId, waitingForTokens))
    .orderBy(asc(migrationItems.position))
    .limit(limit),
  );
}

/** Whether the engagement's hypercare watch is on. */
export function* isWatching(tx: Tx, engagementId: string): Steps<boolean> {
  return !!(yield* q.get(tx.select({ id: watches.engagementId }).from(watches).where(and(eq(watches.engagementId, engagementId), eq(watches.status, "watching")))));
}

/** The engagement's current file: the newest not replaced, or undefined. */
export function* findCurrentFile(tx: Tx, engagementId: string): Steps<SupplementaryFileRow | undefined> {
  return yield* q.get(
    tx
      .select()
      .from(supplementaryFiles)
      .where(and(eq(supplementaryFiles.engagementId, engagementId), ne(supplementaryFiles.status, "replaced")))
      .orderBy(desc(supplementaryFiles.submittedAt), desc(supplementaryFiles.id))
      .limit(1),
  );
}

/** Every file of the engagement, newest first, with the people who sent and decided them. */
export function* listFiles(tx: Tx, engagementId: string) {
  const rows = yield* q.all(
    tx.select().from(supplementaryFiles).where(eq(supplementaryFiles.engagementId, engagementId)).orderBy(desc(supplementaryFiles.submittedAt), desc(supplementaryFiles.id)),
  );
  const ids = [...new Set(rows.flatMap((r) => [r.submittedById, r.decidedById]).filter((x): x is string => !!x))];
  const named = ids.length ? yield* q.all(tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids))) : [];
  const people = new Map(named.map((p) => [p.id, p]));
  return { rows, people };
}

export function* insertFile(tx: Tx, values: NewSupplementaryFile): Steps<void> {
  yield* q.run(tx.insert(supplementaryFiles).values(values));
}

/** Changes a file's status and who decided it when (and the note when sent back). */
export function* updateFile(tx: Tx, fileId: string, set: Partial<Pick<SupplementaryFileRow, "status" | "decidedById" | "decidedAt" | "note">>): Steps<Written> {
  return yield* q.run(tx.update(supplementaryFiles).set(set).where(eq(supplementaryFiles.id, fileId)));
}

/** One company's fresh tokens, sealed for its row. */
export type NewRow = {
  id: string;
  itemId: string;
  position: number;
  sourceRef: string;
  credentialsCipher: string;
  credentialsMask: Record<string, string>;
  accessTokenExpiresAt: Date | null;
};

/** Inserts a file's rows (db/insert-many.ts: batches of rows, as each database does them fastest). */
export function* insertRows(tx: Tx, fileId: string, rows: readonly NewRow[]): Steps<void> {
  yield* insertMany(tx, supplementaryRows, rows.map((r) => ({ ...r, fileId })));
}

/** A file's rows in file order with their companies (masks only), the first `limit`. */
export function* listRows(tx: Tx, fileId: string, limit: number) {
  return yield* q.all(
    tx
    .select({
      id: supplementaryRows.id,
      sourceRef: supplementaryRows.sourceRef,
      credentialsMask: supplementaryRows.credentialsMask,
      accessTokenExpiresAt: supplementaryRows.accessTokenExpiresAt,
      credentialsPurgedAt: supplementaryRows.credentialsPurgedAt,
      company: { id: migrationItems.id, name: migrationItems.name, externalRef: migrationItems.externalRef, state: migrationItems.state },
    })
    .from(supplementaryRows)
    .innerJoin(migrationItems, eq(migrationItems.id, supplementaryRows.itemId))
    .where(eq(supplementaryRows.fileId, fileId))
    .orderBy(asc(supplementaryRows.position))
    .limit(limit),
  );
}

/**
 * What accepting a file reads of each row: its sealed tokens and its company's state now. The rows
 * and their companies' rows are locked until the transaction ends (FOR UPDATE on PostgreSQL): each
 * company is given its tokens only while it still waits for them, as read here.
 */
export function* rowsToApply(tx: Tx, fileId: string) {
  const rows = yield* q.all(
    forUpdate(
    tx
    .select({
      id: supplementaryRows.id,
      cipher: supplementaryRows.credentialsCipher,
      mask: supplementaryRows.credentialsMask,
      accessTokenExpiresAt: supplementaryRows.accessTokenExpiresAt,
      itemId: migrationItems.id,
      name: migrationItems.name,
      state: migrationItems.state,
      lastErrorKind,
      hasConnection: sql<number>`${migrationItems.connectionId} is not null`,
    })
    .from(supplementaryRows)
    .innerJoin(migrationItems, eq(migrationItems.id, supplementaryRows.itemId))
    .where(eq(supplementaryRows.fileId, fileId))
    .orderBy(asc(supplementaryRows.position)),
    ),
  );
  return rows.map((r) => ({ ...r, state: r.state as MigrationItemState, hasConnection: Boolean(r.hasConnection) }));
}

/** Deletes the fresh tokens of a file's rows (all, or those named), keeping the masks; returns how many held some. */
export function* purgeRows(tx: Tx, fileId: string, at: Date, rowIds?: readonly string[]): Steps<number> {
  if (rowIds && !rowIds.length) return 0;
  const purged = yield* q.all(
    tx
      .update(supplementaryRows)
      .set({ credentialsCipher: null, credentialsPurgedAt: at })
      .where(and(eq(supplementaryRows.fileId, fileId), isNotNull(supplementaryRows.credentialsCipher), rowIds ? inArray(supplementaryRows.id, [...rowIds]) : undefined))
      .returning({ id: supplementaryRows.id }),
  );
  return purged.length;
}

/** Gives a company its fresh credentials, sealed for the item, and names the file they came from. */
export function* giveFreshCredentials(
  tx: Tx,
  params: { itemId: string; cipher: string; mask: Record<string, string>; accessTokenExpiresAt: Date | null; fileId: string; now: Date },
): Steps<void> {
  yield* q.run(
    tx
    .update(migrationItems)
    .set({
      credentialsCipher: params.cipher,
      credentialsMask: params.mask,
      accessTokenExpiresAt: params.accessTokenExpiresAt,
      credentialsPurgedAt: null,
      supplementaryFileId: params.fileId,
      updatedAt: params.now,
    })
    .where(eq(migrationItems.id, params.itemId)),
  );
}
