/**
 * The one module of the handover that touches drizzle: the handover row, the real items the report
 * lists, the runs that hold it back, the purge's writes and who is mailed. Transaction steps
 * (db/database.ts): operations compose them with `yield*`, and read with `readSteps`.
 */
import { and, asc, count, eq, gt, inArray, isNotNull, isNull, lte, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { forUpdate, q, type Steps, type Tx } from "@/db/database";
import { engagements, handovers, intakeSubmissions, migrationItems, migrationRuns, serviceCalls, supplementaryFiles, supplementaryRows, users } from "@/db/schema";
import { realItems } from "@/server/items/item-scope";
import type { MigrationItemState } from "@/core/migration/states";
import type { PurgeTrigger } from "@/core/migration/handover-states";

export type HandoverRecord = typeof handovers.$inferSelect;

/** The engagement's handover, if the report was produced. */
export function* findHandover(tx: Tx, engagementId: string): Steps<HandoverRecord | undefined> {
  return yield* q.get(tx.select().from(handovers).where(eq(handovers.engagementId, engagementId)));
}

/** Records a produced report. */
export function* insertHandover(
  tx: Tx,
  values: { engagementId: string; confirmedById: string; confirmedAt: Date; counts: Record<string, number>; total: number },
): Steps<{ id: string }> {
  return yield* q.get(tx.insert(handovers).values(values).returning({ id: handovers.id }));
}

/** Records the acknowledgement (by the customer, or by staff with a note). */
export function* markAcknowledged(tx: Tx, handoverId: string, values: { byId: string; at: Date; note: string | null }): Steps<void> {
  yield* q.run(
    tx.update(handovers).set({ acknowledgedById: values.byId, acknowledgedAt: values.at, acknowledgementNote: values.note }).where(eq(handovers.id, handoverId)),
  );
}

/** Records the first purge of a handed-over engagement's credentials (later ones keep the first). */
export function* markHandoverPurged(tx: Tx, engagementId: string, values: { at: Date; trigger: PurgeTrigger }): Steps<void> {
  yield* q.run(
    tx
      .update(handovers)
      .set({ purgedAt: values.at, purgeTrigger: values.trigger })
      .where(and(eq(handovers.engagementId, engagementId), isNull(handovers.purgedAt))),
  );
}

/** The people named on a handover. */
export function* namesOf(tx: Tx, ids: readonly (string | null)[]): Steps<Map<string, { id: string; name: string }>> {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  if (!wanted.length) return new Map();
  const rows = yield* q.all(tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, wanted)));
  return new Map(rows.map((u) => [u.id, u]));
}

/** Real items per state, and their total. */
export function* countRealItems(tx: Tx, engagementId: string): Steps<{ total: number; counts: Record<string, number> }> {
  const rows = yield* q.all(tx.select({ state: migrationItems.state, n: count() }).from(migrationItems).where(realItems(engagementId)).groupBy(migrationItems.state));
  return { total: rows.reduce((sum, r) => sum + r.n, 0), counts: Object.fromEntries(rows.map((r) => [r.state, r.n])) };
}

/** Real items whose credentials Ferry still holds. */
export function* countHeldCredentials(tx: Tx, engagementId: string): Steps<number> {
  const row = yield* q.get(tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId, isNotNull(migrationItems.credentialsCipher))));
  return row?.n ?? 0;
}

/** The status of a bulk run still queued, running, paused or stopped, or null. */
export function* activeBulkRunStatus(tx: Tx, engagementId: string): Steps<string | null> {
  const run = yield* q.get(
    tx
      .select({ status: migrationRuns.status })
      .from(migrationRuns)
      .where(and(eq(migrationRuns.engagementId, engagementId), eq(migrationRuns.kind, "bulk"), inArray(migrationRuns.status, ["queued", "running", "paused", "stopped"]))),
  );
  return run?.status ?? null;
}

/** What the report reads of an item (never its credentials). */
const reportColumns = {
  id: migrationItems.id,
  position: migrationItems.position,
  sourceRef: migrationItems.sourceRef,
  name: migrationItems.name,
  serviceName: migrationItems.serviceName,
  externalRef: migrationItems.externalRef,
  state: migrationItems.state,
  companyId: migrationItems.companyId,
  connectionId: migrationItems.connectionId,
  attempts: migrationItems.attempts,
  // Every request sent for the company, in every run: the service calls stored with their retries.
  // (Spelled out: inside the subquery an unqualified "id" would be the service call's.)
  // (A number on both: PostgreSQL's sum of integers is a bigint, which node-postgres reads as a string.)
  attemptsInAll: sql<number>`(select coalesce(sum(calls.attempts), 0) from ${serviceCalls} calls where calls.item_id = ${sql.raw('"migration_items"."id"')})`.mapWith(Number),
  lastError: migrationItems.lastError,
  outcomeReason: migrationItems.outcomeReason,
  checks: migrationItems.checks,
  oldCounts: migrationItems.oldCounts,
  linkUrl: migrationItems.linkUrl,
  reconnectedAt: migrationItems.reconnectedAt,
  droppedAt: migrationItems.droppedAt,
};
export type ReportItem = {
  id: string;
  position: number;
  sourceRef: string;
  name: string;
  /** Null on items stored before the name sent was recorded (server/platforms: serviceNameOf). */
  serviceName: string | null;
  externalRef: string | null;
  state: MigrationItemState;
  companyId: string | null;
  connectionId: string | null;
  /** Failed attempts in a row (a good answer starts the count again), and every attempt made for it. */
  attempts: number;
  attemptsInAll: number;
  lastError: unknown;
  outcomeReason: string | null;
  linkUrl: string | null;
  reconnectedAt: Date | null;
  droppedAt: Date | null;
  checks: unknown;
  /** The old app's record counts per data type, from the token file (null when it gives none). */
  oldCounts: Record<string, number> | null;
};

/** One page of the report's items in file order, optionally of one state or matching a search. */
export function* pageOfReportItems(
  tx: Tx,
  filter: { engagementId: string; state?: MigrationItemState; search?: string; page: number; pageSize: number },
): Steps<{ rows: ReportItem[]; total: number }> {
  const search = filter.search?.trim();
  let match: SQL | undefined;
  if (search) {
    // lower() on both sides (by the same database's function): SQLite's like ignores ASCII case, PostgreSQL's does not.
    const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const like = (column: AnyColumn) => sql`lower(${column}) like lower(${pattern}) escape '\\'`;
    match = or(like(migrationItems.name), like(migrationItems.serviceName), like(migrationItems.externalRef), like(migrationItems.companyId), like(migrationItems.connectionId));
  }
  const where = realItems(filter.engagementId, filter.state ? eq(migrationItems.state, filter.state) : undefined, match);
  const counted = yield* q.get(tx.select({ n: count() }).from(migrationItems).where(where));
  const rows = yield* q.all(
    tx
      .select(reportColumns)
      .from(migrationItems)
      .where(where)
      .orderBy(asc(migrationItems.position), asc(migrationItems.id))
      .limit(filter.pageSize)
      .offset((filter.page - 1) * filter.pageSize),
  );
  return { rows: rows as ReportItem[], total: counted?.n ?? 0 };
}

/**
 * The report's items after a (position, id) key, in file order: the whole report read in chunks,
 * each its own query. `after` null: from the start.
 */
export function* reportItemsAfter(tx: Tx, engagementId: string, after: { position: number; id: string } | null, limit: number): Steps<ReportItem[]> {
  const next = after
    ? or(gt(migrationItems.position, after.position), and(eq(migrationItems.position, after.position), gt(migrationItems.id, after.id)))
    : undefined;
  const rows = yield* q.all(tx.select(reportColumns).from(migrationItems).where(realItems(engagementId, next)).orderBy(asc(migrationItems.position), asc(migrationItems.id)).limit(limit));
  return rows as ReportItem[];
}

/**
 * Deletes every credential ciphertext of the engagement's items (real and rehearsal alike: a
 * rehearsal's simulated tokens are secrets too). With secure_delete on (db/client.ts) the bytes
 * are overwritten, not only unlinked. Returns how many of each were purged. Each purge write is one
 * statement that only takes rows still holding a ciphertext: two purges at once (the worker's and
 * an acknowledgement) count each secret once, the second finding it gone.
 */
export function* purgeItemCredentials(tx: Tx, engagementId: string, at: Date): Steps<{ items: number; rehearsalItems: number }> {
  const purged = yield* q.all(
    tx
      .update(migrationItems)
      .set({ credentialsCipher: null, credentialsPurgedAt: at, updatedAt: at })
      .where(and(eq(migrationItems.engagementId, engagementId), isNotNull(migrationItems.credentialsCipher)))
      .returning({ rehearsalRunId: migrationItems.rehearsalRunId }),
  );
  const rehearsalItems = purged.filter((p) => p.rehearsalRunId !== null).length;
  return { items: purged.length - rehearsalItems, rehearsalItems };
}

/** Deletes the OAuth client secret of every submission of the engagement (current and replaced). */
export function* purgeClientSecrets(tx: Tx, engagementId: string, at: Date): Steps<number> {
  const purged = yield* q.all(
    tx
      .update(intakeSubmissions)
      .set({ clientSecretCipher: null, credentialsPurgedAt: at })
      .where(and(eq(intakeSubmissions.engagementId, engagementId), isNotNull(intakeSubmissions.clientSecretCipher)))
      .returning({ id: intakeSubmissions.id }),
  );
  return purged.length;
}

/** Deletes the API keys of the sandbox clients the engagement's rehearsals made (simulated accounts, still keys). */
export function* purgeRehearsalKeys(tx: Tx, engagementId: string): Steps<number> {
  const purged = yield* q.all(
    tx
      .update(migrationRuns)
      .set({ sandboxApiKeyCipher: null })
      .where(and(eq(migrationRuns.engagementId, engagementId), isNotNull(migrationRuns.sandboxApiKeyCipher)))
      .returning({ id: migrationRuns.id }),
  );
  return purged.length;
}

/**
 * Deletes the fresh tokens still held in the engagement's supplementary files (files awaiting
 * review, and rows of accepted ones whose retry has not ended). Returns how many rows held some.
 */
export function* purgeSupplementaryRows(tx: Tx, engagementId: string, at: Date): Steps<number> {
  const purged = yield* q.all(
    tx
    .update(supplementaryRows)
    .set({ credentialsCipher: null, credentialsPurgedAt: at })
    .where(
      and(
        isNotNull(supplementaryRows.credentialsCipher),
        inArray(supplementaryRows.fileId, tx.select({ id: supplementaryFiles.id }).from(supplementaryFiles).where(eq(supplementaryFiles.engagementId, engagementId))),
      ),
    )
    .returning({ id: supplementaryRows.id }),
  );
  return purged.length;
}

/** True while any item, submission, supplementary row or rehearsal run of the engagement still holds a ciphertext. */
const holdsSecrets = sql`(exists (select 1 from ${migrationItems} where ${migrationItems.engagementId} = ${engagements.id} and ${migrationItems.credentialsCipher} is not null)
  or exists (select 1 from ${intakeSubmissions} where ${intakeSubmissions.engagementId} = ${engagements.id} and ${intakeSubmissions.clientSecretCipher} is not null)
  or exists (select 1 from ${supplementaryRows} join ${supplementaryFiles} on ${supplementaryFiles.id} = ${supplementaryRows.fileId}
    where ${supplementaryFiles.engagementId} = ${engagements.id} and ${supplementaryRows.credentialsCipher} is not null)
  or exists (select 1 from ${migrationRuns} where ${migrationRuns.engagementId} = ${engagements.id} and ${migrationRuns.sandboxApiKeyCipher} is not null))`;

/**
 * Locks the engagement's row until the transaction ends (FOR UPDATE on PostgreSQL), so purges of
 * it queue: the next one checks what is due only after the one before has committed. Without it,
 * at read committed, two purges both see the secrets still there and both count the engagement.
 */
export function* lockEngagementForPurge(tx: Tx, engagementId: string): Steps<void> {
  yield* q.get(forUpdate(tx.select({ id: engagements.id }).from(engagements).where(eq(engagements.id, engagementId))));
}

/**
 * Engagements whose credentials are due for the automatic purge: still holding a secret, and
 * either handed over (the report produced) or cancelled at or before the cut-off. A cancelled
 * engagement from before the status_changed_at column counts from its last change.
 */
export function* engagementsDueForPurge(
  tx: Tx,
  cutoff: Date,
  /** Only this engagement (to check again inside the purge's transaction). */
  only?: string,
): Steps<{ engagementId: string; organizationId: string; trigger: PurgeTrigger }[]> {
  const one = only ? eq(engagements.id, only) : undefined;
  const handedOver = (
    yield* q.all(
      tx
        .select({ engagementId: engagements.id, organizationId: engagements.organizationId })
        .from(handovers)
        .innerJoin(engagements, eq(engagements.id, handovers.engagementId))
        .where(and(one, lte(handovers.confirmedAt, cutoff), holdsSecrets)),
    )
  ).map((r) => ({ ...r, trigger: "after_handover" as const }));
  const seen = new Set(handedOver.map((r) => r.engagementId));
  // Compared column by column (not as one coalesce), so each side keeps its column's timestamp encoding on either database.
  const cancelledBy = or(lte(engagements.statusChangedAt, cutoff), and(isNull(engagements.statusChangedAt), lte(engagements.updatedAt, cutoff)));
  const cancelled = (
    yield* q.all(
      tx
        .select({ engagementId: engagements.id, organizationId: engagements.organizationId })
        .from(engagements)
        .where(and(one, eq(engagements.status, "cancelled"), cancelledBy, holdsSecrets)),
    )
  )
    .filter((r) => !seen.has(r.engagementId))
    .map((r) => ({ ...r, trigger: "after_cancellation" as const }));
  return [...handedOver, ...cancelled];
}

/**
 * Who hears that the report is ready: the organisation's active customer users and the contacts
 * named in the engagement's accepted submission, each address once.
 */
export function* customerRecipients(tx: Tx, engagementId: string, organizationId: string): Steps<{ name: string; email: string }[]> {
  const people = yield* q.all(
    tx
      .select({ name: users.name, email: users.email })
      .from(users)
      .where(and(eq(users.organizationId, organizationId), eq(users.role, "customer"), eq(users.active, true))),
  );
  const contacts = (
    yield* q.all(
      tx
        .select({ contacts: intakeSubmissions.contacts })
        .from(intakeSubmissions)
        .where(and(eq(intakeSubmissions.engagementId, engagementId), eq(intakeSubmissions.status, "accepted"))),
    )
  ).flatMap((s) => s.contacts);
  const byEmail = new Map<string, { name: string; email: string }>();
  for (const p of [...people, ...contacts]) {
    const key = p.email.trim().toLowerCase();
    if (key && !byEmail.has(key)) byEmail.set(key, { name: p.name, email: p.email.trim() });
  }
  return [...byEmail.values()];
}

/** The engagement's owner, who hears that the report was acknowledged. */
export function* engagementOwner(tx: Tx, engagementId: string): Steps<{ name: string; email: string } | undefined> {
  return yield* q.get(tx.select({ name: users.name, email: users.email }).from(engagements).innerJoin(users, eq(users.id, engagements.ownerId)).where(eq(engagements.id, engagementId)));
}
