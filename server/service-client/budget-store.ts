/**
 * Where the shared rate budget lives (budget-rules.ts says what it shares, shared-budget.ts how a
 * pacer uses it): the members' rows and the daily-quota counters in Ferry's database. A member
 * touches the database only when it joins, heartbeats (every few seconds), takes a block of the
 * quota (a few times a minute) and leaves, never per request.
 *
 * Each method is one read-committed transaction on the `Database` (db/database.ts), SQLite or
 * PostgreSQL, with generator bodies. A block is taken with the period's counter row locked (FOR
 * UPDATE on PostgreSQL), so takers at once queue on it and each sees what the one before left; the
 * update itself is `UPDATE … SET granted = granted + :n WHERE granted + :n <= quota`, which keeps
 * the counter within the quota even so. Nothing relies on `MIN`/`MAX` scalar functions, an upsert's
 * update clause, or anything else one of the two databases lacks.
 */
import { and, eq, gte, lt, sql } from "drizzle-orm";
import { forUpdate, q, type Database, type Steps, type Tx } from "@/db/database";
import { rateBudgetMembers, rateBudgetQuotas } from "@/db/schema";
import { aheadOf, blockGranted, isLive, reclaimable, STALE_MS, unused, type BudgetMember } from "./budget-rules";

/**
 * What a member reports of the quota blocks it holds: how many it has sent of them, and how many
 * more it may send before its next report. (What it was granted is the store's to count.)
 */
export type QuotaReport = { period: string; used: number; ahead: number };

/** A daily quota as a member knows it: its period, size and end. */
export type QuotaCounter = { period: string; quota: number; resetsAt: Date };

export type BudgetStore = {
  /** Adds a member (a pacer sending to the target from this machine). */
  join(params: { id: string; targetId: string; machineId: string; sharesWindow: boolean; now: Date }): Promise<void>;
  /**
   * Renews the member's heartbeat and stores its quota report; frees the target's dead members
   * (their blocks handed back, as budget-rules.ts allows); raises the period's counter to what the
   * service said was used, when it said more. `alive` is false when the member's row was gone (it
   * was found dead): it holds nothing any more and must join again.
   */
  heartbeat(params: {
    id: string;
    targetId: string;
    now: Date;
    quota: QuotaReport | null;
    serviceUsed?: (QuotaCounter & { used: number }) | null;
  }): Promise<{ alive: boolean; members: BudgetMember[] }>;
  /** Takes a block of the period's quota for the member (0 when the quota is spent), reporting what it has used. */
  takeBlock(params: { id: string; targetId: string; counter: QuotaCounter; wanted: number; used: number; ratePerSecond: number; now: Date }): Promise<{ granted: number; taken: number; ahead: number }>;
  /** Hands back what the member was granted and did not send, and removes it. */
  leave(params: { id: string; targetId: string; quota: { period: string; taken: number; used: number } | null }): Promise<void>;
};

const toMember = (row: typeof rateBudgetMembers.$inferSelect): BudgetMember => ({
  id: row.id,
  machineId: row.machineId,
  sharesWindow: row.sharesWindow,
  joinedAt: row.joinedAt.getTime(),
  heartbeatAt: row.heartbeatAt.getTime(),
  quotaPeriod: row.quotaPeriod,
  quotaTaken: row.quotaTaken,
  quotaUsed: row.quotaUsed,
  quotaAhead: row.quotaAhead,
});

/** Takes `n` off a period's granted requests (never below zero), in two portable statements. */
function* handBack(tx: Tx, params: { targetId: string; period: string; n: number; now: Date }): Steps<void> {
  const { targetId, period, n, now } = params;
  if (n <= 0) return;
  const key = and(eq(rateBudgetQuotas.targetId, targetId), eq(rateBudgetQuotas.period, period));
  const done = yield* q.run(
    tx
      .update(rateBudgetQuotas)
      .set({ granted: sql`${rateBudgetQuotas.granted} - ${n}`, updatedAt: now })
      .where(and(key, gte(rateBudgetQuotas.granted, n))),
  );
  if (done.changes === 0) yield* q.run(tx.update(rateBudgetQuotas).set({ granted: 0, updatedAt: now }).where(and(key, lt(rateBudgetQuotas.granted, n))));
}

/** The counter row of a period, made when the first member asks for it. */
function* ensureCounter(tx: Tx, params: { targetId: string; counter: QuotaCounter; now: Date }): Steps<void> {
  const { targetId, counter, now } = params;
  yield* q.run(
    tx
      .insert(rateBudgetQuotas)
      .values({ targetId, period: counter.period, quota: counter.quota, granted: 0, resetsAt: counter.resetsAt, updatedAt: now })
      .onConflictDoNothing(),
  );
}

const READ_COMMITTED = { isolation: "read committed" } as const;

/** The budget store on Ferry's database (see the module comment). */
export function createBudgetStore(database: Database, options: { staleMs?: number } = {}): BudgetStore {
  const staleMs = options.staleMs ?? STALE_MS;

  return {
    async join({ id, targetId, machineId, sharesWindow, now }) {
      await database.transaction(function* (tx) {
        yield* q.run(tx.insert(rateBudgetMembers).values({ id, targetId, machineId, sharesWindow, joinedAt: now, heartbeatAt: now }));
      }, READ_COMMITTED);
    },

    async heartbeat({ id, targetId, now, quota, serviceUsed }) {
      return database.transaction(function* (tx) {
        const renewed = yield* q.get(tx.update(rateBudgetMembers).set({ heartbeatAt: now }).where(eq(rateBudgetMembers.id, id)).returning({ id: rateBudgetMembers.id }));
        // The report counts against the blocks of its own period only (none taken yet in a new one: nothing to count against).
        if (quota) {
          yield* q.run(
            tx
              .update(rateBudgetMembers)
              .set({ quotaUsed: quota.used, quotaAhead: quota.ahead })
              .where(and(eq(rateBudgetMembers.id, id), eq(rateBudgetMembers.quotaPeriod, quota.period))),
          );
        }

        // The target's dead members: their shares go to the others, their unsent blocks back to the counter.
        const dead = yield* q.all(
          tx
            .select()
            .from(rateBudgetMembers)
            .where(and(eq(rateBudgetMembers.targetId, targetId), lt(rateBudgetMembers.heartbeatAt, new Date(now.getTime() - staleMs)))),
        );
        for (const row of dead) {
          // Deleted only as it was read (a heartbeat since makes it live again); of two members
          // freeing it at once, one deletes it and hands its blocks back, the other finds it gone.
          const gone = yield* q.run(tx.delete(rateBudgetMembers).where(and(eq(rateBudgetMembers.id, row.id), eq(rateBudgetMembers.heartbeatAt, row.heartbeatAt))));
          if (gone.changes && row.quotaPeriod) yield* handBack(tx, { targetId, period: row.quotaPeriod, n: reclaimable(row), now });
        }

        if (serviceUsed) {
          // Requests the service counted that no member was granted (another client of the account, a test): they are spent too.
          yield* ensureCounter(tx, { targetId, counter: serviceUsed, now });
          yield* q.run(
            tx
              .update(rateBudgetQuotas)
              .set({ granted: serviceUsed.used, updatedAt: now })
              .where(and(eq(rateBudgetQuotas.targetId, targetId), eq(rateBudgetQuotas.period, serviceUsed.period), lt(rateBudgetQuotas.granted, serviceUsed.used))),
          );
        }
        // Counters of periods that ended a day ago or more are of no use to anyone.
        yield* q.run(tx.delete(rateBudgetQuotas).where(and(eq(rateBudgetQuotas.targetId, targetId), lt(rateBudgetQuotas.resetsAt, new Date(now.getTime() - 86_400_000)))));

        const members = (yield* q.all(tx.select().from(rateBudgetMembers).where(eq(rateBudgetMembers.targetId, targetId))))
          .map(toMember)
          .filter((m) => isLive(m, now.getTime(), staleMs));
        return { alive: !!renewed, members };
      }, READ_COMMITTED);
    },

    async takeBlock({ id, targetId, counter, wanted, used, ratePerSecond, now }) {
      return database.transaction(function* (tx) {
        const me = yield* q.get(forUpdate(tx.select().from(rateBudgetMembers).where(eq(rateBudgetMembers.id, id))));
        // A member found dead holds nothing: it joins again before it takes any more.
        if (!me) return { granted: 0, taken: 0, ahead: 0 };
        const samePeriod = me.quotaPeriod === counter.period;
        const takenBefore = samePeriod ? me.quotaTaken : 0;

        yield* ensureCounter(tx, { targetId, counter, now });
        const key = and(eq(rateBudgetQuotas.targetId, targetId), eq(rateBudgetQuotas.period, counter.period));
        // The counter's row locked from here to the commit: takers at once queue on it, and each
        // block is sized on what is really left (not on what was left before another's take).
        const row = yield* q.get(forUpdate(tx.select().from(rateBudgetQuotas).where(key)));
        // An admin may have changed the target's known quota since the counter was made.
        if (row && row.quota !== counter.quota) yield* q.run(tx.update(rateBudgetQuotas).set({ quota: counter.quota }).where(key));
        const members = (yield* q.all(tx.select({ heartbeatAt: rateBudgetMembers.heartbeatAt }).from(rateBudgetMembers).where(eq(rateBudgetMembers.targetId, targetId)))).filter((m) =>
          isLive({ heartbeatAt: m.heartbeatAt.getTime() }, now.getTime(), staleMs),
        ).length;
        let granted = row ? blockGranted({ wanted, left: counter.quota - row.granted, members }) : 0;
        if (granted > 0) {
          // The conditional update is what keeps the counter within the quota, whoever takes at once.
          const took = yield* q.run(
            tx
              .update(rateBudgetQuotas)
              .set({ granted: sql`${rateBudgetQuotas.granted} + ${granted}`, updatedAt: now })
              .where(and(key, sql`${rateBudgetQuotas.granted} + ${granted} <= ${rateBudgetQuotas.quota}`)),
          );
          if (took.changes === 0) granted = 0;
        }
        const taken = takenBefore + granted;
        const ahead = aheadOf({ inHand: taken - used, ratePerSecond });
        yield* q.run(
          tx
            .update(rateBudgetMembers)
            // Not a heartbeat: the members' share rule reads a heartbeat as "has read the members since".
            .set({ quotaPeriod: counter.period, quotaTaken: taken, quotaUsed: used, quotaAhead: ahead })
            .where(eq(rateBudgetMembers.id, id)),
        );
        return { granted, taken, ahead };
      }, READ_COMMITTED);
    },

    async leave({ id, targetId, quota }) {
      const now = new Date();
      await database.transaction(function* (tx) {
        const gone = yield* q.run(tx.delete(rateBudgetMembers).where(eq(rateBudgetMembers.id, id)));
        // Only a member still counted hands back: one found dead had its blocks handed back already.
        if (gone.changes && quota) yield* handBack(tx, { targetId, period: quota.period, n: unused(quota), now });
      }, READ_COMMITTED);
    },
  };
}
