/**
 * The last mile with a real worker against a real sandbox on a random port and a real database:
 * a bulk run's companies that failed on their tokens are handed to their end customers with their
 * reconnect links; one end customer connects through the sandbox's Link flow and the watch carries
 * the company on to verified; after the handover report the hypercare watch (the sandbox's clock
 * moved day by day) finds a dropped connection, tells everyone, and ends with its final report.
 * On both databases; the watch's own concurrency on PostgreSQL is watcher-races.test.ts's.
 *
 * Runs on both databases: the watch's repository and its lease.
 * @module-tag both-databases
 */
import { until } from "@/server/testing/until";
import { and, eq, like } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { readSteps } from "@/db/database";
import { auditEvents, mailOutbox, migrationItems, migrationRuns, users, watches } from "@/db/schema";
import { getEngagement } from "@/server/engagements/get-engagement";
import { passSingleCompanyTest } from "@/server/testing/engagement-flows";
import { TEST_KEY_RING, TEST_NOTIFY } from "@/server/testing/test-db";
import { engineTestBed } from "@/server/testing/test-bed";
import { startBulkRun } from "../bulk/bulk-controls";
import { DEFAULT_PIPELINE_POLICY, ENGAGEMENT_TAG, type PipelinePolicy } from "../engine/pipeline";
import { createMigrationWorker, type Worker } from "../migration-worker";
import { confirmHandover } from "../handover/confirm-handover";
import { checkWatchNow, getLastMile, markDropsSeen, reconnectLinksCsv, setHypercareDays } from "./last-mile";
import { reconnectLinkUrl } from "./reconnect-link";
import { watchedCounts, watchedItems } from "./watch-repository";

/** Ferry's address in the test mails, and its key ring: what a company's reconnect link is made of. */
const LINKS = { appUrl: TEST_NOTIFY.notify.appUrl, ring: TEST_KEY_RING };

const FAST: PipelinePolicy = { ...DEFAULT_PIPELINE_POLICY, pollInitialMs: 100, pollMaxMs: 500, retryBaseMs: 50, retryMaxMs: 200 };
const bed = engineTestBed();
const running: Worker[] = [];
const notify = () => ({ appUrl: "http://ferry.test", mail: { from: "Ferry <ferry@test>", log: () => {}, keyRing: TEST_KEY_RING } });

afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
});

const worker = () => {
  const w = createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, leaseMs: 2_000, idleMs: 50, policy: FAST, watchEveryMs: 100, notify: notify(), sandbox: { url: bed.sb.url, adminToken: bed.sb.adminToken } });
  running.push(w);
  return w;
};

const item = async (id: string) => (await bed.t.db.select().from(migrationItems).where(eq(migrationItems.id, id)).limit(1))[0]!;
const watch = async (engagementId: string) => (await bed.t.db.select().from(watches).where(eq(watches.engagementId, engagementId)).limit(1))[0];
const run = async (runId: string) => (await bed.t.db.select().from(migrationRuns).where(eq(migrationRuns.id, runId)).limit(1))[0]!;
const actions = (engagementId: string, action: string) => bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.engagementId, engagementId), eq(auditEvents.action, action)));


describe("the last mile", () => {
  it("hands companies that failed on their tokens to their end customers with links, brings a reconnected one to verified, and watches the migrated connections after the handover until the hypercare days end", async () => {
    const list = ["Alder Books", "Birch Bakery", "Cedar Cycles", "Dune Dental"].map((name, i) => ({ name, records: 5, externalRef: `EXT-${i + 1}`, rotatedAfterExport: i >= 2 }));
    const eng = await bed.ready(list);
    await passSingleCompanyTest(bed.t.db, bed.people.support, eng.engagementId);
    const { runId } = await startBulkRun(bed.t.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    const w = worker();
    w.start();
    await until("the bulk run", () => run(runId), (r) => r.status === "completed", 60_000);

    // The two rotated companies wait for their end customers, each with the service's Link URL.
    const [alder, , cedar, dune] = await Promise.all(eng.items.map((i) => item(i.id)));
    expect([cedar!.state, dune!.state]).toEqual(["reconnect_pending", "reconnect_pending"]);
    expect(cedar!.linkUrl).toBe(`${bed.sb.url}/link/company/${cedar!.companyId}`);
    expect(alder!.state).toBe("verified");
    // A check between listings loads only the waiting companies, and counts the rest.
    expect(await readSteps(bed.t.database, (tx) => watchedCounts(tx, eng.engagementId))).toEqual({ companies: 4, verified: 2 });
    expect((await readSteps(bed.t.database, (tx) => watchedItems(tx, eng.engagementId, ["reconnect_pending"]))).map((i) => i.name).sort()).toEqual(["Cedar Cycles", "Dune Dental"]);
    expect(await actions(eng.engagementId, "migration.reconnect_pending")).toHaveLength(1);
    // The customer is told at once (the report's mail comes later): two companies wait on their end customers.
    const [told] = await until("the customer's mail", () => bed.t.db.select().from(mailOutbox).where(like(mailOutbox.subject, "%bulk migration has finished%")), (m) => m.length >= 1, 15_000);
    expect(told!.subject).toContain("2 companies wait for their end customers");
    const [addressee] = await bed.t.db.select().from(users).where(eq(users.email, told!.to));
    expect(addressee).toMatchObject({ role: "customer" });
    expect(told!.text).toMatch(/reconnect link/);
    // It is the customer's move now: the links to send on, or fresh tokens.
    expect((await getEngagement(bed.t.database, bed.people.support, eng.engagementId)).waiting).toMatchObject({
      party: "support",
      moves: { customer: { action: "send_reconnect_links" }, support: { action: "produce_report" } },
    });
    const csv = (await reconnectLinksCsv(bed.t.database, LINKS, bed.people.support, eng.engagementId)).body;
    expect(csv).toContain(`Cedar Cycles,EXT-3,${reconnectLinkUrl(LINKS, cedar!.id)},${cedar!.companyId}`);
    expect(csv).toContain(`Dune Dental,EXT-4,${reconnectLinkUrl(LINKS, dune!.id)},${dune!.companyId}`);
    expect(csv).not.toContain("Alder Books");

    // Cedar's end customer connects through the sandbox's Link flow: the watch notices, the run syncs and verifies it.
    await bed.sb.control.link(cedar!.companyId!, cedar!.connectionId!);
    const back = await until("Cedar reconnected", () => item(cedar!.id), (i) => i.state === "verified", 60_000);
    expect(back.reconnectedAt).not.toBeNull();
    expect((await item(dune!.id)).state).toBe("reconnect_pending");
    expect((await actions(eng.engagementId, "migration_item.reconnected")).map((e) => (e.after as { company: string }).company)).toEqual(["Cedar Cycles"]);
    await until("the run again", () => run(runId), (r) => r.status === "completed", 30_000);

    // The report is produced with Dune still waiting: the customer acknowledges; the hypercare days start.
    await setHypercareDays(bed.t.database, bed.people.support, { engagementId: eng.engagementId, days: 3 });
    await confirmHandover(bed.t.database, bed.people.support, { ...notify(), purgeAfterDays: 14 }, { engagementId: eng.engagementId });
    expect((await getEngagement(bed.t.database, bed.people.support, eng.engagementId)).waiting).toMatchObject({ party: "customer", moves: { customer: { action: "acknowledge_report" } } });
    const started = await until("hypercare begins", async () => (await watch(eng.engagementId))!, (x) => x.hypercareEndsAt !== null, 30_000);
    const clock = new Date((await bed.sb.control.getClock()).now).getTime();
    expect(started.hypercareEndsAt!.getTime() - clock).toBeGreaterThan(2.9 * 86_400_000);

    // Day one: Alder's connection drops on the platform; the daily check finds it and tells everyone.
    await bed.sb.control.deauthorize(alder!.companyId!, alder!.connectionId!, { reason: "revoked" });
    await bed.sb.control.advanceClock({ days: 1 });
    const dropped = await until("Alder found dropped", () => item(alder!.id), (i) => i.state === "reconnect_pending", 30_000);
    expect(dropped.droppedAt).not.toBeNull();
    expect(dropped.outcomeReason).toMatch(/revoked/i);
    // The mail goes after the check's transaction has committed: it follows the drop, soon.
    const mails = await until(
      "the drop's mail",
      () => bed.t.db.select().from(mailOutbox).where(like(mailOutbox.subject, `%migrated connection dropped%`)),
      (m) => m.length >= 2,
      15_000,
    );
    expect(mails[0]!.text).toContain(`Alder Books`);
    expect(mails[0]!.text).toContain(`Reconnect link: ${reconnectLinkUrl(LINKS, alder!.id)}`);
    // Support has a drop to look at (stamped on the sandbox's clock, a day ahead), until marked seen.
    const supportMove = async () => (await getEngagement(bed.t.database, bed.people.support, eng.engagementId)).waiting.moves.support?.action;
    expect(await supportMove()).toBe("look_at_drops");
    await markDropsSeen(bed.t.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    expect(await supportMove()).not.toBe("look_at_drops");
    const view = await getLastMile(bed.t.database, LINKS, bed.people.support, eng.engagementId);
    expect(view.unseenDrops).toBe(0);
    expect(view.pending.map((r) => [r.name, r.dropped])).toEqual([
      ["Alder Books", true],
      ["Dune Dental", false],
    ]);

    // The days pass: the watch ends with its final report on the timeline and by mail.
    await bed.sb.control.advanceClock({ days: 3 });
    const ended = await until("the watch ends", async () => (await watch(eng.engagementId))!, (x) => x.status === "ended", 30_000);
    expect(ended.drops).toBe(1);
    expect(ended.reconnections).toBe(1);
    const report = (await actions(eng.engagementId, "watch.ended"))[0]!.after as Record<string, number>;
    expect(report).toMatchObject({ drops: 1, reconnections: 1, stillPending: 2, verified: 2 });
    await until("the final report's mail", () => bed.t.db.select().from(mailOutbox).where(like(mailOutbox.subject, "%hypercare watch has ended%")), (m) => m.length >= 2, 15_000);
    // Every check listed the engagement's companies in pages: never one request per company.
    expect(ended.requests).toBeLessThanOrEqual(ended.checks * 2);
  }, 180_000);

  it("tags each company with its engagement (one listing finds them all), and refuses a check while nothing is watched", async () => {
    const eng = await bed.ready([{ name: "Elm Energy", records: 3 }, { name: "Fir Farms", records: 3 }]);
    await expect(checkWatchNow(bed.t.database, bed.people.support, { engagementId: eng.engagementId })).rejects.toThrow(/Nothing is watched/);
    await passSingleCompanyTest(bed.t.db, bed.people.support, eng.engagementId);
    const { runId } = await startBulkRun(bed.t.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    worker().start();
    await until("the bulk run", () => run(runId), (r) => r.status === "completed", 60_000);
    const { createServiceClient } = await import("@/server/service-client");
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    const page = await client.listCompanies({ tag: { name: ENGAGEMENT_TAG, value: eng.engagementId }, page: 1, pageSize: 5000 });
    expect(page.data.results.map((c) => c.id).sort()).toEqual((await Promise.all(eng.items.map(async (i) => (await item(i.id)).companyId))).sort());
    // Nothing failed on its tokens: no watch until the handover, and no move for the customer.
    expect(await watch(eng.engagementId)).toBeUndefined();
    expect((await getEngagement(bed.t.database, bed.people.support, eng.engagementId)).waiting.moves).toEqual({ customer: null, support: expect.objectContaining({ action: "produce_report" }) });
  }, 60_000);
});
