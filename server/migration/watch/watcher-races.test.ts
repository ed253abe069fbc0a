/**
 * Workers checking one watch at once, on the database the run is for (on PostgreSQL their
 * transactions really are concurrent) against a real sandbox: two workers ticking together check
 * the watch once, and a worker whose lease expired during its check — the watch taken and checked
 * by another meanwhile — writes nothing of what it found. Each engagement is set up as a bulk run
 * leaves it: a migrated company whose connection has since dropped, one waiting for its end
 * customer who has linked it again. On PostgreSQL the test holds the watch's row until both
 * workers' claims wait on it, so they contend for real.
 *
 * Runs on both databases: the watch's lease held and taken over by workers at once.
 * @module-tag both-databases
 */
import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, mailOutbox, migrationItems, migrationRuns, watches } from "@/db/schema";
import { createServiceClient } from "@/server/service-client";
import { atOnce } from "@/server/testing/at-once";
import { until } from "@/server/testing/until";
import { TEST_KEY_RING } from "@/server/testing/test-db";
import { engineTestBed } from "@/server/testing/test-bed";
import { ENGAGEMENT_TAG } from "../engine/pipeline";
import { createWatcher } from "./watcher";
import { ASKED_FOR } from "./watch-rules";

const bed = engineTestBed();
const notify = () => ({ appUrl: "http://ferry.test", mail: { from: "Ferry <ferry@test>", log: () => {}, keyRing: TEST_KEY_RING } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An engagement after its bulk run (see the module comment): Alder migrated (its connection since revoked), Birch waiting for its end customer (who has linked it again); its watch due now. */
async function watchedEngagement(options: { birchUntagged?: boolean } = {}) {
  const eng = await bed.ready([{ name: "Alder Books", records: 3 }, { name: "Birch Bakery", records: 3 }]);
  const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
  const made = [];
  for (const item of eng.items) {
    // A company made before Ferry tagged companies with their engagement is found by a second listing, of all companies.
    const tags: Record<string, string> = options.birchUntagged && item.name === "Birch Bakery" ? {} : { [ENGAGEMENT_TAG]: eng.engagementId };
    const company = (await client.createCompany({ name: item.name, tags })).data;
    const connection = (await client.createConnection({ companyId: company.id, platformKey: eng.platformKey })).data;
    await bed.sb.control.link(company.id, connection.id);
    made.push({ item, companyId: company.id, connectionId: connection.id });
  }
  const [alder, birch] = made;
  const now = new Date();
  const runId = crypto.randomUUID();
  await bed.t.db.insert(migrationRuns).values({
    id: runId,
    engagementId: eng.engagementId,
    kind: "bulk",
    status: "completed",
    serviceTargetId: eng.serviceTargetId,
    requestedById: bed.people.support.id,
    requestedAt: now,
    startedAt: now,
    finishedAt: now,
    outcome: {},
  });
  await bed.t.db.update(migrationItems).set({ runId, state: "verified", companyId: alder!.companyId, connectionId: alder!.connectionId }).where(eq(migrationItems.id, alder!.item.id));
  await bed.t.db
    .update(migrationItems)
    .set({ runId, state: "reconnect_pending", reconnectSince: now, companyId: birch!.companyId, connectionId: birch!.connectionId })
    .where(eq(migrationItems.id, birch!.item.id));
  await bed.t.db.insert(watches).values({ engagementId: eng.engagementId, status: "watching", startedAt: now, nextCheckAt: ASKED_FOR });
  await bed.sb.control.deauthorize(alder!.companyId, alder!.connectionId, { reason: "revoked" });
  return { eng, alder: alder!, birch: birch! };
}

/** A worker's watcher whose service requests are counted (and, with `delayMs`, answered that much later). */
function watcher(owner: string, options: { leaseMs?: number; delayMs?: number } = {}) {
  const calls = { listings: 0 };
  const counting: typeof fetch = async (input, init) => {
    if (new URL(String(input instanceof Request ? input.url : input)).pathname.endsWith("/companies")) calls.listings += 1;
    if (options.delayMs) await sleep(options.delayMs);
    return fetch(input, init);
  };
  const w = createWatcher({ database: bed.t.database, ring: TEST_KEY_RING, owner, leaseMs: options.leaseMs, notify: notify(), client: { fetch: counting }, log: () => {} });
  return { w, calls };
}

/** Runs the workers' ticks together, contending for the watch's row (see server/testing/at-once.ts); each tick's count, or its error. */
async function together(engagementId: string, ticks: (() => Promise<number>)[]): Promise<number[]> {
  const settled = await atOnce(bed.t, { sql: "select engagement_id from watches where engagement_id = $1 for update", params: [engagementId] }, ticks);
  return settled.map((r) => {
    if (r.status === "rejected") throw r.reason;
    return r.value;
  });
}

const watchOf = async (engagementId: string) => (await bed.t.db.select().from(watches).where(eq(watches.engagementId, engagementId)).limit(1))[0]!;
const audits = async (engagementId: string, action: string) => bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.engagementId, engagementId), eq(auditEvents.action, action)));
const itemState = async (id: string) => (await bed.t.db.select({ state: migrationItems.state }).from(migrationItems).where(eq(migrationItems.id, id)).limit(1))[0]!.state;

/** What one check of the engagement leaves: one check counted, each finding applied once, everyone mailed once. */
async function checkedOnce(eng: { engagementId: string; reference: string }, alder: { item: { id: string } }, birch: { item: { id: string } }) {
  expect(await watchOf(eng.engagementId)).toMatchObject({ checks: 1, drops: 1, reconnections: 1, leaseOwner: null });
  expect(await audits(eng.engagementId, "migration_item.dropped")).toHaveLength(1);
  expect(await audits(eng.engagementId, "migration_item.reconnected")).toHaveLength(1);
  expect([await itemState(alder.item.id), await itemState(birch.item.id)]).toEqual(["reconnect_pending", "authorized"]);
  const mails = await bed.t.db.select({ to: mailOutbox.to }).from(mailOutbox).where(like(mailOutbox.subject, `[${eng.reference}]%migrated connection dropped%`));
  expect(mails.length).toBeGreaterThan(0);
  expect(new Set(mails.map((m) => m.to)).size).toBe(mails.length);
}

describe("workers checking one watch at once", () => {
  it("two workers ticking together check it once: one takes it, lists the companies and applies what it found", async () => {
    const { eng, alder, birch } = await watchedEngagement();
    const [a, b] = [watcher("worker-a"), watcher("worker-b")];
    const checked = await together(eng.engagementId, [() => a.w.tick(), () => b.w.tick()]);
    expect(checked.sort()).toEqual([0, 1]);
    // Only the worker that took the watch asked the service.
    expect([a.calls.listings, b.calls.listings].sort()).toEqual([0, 1]);
    await checkedOnce(eng, alder, birch);
  }, 60_000);

  it("a check whose lease expired and was taken meanwhile writes nothing: the other worker's check counts", async () => {
    const { eng, alder, birch } = await watchedEngagement();
    // Worker A's listing is slow: its short lease expires while the service answers.
    const slow = watcher("worker-a", { leaseMs: 300, delayMs: 1_500 });
    const first = slow.w.tick();
    for (let i = 0; (await watchOf(eng.engagementId)).leaseOwner !== "worker-a"; i++) {
      if (i > 200) throw new Error("worker A never took the watch");
      await sleep(10);
    }
    await sleep(400);
    // Worker B takes the expired lease and checks the watch in full.
    expect(await watcher("worker-b").w.tick()).toBe(1);
    expect(await first).toBe(0);
    await checkedOnce(eng, alder, birch);
  }, 60_000);

  it("a check longer than its lease keeps it by renewing it between requests: another worker looking meanwhile does not take it", async () => {
    // Two listings (by tag, then of all companies for the untagged one), each answered after 2 s,
    // under a lease of 3 s: the check outlasts its lease, each request within it with a second to
    // spare for the database's work between them on a loaded machine.
    const { eng, alder, birch } = await watchedEngagement({ birchUntagged: true });
    const slow = watcher("worker-a", { leaseMs: 3_000, delayMs: 2_000 });
    let done = false;
    const first = slow.w.tick().finally(() => (done = true));
    // Worker B starts looking once A has taken the watch (before, either may take it first).
    await until("worker A takes the watch", () => watchOf(eng.engagementId), (w) => done || w.leaseOwner === "worker-a", 5_000);
    const other = watcher("worker-b");
    let taken = 0;
    while (!done) {
      taken += await other.w.tick();
      await sleep(50);
    }
    expect(await first).toBe(1);
    expect(slow.calls.listings).toBe(2);
    expect([taken, other.calls.listings]).toEqual([0, 0]);
    await checkedOnce(eng, alder, birch);
  }, 60_000);
});
