/**
 * Where the shared rate budget lives (budget-rules.ts says what it shares, shared-budget.ts how a
 * pacer uses it): the members' rows and the daily-quota counters in Ferry's database. A member
 * touches the database only when it joins, heartbeats (every few seconds), takes a block of the
 * quota (a few times a minute) and leaves, never per request.
 *
 * The methods return promises so the same interface fits an asynchronous database; on SQLite each
 * is one synchronous transaction (better-sqlite3's never awaits). The statements are plain drizzle
 * and portable SQL: a block is taken by `UPDATE … SET granted = granted + :n WHERE granted + :n <=
 * quota`, which holds under concurrent takers on any database, and nothing relies on `MIN`/`MAX`
 * scalar functions or an upsert's update clause.
 */
import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
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

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

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
function handBack(tx: Tx, params: { targetId: string; period: string; n: number; now: Date }): void {
  const { targetId, period, n, now } = params;
  if (n <= 0) return;
  const key = and(eq(rateBudgetQuotas.targetId, targetId), eq(rateBudgetQuotas.period, period));
  const done = tx
    .update(rateBudgetQuotas)
    .set({ granted: sql`${rateBudgetQuotas.granted} - ${n}`, updatedAt: now })
    .where(and(key, gte(rateBudgetQuotas.granted, n)))
    .run();
  if (done.changes === 0) tx.update(rateBudgetQuotas).set({ granted: 0, updatedAt: now }).where(and(key, lt(rateBudgetQuotas.granted, n))).run();
}

/** The counter row of a period, made when the first member asks for it. */
function ensureCounter(tx: Tx, params: { targetId: string; counter: QuotaCounter; now: Date }): void {
  const { targetId, counter, now } = params;
  tx.insert(rateBudgetQuotas)
    .values({ targetId, period: counter.period, quota: counter.quota, granted: 0, resetsAt: counter.resetsAt, updatedAt: now })
    .onConflictDoNothing()
    .run();
}

/** The budget store on Ferry's database (see the module comment). */
export function createBudgetStore(db: Db, options: { staleMs?: number } = {}): BudgetStore {
  const staleMs = options.staleMs ?? STALE_MS;

  return {
    async join({ id, targetId, machineId, sharesWindow, now }) {
      db.insert(rateBudgetMembers).values({ id, targetId, machineId, sharesWindow, joinedAt: now, heartbeatAt: now }).run();
    },

    async heartbeat({ id, targetId, now, quota, serviceUsed }) {
      return db.transaction((tx) => {
        const renewed = tx.update(rateBudgetMembers).set({ heartbeatAt: now }).where(eq(rateBudgetMembers.id, id)).returning({ id: rateBudgetMembers.id }).get();
        // The report counts against the blocks of its own period only (none taken yet in a new one: nothing to count against).
        if (quota) {
          tx.update(rateBudgetMembers)
            .set({ quotaUsed: quota.used, quotaAhead: quota.ahead })
            .where(and(eq(rateBudgetMembers.id, id), eq(rateBudgetMembers.quotaPeriod, quota.period)))
            .run();
        }

        // The target's dead members: their shares go to the others, their unsent blocks back to the counter.
        const dead = tx
          .select()
          .from(rateBudgetMembers)
          .where(and(eq(rateBudgetMembers.targetId, targetId), lt(rateBudgetMembers.heartbeatAt, new Date(now.getTime() - staleMs))))
          .all();
        for (const row of dead) {
          const gone = tx
            .delete(rateBudgetMembers)
            .where(and(eq(rateBudgetMembers.id, row.id), eq(rateBudgetMembers.heartbeatAt, row.heartbeatAt)))
            .run();
          if (gone.changes && row.quotaPeriod) handBack(tx, { targetId, period: row.quotaPeriod, n: reclaimable(row), now });
        }

        if (serviceUsed) {
          // Requests the service counted that no member was granted (another client of the account, a test): they are spent too.
          ensureCounter(tx, { targetId, counter: serviceUsed, now });
          tx.update(rateBudgetQuotas)
            .set({ granted: serviceUsed.used, updatedAt: now })
            .where(and(eq(rateBudgetQuotas.targetId, targetId), eq(rateBudgetQuotas.period, serviceUsed.period), lt(rateBudgetQuotas.granted, serviceUsed.used)))
            .run();
        }
        // Counters of periods that ended a day ago or more are of no use to anyone.
        tx.delete(rateBudgetQuotas)
          .where(and(eq(rateBudgetQuotas.targetId, targetId), lt(rateBudgetQuotas.resetsAt, new Date(now.getTime() - 86_400_000))))
          .run();

        const members = tx
          .select()
          .from(rateBudgetMembers)
          .where(eq(rateBudgetMembers.targetId, targetId))
          .all()
          .map(toMember)
          .filter((m) => isLive(m, now.getTime(), staleMs));
        return { alive: !!renewed, members };
      });
    },

    async takeBlock({ id, targetId, counter, wanted, used, ratePerSecond, now }) {
      return db.transaction((tx) => {
        const me = tx.select().from(rateBudgetMembers).where(eq(rateBudgetMembers.id, id)).get();
        // A member found dead holds nothing: it joins again before it takes any more.
        if (!me) return { granted: 0, taken: 0, ahead: 0 };
        const samePeriod = me.quotaPeriod === counter.period;
        const takenBefore = samePeriod ? me.quotaTaken : 0;

        ensureCounter(tx, { targetId, counter, now });
        const key = and(eq(rateBudgetQuotas.targetId, targetId), eq(rateBudgetQuotas.period, counter.period));
        // An admin may have changed the target's known quota since the counter was made.
        tx.update(rateBudgetQuotas)
          .set({ quota: counter.quota })
          .where(and(key, sql`${rateBudgetQuotas.quota} <> ${counter.quota}`))
          .run();
        const row = tx.select().from(rateBudgetQuotas).where(key).get();
        const members = tx
          .select({ heartbeatAt: rateBudgetMembers.heartbeatAt })
          .from(rateBudgetMembers)
          .where(eq(rateBudgetMembers.targetId, targetId))
          .all()
          .filter((m) => isLive({ heartbeatAt: m.heartbeatAt.getTime() }, now.getTime(), staleMs)).length;
        let granted = row ? blockGranted({ wanted, left: row.quota - row.granted, members }) : 0;
        if (granted > 0) {
          // The conditional update is what keeps the counter within the quota, whoever takes at once.
          const took = tx
            .update(rateBudgetQuotas)
            .set({ granted: sql`${rateBudgetQuotas.granted} + ${granted}`, updatedAt: now })
            .where(and(key, sql`${rateBudgetQuotas.granted} + ${granted} <= ${rateBudgetQuotas.quota}`))
            .run();
          if (took.changes === 0) granted = 0;
        }
        const taken = takenBefore + granted;
        const ahead = aheadOf({ inHand: taken - used, ratePerSecond });
        tx.update(rateBudgetMembers)
          // Not a heartbeat: the members' share rule reads a heartbeat as "has read the members since".
          .set({ quotaPeriod: counter.period, quotaTaken: taken, quotaUsed: used, quotaAhead: ahead })
          .where(eq(rateBudgetMembers.id, id))
          .run();
        return { granted, taken, ahead };
      });
    },

    async leave({ id, targetId, quota }) {
      db.transaction((tx) => {
        const gone = tx.delete(rateBudgetMembers).where(eq(rateBudgetMembers.id, id)).run();
        // Only a member still counted hands back: one found dead had its blocks handed back already.
        if (gone.changes && quota) handBack(tx, { targetId, period: quota.period, n: unused(quota), now: new Date() });
      });
    },
  };
}
