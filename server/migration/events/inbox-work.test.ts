/**
 * Ferry acting on the service's webhooks, with a real worker, the real sandbox sending signed
 * deliveries to the receiver over HTTP, and a real database: the consumer registered at the bulk
 * run's start; a drop and a reconnection seen by the watch within seconds of the event (no daily
 * listing due), duplicates and out-of-order deliveries never moving a company back; the consumer
 * removed when the watch ends. Then the inbox's own guarantees: a worker killed between the inbox
 * and processing (the row claimed, or its effect written) still counts the event once; and the
 * rate-limit pause of every run on the target, shown on the run, until the reset.
 *
 * Runs on both databases: the inbox's claims and the watch's writes.
 * @module-tag both-databases
 */
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, migrationItems, migrationRuns, targetEvents, watches, webhookInbox } from "@/db/schema";
import { passSingleCompanyTest } from "@/server/testing/engagement-flows";
import { startEventsEndpoint, type EventsEndpoint } from "@/server/testing/events-endpoint";
import { engineTestBed } from "@/server/testing/test-bed";
import { TEST_KEY_RING, TEST_NOTIFY } from "@/server/testing/test-db";
import { until } from "@/server/testing/until";
import { claimInbox, insertDelivery } from "@/server/targets/events/inbox-repository";
import { startBulkRun } from "../bulk/bulk-controls";
import { confirmHandover } from "../handover/confirm-handover";
import { DEFAULT_PIPELINE_POLICY, type PipelinePolicy } from "../engine/pipeline";
import { createMigrationWorker, type Worker } from "../migration-worker";
import { setHypercareDays } from "../watch/last-mile";
import { reactToConnectionEvent } from "../watch/watch-events";
import { createInboxProcessor } from "./inbox-work";

const FAST: PipelinePolicy = { ...DEFAULT_PIPELINE_POLICY, pollInitialMs: 100, pollMaxMs: 500, retryBaseMs: 50, retryMaxMs: 200 };
const bed = engineTestBed();
const running: Worker[] = [];
let endpoint: EventsEndpoint;
const notify = () => ({ appUrl: "http://ferry.test", mail: { from: "Ferry <ferry@test>", log: () => {}, keyRing: TEST_KEY_RING } });

beforeAll(async () => {
  endpoint = await startEventsEndpoint({ database: bed.t.database, ring: TEST_KEY_RING });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
  await bed.sb.control.setFaults({ webhookDuplicates: false, webhookOutOfOrder: false, webhookDelaySeconds: 0 });
});
afterAll(async () => {
  await endpoint.close();
});

const worker = (options: { inbox?: boolean; policy?: PipelinePolicy } = {}) => {
  const w = createMigrationWorker({
    database: bed.t.database,
    ring: TEST_KEY_RING,
    leaseMs: 2_000,
    idleMs: 50,
    policy: options.policy ?? FAST,
    watchEveryMs: 100,
    inboxEveryMs: 50,
    ...(options.inbox === false ? { inbox: false } : {}),
    bulk: { publicUrl: endpoint.baseUrl },
    notify: notify(),
    sandbox: { url: bed.sb.url, adminToken: bed.sb.adminToken },
  });
  running.push(w);
  return w;
};

const item = async (id: string) => (await bed.t.db.select().from(migrationItems).where(eq(migrationItems.id, id)).limit(1))[0]!;
const watch = async (engagementId: string) => (await bed.t.db.select().from(watches).where(eq(watches.engagementId, engagementId)).limit(1))[0];
const run = async (runId: string) => (await bed.t.db.select().from(migrationRuns).where(eq(migrationRuns.id, runId)).limit(1))[0]!;
const actions = (engagementId: string, action: string) => bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.engagementId, engagementId), eq(auditEvents.action, action)));
const consumersAt = async (targetId: string) => (await bed.sb.control.webhookConsumers()).results.filter((c) => c.url === `${endpoint.baseUrl}/api/targets/${targetId}/events`);

/** An engagement migrated by a bulk run (its consumer registered at the start), handed over: its hypercare watch running. */
async function migratedAndWatched(names: string[]) {
  const eng = await bed.ready(names.map((name) => ({ name, records: 3 })));
  await passSingleCompanyTest(bed.t.db, bed.people.support, eng.engagementId);
  const { runId } = await startBulkRun(bed.t.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
  worker().start();
  await until("the bulk run", () => run(runId), (r) => r.status === "completed", 60_000);
  await setHypercareDays(bed.t.database, bed.people.support, { engagementId: eng.engagementId, days: 3 });
  await confirmHandover(bed.t.database, bed.people.support, { ...notify(), purgeAfterDays: 14 }, { engagementId: eng.engagementId });
  await until("hypercare begins", async () => (await watch(eng.engagementId))!, (x) => x?.hypercareEndsAt != null, 30_000);
  const items = await Promise.all(eng.items.map((i) => item(i.id)));
  return { eng, runId, items };
}

describe("the watch on webhooks", () => {
  it("sees a drop and a reconnection within seconds of the event, never moves a company back on a late or repeated one, and removes its consumer when the watch ends", async () => {
    const { eng, runId, items } = await migratedAndWatched(["Alder Books", "Birch Bakery", "Cedar Cycles"]);
    const [alder, birch] = items;
    expect((await consumersAt(eng.serviceTargetId)).map((c) => c.companyTags ?? []).sort()).toEqual([[], [`ferryEngagement:${eng.engagementId}`]]);
    const checks = (await watch(eng.engagementId))!.checks;

    // Alder drops (every delivery twice): the event, not a listing, hands it back to its end customer at once.
    await bed.sb.control.setFaults({ webhookDuplicates: true });
    const dropAt = Date.now();
    await bed.sb.control.deauthorize(alder!.companyId!, alder!.connectionId!, { reason: "revoked" });
    const dropped = await until("Alder dropped", () => item(alder!.id), (i) => i.state === "reconnect_pending", 20_000);
    expect(Date.now() - dropAt).toBeLessThan(60_000);
    expect(dropped.outcomeReason).toMatch(/revoked/i);
    expect((await watch(eng.engagementId))!.checks).toBe(checks);

    // Birch drops and is linked again at once; the two arrive newest first: the late drop does not undo the reconnection.
    await bed.sb.control.setFaults({ webhookDuplicates: true, webhookOutOfOrder: true, webhookDelaySeconds: 5 });
    await bed.sb.control.deauthorize(birch!.companyId!, birch!.connectionId!, { reason: "revoked" });
    await bed.sb.control.link(birch!.companyId!, birch!.connectionId!);
    await bed.sb.control.advanceClock({ seconds: 6 });
    const birchEvents = async () => (await bed.t.db.select().from(webhookInbox).where(eq(webhookInbox.targetId, eng.serviceTargetId))).filter((r) => JSON.stringify(r.payload).includes(birch!.companyId!));
    await until("Birch's events processed", birchEvents, (rows) => rows.length === 2 && rows.every((r) => r.processedAt !== null), 20_000);
    expect((await item(birch!.id)).state).toBe("verified");

    // Alder's end customer links again: the reconnection event carries it back to verified through the run.
    await bed.sb.control.setFaults({ webhookOutOfOrder: false, webhookDelaySeconds: 0 });
    await bed.sb.control.link(alder!.companyId!, alder!.connectionId!);
    await until("Alder verified again", () => item(alder!.id), (i) => i.state === "verified", 30_000);
    await until("the run again", () => run(runId), (r) => r.status === "completed", 30_000);
    const counted = (await watch(eng.engagementId))!;
    expect([counted.drops, counted.reconnections]).toEqual([1, 1]);
    expect(await actions(eng.engagementId, "migration_item.dropped")).toHaveLength(1);

    // The days pass: the watch ends and its consumers go.
    await bed.sb.control.advanceClock({ days: 4 });
    await until("the watch ends", async () => (await watch(eng.engagementId))!, (x) => x.status === "ended", 30_000);
    await until("the consumers removed", () => consumersAt(eng.serviceTargetId), (c) => c.length === 0, 10_000);
  }, 180_000);

  it("counts an event once when the worker dies between the inbox and processing, at either point", async () => {
    const { eng, items } = await migratedAndWatched(["Dune Dental", "Elm Energy"]);
    for (const w of running.splice(0)) await w.stop();
    // Whatever the worker left unprocessed (the run's own connection events) first: then only the two drops are due.
    await until("the inbox drained", () => createInboxProcessor({ database: bed.t.database, ring: TEST_KEY_RING, notify: null, log: () => {}, client: {} }).processDue(), (n) => n === 0, 10_000);
    const [dune, elm] = items;
    const processor = createInboxProcessor({ database: bed.t.database, ring: TEST_KEY_RING, notify: null, log: () => {}, client: {} });
    // The drops happen at the service; their events arrive while the worker is down and wait in the inbox.
    const received = async (company: typeof dune) => {
      await bed.sb.control.deauthorize(company!.companyId!, company!.connectionId!, { reason: "revoked" });
      const rows = await until(
        "the drop's event in the inbox",
        async () => (await bed.t.db.select().from(webhookInbox).where(and(eq(webhookInbox.targetId, eng.serviceTargetId), eq(webhookInbox.eventType, "connection.disconnected")))).filter((r) => JSON.stringify(r.payload).includes(company!.companyId!)),
        (r) => r.length === 1,
        15_000,
      );
      expect(rows[0]!.processedAt).toBeNull();
      return { messageId: rows[0]!.messageId, generatedAt: rows[0]!.generatedAt! };
    };
    const duneEvent = await received(dune);
    const elmEvent = await received(elm);
    // Dune's row was claimed by a worker that died at once: its claim lapses and another worker processes it.
    const [duneRow] = await bed.t.db.select().from(webhookInbox).where(eq(webhookInbox.messageId, duneEvent.messageId));
    await bed.t.database.transaction((tx) => claimInbox(tx, { ids: [duneRow!.id], token: "dead-worker", now: new Date(), leaseMs: 1 }), { isolation: "read committed" });
    // Elm's effect was written by a worker that died before marking the row processed.
    const client = async () => (await import("@/server/service-client")).createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    await reactToConnectionEvent({ database: bed.t.database, notify: null }, { engagementId: eng.engagementId, companyId: elm!.companyId!, implied: "not_linked", generatedAt: elmEvent.generatedAt, client });
    expect((await item(elm!.id)).state).toBe("reconnect_pending");

    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await processor.processDue()).toBe(2);
    expect(await processor.processDue()).toBe(0);
    expect([(await item(dune!.id)).state, (await item(elm!.id)).state]).toEqual(["reconnect_pending", "reconnect_pending"]);
    expect((await watch(eng.engagementId))!.drops).toBe(2);
    expect((await actions(eng.engagementId, "migration_item.dropped")).length).toBe(2);
    const rows = await bed.t.db.select().from(webhookInbox).where(eq(webhookInbox.targetId, eng.serviceTargetId));
    const attempts = (messageId: string) => rows.filter((r) => r.messageId === messageId).map((r) => [r.attempts, r.processedAt !== null]);
    // Dune's row was claimed twice (the dead worker's claim, then the live one's); Elm's once.
    expect([attempts(duneEvent.messageId), attempts(elmEvent.messageId)]).toEqual([[[2, true]], [[1, true]]]);
  }, 120_000);

  it("pauses every run on the target while the service's quota is spent, says so on the run, and resumes at the reset", async () => {
    const eng = await bed.ready([{ name: "Fir Farms", records: 3 }, { name: "Gum Grocers", records: 3 }]);
    await passSingleCompanyTest(bed.t.db, bed.people.support, eng.engagementId);
    const processor = createInboxProcessor({ database: bed.t.database, ring: TEST_KEY_RING, notify: null, log: () => {}, client: {} });
    const now = new Date();
    const deliver = async (eventType: string, generatedAt: Date, payload: Record<string, unknown>) => {
      await bed.t.database.transaction((tx) => insertDelivery(tx, { id: randomUUID(), targetId: eng.serviceTargetId, messageId: randomUUID(), eventType, generatedAt, payload, now: new Date() }), { isolation: "read committed" });
      await processor.processDue();
    };
    await deliver("client.rateLimit.reached", now, { dailyQuota: 3000, quotaRemaining: 0, expiryDate: new Date(now.getTime() + 3_600_000).toISOString() });
    // A reset of the day before, arriving late, lifts nothing.
    await deliver("client.rateLimit.reset", new Date(now.getTime() - 86_400_000), { dailyQuota: 3000, quotaRemaining: 3000, expiryDate: now.toISOString() });
    const paused = (await bed.t.db.select().from(targetEvents).where(eq(targetEvents.targetId, eng.serviceTargetId)))[0]!;
    expect(paused.pausedUntil!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);

    const { runId } = await startBulkRun(bed.t.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    worker({ inbox: false }).start();
    const held = await until("the run's hold", () => run(runId), (r) => (r.outcome as { hold?: { text: string } } | null)?.hold?.text?.includes("client.rateLimit.reached") === true, 20_000);
    expect((held.outcome as { hold: { kind: string } }).hold.kind).toBe("daily_quota");
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Only the two consumer registrations at the run's start went out; no company was created.
    expect(((await run(runId)).outcome as { requests?: number }).requests ?? 0).toBeLessThanOrEqual(2);
    expect(await Promise.all(eng.items.map(async (i) => (await item(i.id)).companyId))).toEqual([null, null]);

    await deliver("client.rateLimit.reset", new Date(now.getTime() + 1_000), { dailyQuota: 3000, quotaRemaining: 3000, expiryDate: new Date(now.getTime() + 86_400_000).toISOString() });
    const done = await until("the run after the reset", () => run(runId), (r) => r.status === "completed", 60_000);
    expect((done.outcome as { hold?: unknown }).hold).toBeUndefined();
  }, 120_000);

  it("settles a company's sync on read.completed instead of waiting out the poll's backoff", async () => {
    const eng = await bed.ready([{ name: "Hazel Hats", records: 3 }, { name: "Ivy Inns", records: 3 }]);
    await passSingleCompanyTest(bed.t.db, bed.people.support, eng.engagementId);
    const { runId } = await startBulkRun(bed.t.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    // The first status poll would wait 60 s; the sandbox's syncs end in about 2 s and announce it.
    const started = Date.now();
    worker({ policy: { ...FAST, pollInitialMs: 60_000, pollMaxMs: 60_000 } }).start();
    await until("the bulk run", () => run(runId), (r) => r.status === "completed", 40_000);
    expect(Date.now() - started).toBeLessThan(40_000);
    const polls = await Promise.all(eng.items.map(async (i) => ((await item(i.id)).checks as { sync?: { polls: number } } | null)?.sync?.polls));
    expect(polls).toEqual([1, 1]);
    const completed = (await bed.t.db.select().from(webhookInbox).where(and(eq(webhookInbox.targetId, eng.serviceTargetId), eq(webhookInbox.eventType, "read.completed")))).filter((r) => r.processedAt !== null);
    expect(completed.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
