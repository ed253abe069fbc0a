/**
 * Claims, fences and leases on a real PostgreSQL server, where transactions really run at once
 * (the PostgreSQL pass only: on SQLite one writer at a time makes every one of these trivially
 * true, and the other engine tests cover it). Each claimer is a connection of its own, as a worker
 * process on another machine would be:
 * - six claimers at once take different runs and different items, and none is taken twice;
 * - a fenced write by a worker that lost its lease changes nothing, even when it was already
 *   waiting on the row while the other worker took it over;
 * - an expired lease is taken over, and the worker that held it can no longer renew it;
 * - one worker's renewals neither wait on nor extend another's leases, and renewals of one worker
 *   never pile up behind a slow database (a renewal that is still running delays the next).
 * @module-tag postgresql
 */
import { and, eq, inArray, like } from "drizzle-orm";
import { Client } from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgres, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { databaseDialect } from "@/db/dialect";
import { auditEvents, migrationItems, migrationRuns, serviceCalls } from "@/db/schema";
import { engineTestBed } from "../../testing/test-bed";
import { finishTestRun } from "../test-run/finish-test-run";
import { claimItem, claimItems, findItem, LeaseLostError, renewItemLeases, storeCallResult, type CallRecord } from "./item-repository";
import { holdLeases } from "./leases";
import type { Transition } from "./pipeline";
import { claimRun, findRun, insertRun, renewRunLease } from "./run-repository";

const onPostgres = databaseDialect() === "postgresql";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!onPostgres)("claims and leases on PostgreSQL (connections of their own, at once)", () => {
  const bed = engineTestBed();
  const opened: Database[] = [];
  const clients: Client[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end()));
    await Promise.all(opened.splice(0).map((d) => d.close()));
    // Every run left over ends, so the next test's claims see only its own.
    await bed.t.db.update(migrationRuns).set({ status: "completed", leaseOwner: null, leaseExpiresAt: null }).where(inArray(migrationRuns.status, ["queued", "running"]));
  });

  const url = () => {
    const env = bed.t.env;
    if (!("DATABASE_URL" in env) || !env.DATABASE_URL) throw new Error("not on PostgreSQL");
    return env.DATABASE_URL;
  };
  /** A worker's own connection(s) to the test database. */
  const connection = (max = 1): Database => {
    const database = openPostgres(url(), { max });
    opened.push(database);
    return database;
  };
  /** A plain client, to hold a transaction open (another worker in the middle of its own). */
  const rawClient = async (): Promise<Client> => {
    const client = new Client({ connectionString: url() });
    await client.connect();
    clients.push(client);
    return client;
  };
  const inTx = <T>(database: Database, body: (tx: Tx) => Steps<T>) => database.transaction(body, { isolation: "read committed" });

  /** `n` queued runs of an engagement of its own (oldest first). */
  async function queuedRuns(n: number, kind: "pilot" | "bulk" = "pilot"): Promise<string[]> {
    const eng = await bed.ready([{ name: `Runs ${crypto.randomUUID().slice(0, 6)}`, records: 1 }]);
    const ids = Array.from({ length: n }, () => crypto.randomUUID());
    const start = Date.now() - 60_000;
    await inTx(bed.t.database, function* (tx) {
      for (const [i, id] of ids.entries()) {
        yield* insertRun(tx, { id, engagementId: eng.engagementId, kind, serviceTargetId: eng.serviceTargetId, itemId: eng.items[0]!.id, requestedById: bed.people.support.id, now: new Date(start + i) });
      }
    });
    return ids;
  }

  /** A bulk run holding `n` companies of an engagement of its own. */
  async function bulkRun(n: number): Promise<{ runId: string; itemIds: string[] }> {
    const eng = await bed.ready(Array.from({ length: n }, (_, i) => ({ name: `Item ${String(i).padStart(2, "0")}`, records: 1 })));
    const runId = crypto.randomUUID();
    await inTx(bed.t.database, (tx) => insertRun(tx, { id: runId, engagementId: eng.engagementId, kind: "bulk", serviceTargetId: eng.serviceTargetId, itemId: null, requestedById: bed.people.support.id, now: new Date() }));
    await bed.t.db.update(migrationItems).set({ runId }).where(eq(migrationItems.engagementId, eng.engagementId));
    return { runId, itemIds: eng.items.map((i) => i.id) };
  }

  it("six claimers at once each take a run of their own, every run is taken exactly once, and none waits on another's claim", async () => {
    const runIds = await queuedRuns(12);
    const claimers = Array.from({ length: 6 }, () => connection());
    const claim = (database: Database, owner: string) => inTx(database, (tx) => claimRun(tx, { owner, kinds: ["pilot"], leaseMs: 60_000, now: new Date() }));

    // All at once: each gets one of its own.
    const first = await Promise.all(claimers.map((c, i) => claim(c, `w${i}`)));
    expect(first.every((r) => r !== undefined)).toBe(true);
    expect(new Set(first.map((r) => r!.id)).size).toBe(6);
    // Then all at once again and again until nothing is left: every run once, none twice.
    const taken = first.map((r) => r!.id);
    for (;;) {
      const round = await Promise.all(claimers.map((c, i) => claim(c, `w${i}`)));
      const got = round.filter((r) => r !== undefined).map((r) => r.id);
      if (!got.length) break;
      taken.push(...got);
    }
    expect(taken.sort()).toEqual([...runIds].sort());
    const rows = await bed.t.db.select().from(migrationRuns).where(inArray(migrationRuns.id, runIds));
    expect(rows.every((r) => r.status === "running" && r.leaseOwner?.startsWith("w"))).toBe(true);

    // Another worker is in the middle of claiming the oldest of two new runs (its row locked): a
    // claimer takes the other at once instead of waiting for it (SKIP LOCKED).
    const [oldest, newer] = await queuedRuns(2);
    const other = await rawClient();
    await other.query("begin");
    await other.query("select id from migration_runs where id = $1 for update", [oldest]);
    const claiming = claim(claimers[0]!, "w-next");
    const answered = await Promise.race([claiming.then(() => true), sleep(1_000).then(() => false)]);
    await other.query("rollback");
    expect(answered).toBe(true);
    expect((await claiming)?.id).toBe(newer);
  });

  it("six claimers at once each take items of their own from one bulk run, every item is taken exactly once, and none waits on another's claim", async () => {
    const { runId, itemIds } = await bulkRun(24);
    const claimers = Array.from({ length: 6 }, () => connection());
    const claim = (database: Database, owner: string, limit = 3) => inTx(database, (tx) => claimItems(tx, { runId, owner, limit, leaseMs: 60_000, now: new Date() }));

    /** Who was handed each item. */
    const handedTo = new Map<string, string>();
    const round = async () => {
      const claimed = await Promise.all(claimers.map((c, i) => claim(c, `w${i}`)));
      for (const [i, items] of claimed.entries()) {
        for (const item of items) {
          expect(handedTo.get(item.id), `item ${item.id} handed out twice`).toBeUndefined();
          handedTo.set(item.id, `w${i}`);
        }
      }
      return claimed;
    };
    // All at once: each gets three of its own.
    expect((await round()).map((items) => items.length)).toEqual([3, 3, 3, 3, 3, 3]);
    while ((await round()).some((items) => items.length > 0));
    expect([...handedTo.keys()].sort()).toEqual([...itemIds].sort());
    // Each item's lease is the claimer's that was handed it.
    for (const row of await bed.t.db.select().from(migrationItems).where(eq(migrationItems.runId, runId))) expect(row.leaseOwner).toBe(handedTo.get(row.id));

    // Another worker is in the middle of claiming the first three (their rows locked): a claimer
    // takes the next three at once instead of waiting for them (SKIP LOCKED).
    await bed.t.db.update(migrationItems).set({ leaseOwner: null, leaseExpiresAt: null }).where(eq(migrationItems.runId, runId));
    const other = await rawClient();
    await other.query("begin");
    await other.query("select id from migration_items where id = any($1) for update", [itemIds.slice(0, 3)]);
    const claiming = claim(claimers[0]!, "w-next");
    const answered = await Promise.race([claiming.then(() => true), sleep(1_000).then(() => false)]);
    await other.query("rollback");
    expect(answered).toBe(true);
    expect((await claiming).map((i) => i.id).sort()).toEqual(itemIds.slice(3, 6).sort());
  });

  it("a worker that lost its item's lease stores nothing, even when its write was already waiting while another worker took the item over", async () => {
    const { runId, itemIds } = await bulkRun(1);
    const itemId = itemIds[0]!;
    const a = connection();
    const b = await rawClient();
    const claimedByA = await inTx(a, (tx) => claimItem(tx, { itemId, runId, owner: "worker-a", leaseMs: 60_000, now: new Date() }));
    expect(claimedByA).toBeDefined();

    // Worker b takes the item over (as after a's lease ran out) in a transaction still open…
    await b.query("begin");
    await b.query("update migration_items set lease_owner = 'worker-b', lease_expires_at = now() + interval '1 minute' where id = $1", [itemId]);
    // …while a, come back, stores a call's result: it waits on the row b holds.
    const now = new Date();
    const transition: Transition = { state: "company_created", companyId: "c-of-a", connectionId: null, inFlightCall: null, checks: null, attempts: 0, nextAttemptAt: null, lastError: null, outcomeReason: null, runEffect: null };
    const record: CallRecord = { at: now, operation: "createCompany", method: "POST", path: "/companies", status: 200, ok: true, errorKind: null, errorText: null, correlationId: "a", durationMs: 1, attempts: 1, detail: null };
    let settled = false;
    const stored = storeCallResult(a, { itemId, runId, owner: "worker-a", token: claimedByA!.leaseToken!, record, transition, now }).finally(() => (settled = true));
    stored.catch(() => {});
    await sleep(300);
    expect(settled).toBe(false);
    await b.query("commit");

    // Checked again on the row as b left it: the lease is b's, so a's write changes nothing.
    await expect(stored).rejects.toThrow(LeaseLostError);
    expect(await readSteps(bed.t.database, (tx) => findItem(tx, itemId))).toMatchObject({ state: "pending", companyId: null, leaseOwner: "worker-b" });
    expect(await bed.t.db.select().from(serviceCalls).where(eq(serviceCalls.itemId, itemId))).toEqual([]);
  });

  it("a worker whose run was taken over cannot end it: the run, the checklist and the audit log stay as the new owner has them", async () => {
    const [runId] = await queuedRuns(1);
    const a = connection();
    const b = connection();
    const claimed = await inTx(a, (tx) => claimRun(tx, { owner: "worker-a", kinds: ["pilot"], leaseMs: 200, now: new Date() }));
    expect(claimed?.id).toBe(runId);
    // a stalls past its lease; b takes the run over.
    await sleep(300);
    expect((await inTx(b, (tx) => claimRun(tx, { owner: "worker-b", kinds: ["pilot"], leaseMs: 60_000, now: new Date() })))?.id).toBe(runId);

    // a's renewal tells it so, and its end of the run changes nothing.
    expect(await inTx(a, (tx) => renewRunLease(tx, { runId: runId!, owner: "worker-a", token: claimed!.leaseToken!, leaseMs: 60_000, now: new Date() }))).toBe(false);
    const failure = { operation: "run", kind: "internal" as const, status: null, service: null, error: "a's late end", correlationId: null, at: new Date().toISOString() };
    expect(await finishTestRun(a, { run: claimed!, owner: "worker-a", item: null, failure })).toBeNull();
    expect(await readSteps(bed.t.database, (tx) => findRun(tx, runId!))).toMatchObject({ status: "running", leaseOwner: "worker-b", finishedAt: null });
    expect(await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, runId!), eq(auditEvents.action, "migration.test_finished")))).toEqual([]);
  });

  it("an expired lease is taken over (runs and items), and the worker that held it renews nothing after", async () => {
    const [runId] = await queuedRuns(1, "bulk");
    const eng = await bed.t.db.select({ engagementId: migrationRuns.engagementId }).from(migrationRuns).where(eq(migrationRuns.id, runId!));
    await bed.t.db.update(migrationItems).set({ runId }).where(eq(migrationItems.engagementId, eng[0]!.engagementId));
    const a = connection();
    const b = connection();
    const at = Date.now();
    const runOfA = await inTx(a, (tx) => claimRun(tx, { owner: "worker-a", kinds: ["bulk"], leaseMs: 1_000, now: new Date(at) }));
    expect(runOfA?.id).toBe(runId);
    const items = await inTx(a, (tx) => claimItems(tx, { runId: runId!, owner: "worker-a", limit: 10, leaseMs: 1_000, now: new Date(at) }));
    expect(items).toHaveLength(1);

    // Before the expiry nobody else takes them.
    expect(await inTx(b, (tx) => claimRun(tx, { owner: "worker-b", kinds: ["bulk"], leaseMs: 60_000, now: new Date(at + 500) }))).toBeUndefined();
    expect(await inTx(b, (tx) => claimItems(tx, { runId: runId!, owner: "worker-b", limit: 10, leaseMs: 60_000, now: new Date(at + 500) }))).toEqual([]);
    // After it, another worker does.
    expect((await inTx(b, (tx) => claimRun(tx, { owner: "worker-b", kinds: ["bulk"], leaseMs: 60_000, now: new Date(at + 1_001) })))?.id).toBe(runId);
    expect(await inTx(b, (tx) => claimItems(tx, { runId: runId!, owner: "worker-b", limit: 10, leaseMs: 60_000, now: new Date(at + 1_001) }))).toHaveLength(1);
    // The first worker's renewal finds nothing of its own any more.
    const renewed = await inTx(a, function* (tx) {
      const itemsHeld = yield* renewItemLeases(tx, { owner: "worker-a", tokens: items.map((i) => i.leaseToken!), runId: runId!, leaseMs: 60_000, now: new Date() });
      return { itemsHeld, run: yield* renewRunLease(tx, { runId: runId!, owner: "worker-a", token: runOfA!.leaseToken!, leaseMs: 60_000, now: new Date() }) };
    });
    expect(renewed).toEqual({ itemsHeld: 0, run: false });
  });

  it("one worker's renewals neither wait on another worker's locked rows nor extend its leases", async () => {
    const { runId, itemIds } = await bulkRun(6);
    const a = connection();
    const b = await rawClient();
    const now = new Date();
    const ofA = (await inTx(a, (tx) => claimItems(tx, { runId, owner: "worker-a", limit: 3, leaseMs: 10_000, now }))).map((i) => i.leaseToken!);
    const ofB = (await inTx(bed.t.database, (tx) => claimItems(tx, { runId, owner: "worker-b", limit: 3, leaseMs: 10_000, now }))).map((i) => i.leaseToken!);

    // b is in the middle of a transaction on its items (a store, a renewal): their rows are locked.
    await b.query("begin");
    await b.query("select id from migration_items where lease_owner = 'worker-b' for update");
    const renewing = inTx(a, (tx) => renewItemLeases(tx, { owner: "worker-a", tokens: ofA, runId, leaseMs: 60_000, now: new Date() }));
    const answered = await Promise.race([renewing.then(() => true), sleep(1_000).then(() => false)]);
    await b.query("commit");
    expect(answered).toBe(true);
    expect(await renewing).toBe(3);

    const rows = await bed.t.db.select().from(migrationItems).where(inArray(migrationItems.id, itemIds));
    const expiry = (owner: string) => rows.filter((r) => r.leaseOwner === owner).map((r) => r.leaseExpiresAt!.getTime() - now.getTime());
    expect(expiry("worker-a").every((ms) => ms > 30_000)).toBe(true);
    expect(expiry("worker-b").every((ms) => ms <= 10_000)).toBe(true);

    // Many renewals of both at once: no deadlock, no error, each keeps to its own rows.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => inTx(i % 2 ? bed.t.database : a, (tx) => renewItemLeases(tx, { owner: i % 2 ? "worker-b" : "worker-a", tokens: i % 2 ? ofB : ofA, runId, leaseMs: 60_000, now: new Date() }))),
    );
    expect(results).toEqual(results.map(() => 3));
  });

  it("renewals never pile up: while one waits on a slow database the next is not started beside it", async () => {
    const { runId } = await bulkRun(2);
    const worker = connection(10);
    const slow = await inTx(worker, (tx) => claimItems(tx, { runId, owner: "worker-slow", limit: 2, leaseMs: 400, now: new Date() }));
    const blocker = await rawClient();
    const watcher = await rawClient();
    // The database is slow for this worker: its items' rows are held by another transaction.
    await blocker.query("begin");
    await blocker.query("select id from migration_items where lease_owner = 'worker-slow' for update");

    const leases = holdLeases({ database: worker, owner: "worker-slow", leaseMs: 400, runId, log: () => {} });
    for (const item of slow) leases.holdItem(item.id, item.leaseToken!);
    // Five renewal periods (100 ms each) pass while the first renewal waits.
    await sleep(600);
    const waiting = await watcher.query<{ n: string }>(
      "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like 'update \"migration_items\" set \"lease_expires_at\"%'",
    );
    expect(Number(waiting.rows[0]!.n)).toBe(1);
    await blocker.query("commit");
    await leases.release();
    const rows = await bed.t.db.select().from(migrationItems).where(and(eq(migrationItems.runId, runId), like(migrationItems.name, "Item%")));
    expect(rows.every((r) => r.leaseOwner === null)).toBe(true);
  });
});
