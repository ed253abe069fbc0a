/**
 * The one module of the watch that touches drizzle: an engagement's watch row (claimed under a
 * lease, as runs are), the companies it looks at, and what a check changes on them. Transaction
 * steps (db/database.ts): callers `yield*` them inside their transactions.
 */
import { and, count, eq, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { engagements, handovers, migrationItems, watches } from "@/db/schema";
import { forUpdate, q, type Steps, type Tx } from "@/db/database";
import { realItems } from "@/server/items/item-scope";
import { ASKED_FOR, type WatchedItem } from "./watch-rules";

export type WatchRow = typeof watches.$inferSelect;

/** The failure kinds that mean the tokens were the problem (the company can come back by its end customer or fresh tokens). */
export const TOKEN_FAILURE_KINDS = ["reauthorization_required", "auth_error_during_sync"] as const;

/** The engagement's watch, if one was started. */
export function* findWatch(tx: Tx, engagementId: string): Steps<WatchRow | undefined> {
  return yield* q.get(tx.select().from(watches).where(eq(watches.engagementId, engagementId)));
}

/**
 * The engagement's watch with its row locked until the transaction ends (FOR UPDATE on
 * PostgreSQL): a check's writes read its lease here, so no other worker can take the watch
 * (claimWatch waits on the row) between that reading and the check's record.
 */
export function* lockWatch(tx: Tx, engagementId: string): Steps<WatchRow | undefined> {
  return yield* q.get(forUpdate(tx.select().from(watches).where(eq(watches.engagementId, engagementId))));
}

/**
 * The states of the watched companies a check is about to change, their rows locked until the
 * transaction ends: what the listing found is applied only to companies still as the check read them.
 */
export function* lockItemStates(tx: Tx, itemIds: readonly string[]): Steps<Map<string, string>> {
  if (!itemIds.length) return new Map();
  const rows = yield* q.all(forUpdate(tx.select({ id: migrationItems.id, state: migrationItems.state }).from(migrationItems).where(inArray(migrationItems.id, [...itemIds]))));
  return new Map(rows.map((r) => [r.id, r.state]));
}

/**
 * Starts the engagement's watch (or wakes an ended one) with a check due at once; the worker that
 * takes it sets its clock. A watch that runs already is only made due now when `dueNow`.
 */
export function* ensureWatch(tx: Tx, params: { engagementId: string; now: Date; dueNow?: boolean }): Steps<void> {
  const existing = yield* findWatch(tx, params.engagementId);
  if (!existing) {
    // Callers hold the engagement's row locked, so two of them cannot both find no watch; the
    // primary key would refuse the second insert anyway.
    yield* q.run(tx.insert(watches).values({ engagementId: params.engagementId, status: "watching", startedAt: params.now, nextCheckAt: ASKED_FOR }));
    return;
  }
  if (existing.status === "ended" || params.dueNow) {
    yield* q.run(tx.update(watches).set({ status: "watching", endedAt: null, nextCheckAt: ASKED_FOR }).where(eq(watches.engagementId, params.engagementId)));
  }
}

/**
 * After a bulk run ends: every real company that failed on its tokens (refused by the platform, or
 * refused during its sync) is handed to its end customer — `reconnect_pending` with its Link URL —
 * and the watch starts. Returns how many were handed over.
 */
export function* handToEndCustomers(tx: Tx, params: { engagementId: string; now: Date }): Steps<number> {
  const failedOnTokens = and(
    eq(migrationItems.state, "failed"),
    // `->>` reads a JSON column's key as text alike on SQLite (3.38 and later) and PostgreSQL's jsonb.
    inArray(sql`${migrationItems.lastError} ->> 'kind'`, [...TOKEN_FAILURE_KINDS]),
  );
  const { changes } = yield* q.run(
    tx
      .update(migrationItems)
      .set({ state: "reconnect_pending", reconnectSince: params.now, updatedAt: params.now })
      .where(realItems(params.engagementId, isNotNull(migrationItems.companyId), or(eq(migrationItems.state, "reauth_required"), failedOnTokens))),
  );
  const pending = yield* countPending(tx, params.engagementId);
  if (changes > 0 || pending > 0) yield* ensureWatch(tx, { engagementId: params.engagementId, now: params.now });
  return changes;
}

/** Real companies waiting for their end customers. */
export function* countPending(tx: Tx, engagementId: string): Steps<number> {
  const row = yield* q.get(tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId, eq(migrationItems.state, "reconnect_pending"))));
  return Number(row?.n ?? 0);
}

/** Watches that may be checked now by some worker: watching, with no live lease. */
export function* watchesToConsider(tx: Tx, now: Date): Steps<WatchRow[]> {
  return yield* q.all(
    tx
      .select()
      .from(watches)
      .where(and(eq(watches.status, "watching"), or(isNull(watches.leaseExpiresAt), lt(watches.leaseExpiresAt, now)))),
  );
}

/**
 * Takes a watch for one check, if no other worker took or checked it since it was read (its next
 * check is still the one read): one atomic statement.
 */
export function* claimWatch(tx: Tx, params: { engagementId: string; owner: string; leaseMs: number; now: Date; nextCheckAt: Date }): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(watches)
      .set({ leaseOwner: params.owner, leaseExpiresAt: new Date(params.now.getTime() + params.leaseMs) })
      .where(
        and(
          eq(watches.engagementId, params.engagementId),
          eq(watches.status, "watching"),
          eq(watches.nextCheckAt, params.nextCheckAt),
          or(isNull(watches.leaseExpiresAt), lt(watches.leaseExpiresAt, params.now)),
        ),
      ),
  );
  return changes > 0;
}

/** Keeps a watch's lease while its check goes on. */
export function* renewWatchLease(tx: Tx, params: { engagementId: string; owner: string; leaseMs: number; now: Date }): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(watches)
      .set({ leaseExpiresAt: new Date(params.now.getTime() + params.leaseMs) })
      .where(and(eq(watches.engagementId, params.engagementId), eq(watches.leaseOwner, params.owner))),
  );
  return changes > 0;
}

/** Lets a watch go without a check (e.g. the worker stops). */
export function* releaseWatch(tx: Tx, params: { engagementId: string; owner: string }): Steps<void> {
  yield* q.run(
    tx
      .update(watches)
      .set({ leaseOwner: null, leaseExpiresAt: null })
      .where(and(eq(watches.engagementId, params.engagementId), eq(watches.leaseOwner, params.owner))),
  );
}

/** What the watch reads of a company. */
const WATCHED_COLUMNS = {
  id: migrationItems.id,
  name: migrationItems.name,
  state: migrationItems.state,
  companyId: migrationItems.companyId,
  connectionId: migrationItems.connectionId,
  linkUrl: migrationItems.linkUrl,
  platformTenant: migrationItems.platformTenant,
  wrongTenant: migrationItems.wrongTenant,
};

/** The companies a check looks at: the engagement's real companies waiting for their end customers, and the migrated ones (or only those in `states`). */
export function* watchedItems(tx: Tx, engagementId: string, states: readonly WatchedItem["state"][] = WATCHED_STATES): Steps<WatchedItem[]> {
  const rows = yield* q.all(
    tx
    .select(WATCHED_COLUMNS)
    .from(migrationItems)
    .where(realItems(engagementId, isNotNull(migrationItems.companyId), inArray(migrationItems.state, [...states]))),
  );
  return rows.map((r) => ({ ...r, state: r.state as WatchedItem["state"], companyId: r.companyId! }));
}

const WATCHED_STATES: readonly WatchedItem["state"][] = ["reconnect_pending", "verified"];

/** How many companies the watch looks after, and how many of them are migrated, without loading them (a check between listings loads only the waiting ones). */
export function* watchedCounts(tx: Tx, engagementId: string): Steps<{ companies: number; verified: number }> {
  const rows = yield* q.all(
    tx
      .select({ state: migrationItems.state, n: count() })
      .from(migrationItems)
      .where(realItems(engagementId, isNotNull(migrationItems.companyId), inArray(migrationItems.state, [...WATCHED_STATES])))
      .groupBy(migrationItems.state),
  );
  return { companies: rows.reduce((sum, r) => sum + Number(r.n), 0), verified: Number(rows.find((r) => r.state === "verified")?.n ?? 0) };
}

/** What the check found, stored on the watch: counters, the next check, the failure (or none). */
export function* recordCheck(
  tx: Tx,
  params: {
    engagementId: string;
    owner: string;
    at: Date;
    nextCheckAt: Date;
    requests: number;
    drops: number;
    reconnections: number;
    failure: Record<string, unknown> | null;
    hypercareEndsAt?: Date;
  },
): Steps<boolean> {
  const w = watches;
  // The day's count starts again once a day has passed on the target's clock.
  const newDay = sql`${w.dayStartedAt} is null or ${w.dayStartedAt} <= ${sql.param(new Date(params.at.getTime() - 86_400_000), w.dayStartedAt)}`;
  const { changes } = yield* q.run(
    tx
      .update(w)
      .set({
        lastCheckAt: params.at,
        nextCheckAt: params.nextCheckAt,
        checks: sql`${w.checks} + 1`,
        requests: sql`${w.requests} + ${params.requests}`,
        requestsToday: sql`case when ${newDay} then ${params.requests} else ${w.requestsToday} + ${params.requests} end`,
        dayStartedAt: sql`case when ${newDay} then ${sql.param(params.at, w.dayStartedAt)} else ${w.dayStartedAt} end`,
        drops: sql`${w.drops} + ${params.drops}`,
        reconnections: sql`${w.reconnections} + ${params.reconnections}`,
        lastFailure: params.failure,
        leaseOwner: null,
        leaseExpiresAt: null,
        ...(params.hypercareEndsAt ? { hypercareEndsAt: params.hypercareEndsAt } : {}),
      })
      .where(and(eq(w.engagementId, params.engagementId), eq(w.leaseOwner, params.owner))),
  );
  return changes > 0;
}

/** Ends the watch (its final report is the caller's audit event and mail). */
export function* endWatch(tx: Tx, params: { engagementId: string; at: Date }): Steps<void> {
  yield* q.run(tx.update(watches).set({ status: "ended", endedAt: params.at, leaseOwner: null, leaseExpiresAt: null }).where(eq(watches.engagementId, params.engagementId)));
}

/** Support asks for a check now (the next time a worker looks). */
export function* makeWatchDue(tx: Tx, engagementId: string): Steps<boolean> {
  const { changes } = yield* q.run(tx.update(watches).set({ nextCheckAt: ASKED_FOR }).where(and(eq(watches.engagementId, engagementId), eq(watches.status, "watching"))));
  return changes > 0;
}

/** Moves the end of the hypercare days (their number changed) and makes a check due, so an end now past ends the watch at once. */
export function* moveHypercareEnd(tx: Tx, params: { engagementId: string; endsAt: Date }): Steps<void> {
  yield* q.run(
    tx
      .update(watches)
      .set({ hypercareEndsAt: params.endsAt, nextCheckAt: ASKED_FOR })
      .where(and(eq(watches.engagementId, params.engagementId), eq(watches.status, "watching"))),
  );
}

/** The company found linked again: it goes on with that connection (the bulk run syncs and verifies it). */
export function* setReconnectedConnection(tx: Tx, params: { itemId: string; connectionId: string }): Steps<void> {
  yield* q.run(tx.update(migrationItems).set({ connectionId: params.connectionId, wrongTenant: null }).where(eq(migrationItems.id, params.itemId)));
}

/** A waiting company reconnected to another platform company than the migrated one: still waiting, with why and what to do. */
export function* markWrongTenant(tx: Tx, params: { itemId: string; found: Record<string, string>; reason: string; now: Date }): Steps<void> {
  yield* q.run(
    tx
      .update(migrationItems)
      .set({ wrongTenant: params.found, outcomeReason: params.reason, updatedAt: params.now })
      .where(and(eq(migrationItems.id, params.itemId), eq(migrationItems.state, "reconnect_pending"))),
  );
}

/** A migrated company whose connection dropped: back in its end customer's hands, with the platform's words. */
export function* markDropped(tx: Tx, params: { itemId: string; reason: string; now: Date }): Steps<void> {
  yield* q.run(
    tx
      .update(migrationItems)
      .set({ state: "reconnect_pending", droppedAt: params.now, reconnectSince: params.now, outcomeReason: params.reason, updatedAt: params.now })
      .where(and(eq(migrationItems.id, params.itemId), eq(migrationItems.state, "verified"))),
  );
}

/** Link URLs the listing told. */
export function* storeLinkUrls(tx: Tx, links: readonly { itemId: string; linkUrl: string }[]): Steps<void> {
  for (const l of links) yield* q.run(tx.update(migrationItems).set({ linkUrl: l.linkUrl }).where(eq(migrationItems.id, l.itemId)));
}

/** The handover as the watch needs it (produced, and when), and the engagement's hypercare days. */
export function* hypercareOf(tx: Tx, engagementId: string): Steps<{ producedAt: Date | null; days: number }> {
  const h = yield* q.get(tx.select({ at: handovers.confirmedAt }).from(handovers).where(eq(handovers.engagementId, engagementId)));
  const e = yield* q.get(tx.select({ days: engagements.hypercareDays }).from(engagements).where(eq(engagements.id, engagementId)));
  return { producedAt: h?.at ?? null, days: e?.days ?? 7 };
}

/** Real companies per state of interest for the final report. */
export function* finalTally(tx: Tx, engagementId: string): Steps<{ verified: number; pending: number }> {
  const rows = yield* q.all(
    tx
      .select({ state: migrationItems.state, n: count() })
      .from(migrationItems)
      .where(realItems(engagementId, inArray(migrationItems.state, ["verified", "reconnect_pending"])))
      .groupBy(migrationItems.state),
  );
  return { verified: Number(rows.find((r) => r.state === "verified")?.n ?? 0), pending: Number(rows.find((r) => r.state === "reconnect_pending")?.n ?? 0) };
}

/** One watched company by its company id at the service, with the time of the latest connection event applied to it (webhooks). */
export function* watchedItemOfCompany(tx: Tx, engagementId: string, companyId: string): Steps<(WatchedItem & { connectionEventAt: Date | null }) | { state: string; id: string; connectionEventAt: Date | null } | undefined> {
  const row = yield* q.get(
    tx
      .select({ ...WATCHED_COLUMNS, connectionEventAt: migrationItems.connectionEventAt })
      .from(migrationItems)
      .where(realItems(engagementId, eq(migrationItems.companyId, companyId))),
  );
  if (!row) return undefined;
  return { ...row, companyId };
}

/** Records the service time of a connection event applied to the item: only forward (a late, older one changes nothing); true when it moved. */
export function* advanceConnectionEvent(tx: Tx, params: { itemId: string; at: Date }): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(migrationItems)
      .set({ connectionEventAt: params.at })
      .where(and(eq(migrationItems.id, params.itemId), or(isNull(migrationItems.connectionEventAt), lt(migrationItems.connectionEventAt, params.at)))),
  );
  return changes > 0;
}

/** Drops and reconnections an event found, counted on the watch as a check's are. */
export function* countEventFindings(tx: Tx, params: { engagementId: string; drops: number; reconnections: number }): Steps<void> {
  if (params.drops === 0 && params.reconnections === 0) return;
  yield* q.run(
    tx
      .update(watches)
      .set({ drops: sql`${watches.drops} + ${params.drops}`, reconnections: sql`${watches.reconnections} + ${params.reconnections}` })
      .where(eq(watches.engagementId, params.engagementId)),
  );
}
