/**
 * A company's reconnect link against a real sandbox whose client has one-time Link URLs: the end
 * customer opens Ferry's link, is sent to a fresh Link URL, connects once with it; a day later the
 * service's URL is dead but Ferry's link gives a new one. Every open is counted on the last mile's
 * row and listed in the company's timeline; a forged link says nothing; a closed one says why; a
 * service that refuses keeps its status, error text and correlationId to the page.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { migrationItems, reconnectLinkOpens } from "@/db/schema";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { createMigrationWorker } from "@/server/migration/migration-worker";
import { requestTestRun } from "@/server/migration/test-run/request-test-run";
import { callerAs, testConfig } from "@/server/testing/caller";
import { engineTestBed } from "@/server/testing/test-bed";
import { onlyPostForm } from "@/server/testing/link-browser";
import { TEST_KEY_RING } from "@/server/testing/test-db";
import { closedReason, createReconnectLinkOpener, type ReconnectLinkAnswer } from "./open-reconnect-link";
import { reconnectLinkToken } from "./reconnect-link";
import { endWatch } from "./watch-repository";

const bed = engineTestBed();

const tokenOfUrl = (url: string) => url.slice(url.lastIndexOf("/") + 1);

function redirected(answer: ReconnectLinkAnswer): string {
  if (answer.kind !== "redirect") throw new Error(`expected a redirect, got ${JSON.stringify(answer)}`);
  return answer.url;
}

describe("a company's reconnect link", () => {
  it("sends its end customer to a fresh one-time Link URL on every open, so a day-old link still works; opens are counted and in the timeline", async () => {
    const eng = await bed.ready([{ name: "Link Good", records: 1 }, { name: "Link Rotated", records: 1, rotatedAfterExport: true }], { organizationId: bed.people.orgA, customer: bed.people.customerA });
    await bed.sb.control.setClientSettings(eng.sandboxClientId!, { oneTimeLinkUrls: true });
    const worker = createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, watch: false, notify: null });
    await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot", itemId: eng.items[0]!.id });
    await worker.runOnce();
    await startBulkRun(bed.t.database, { notify: testConfig() }, bed.people.support, { engagementId: eng.engagementId, reason: "Link test." });
    await worker.runOnce();
    await worker.stop();

    // The company that failed on its tokens waits for its end customer, with Ferry's link (not the service's).
    const customer = callerAs(bed.t.database, bed.people.customerA);
    const [row] = (await customer.lastMile.get({ engagementId: eng.engagementId })).pending;
    expect(row).toMatchObject({ name: "Link Rotated", linkOpens: 0, linkLastOpenedAt: null, linkUrl: `http://ferry.test/reconnect/${reconnectLinkToken(TEST_KEY_RING, eng.items[1]!.id)}` });
    const [item] = await bed.t.db.select().from(migrationItems).where(eq(migrationItems.id, row!.itemId));
    // Ferry keeps the service's URL without its one-time token.
    expect(item!.linkUrl).toBe(`${bed.sb.url}/link/company/${item!.companyId}`);

    const opener = createReconnectLinkOpener({ database: bed.t.database, ring: TEST_KEY_RING });
    const first = redirected(await opener.open(tokenOfUrl(row!.linkUrl!)));
    expect(first).toMatch(new RegExp(`^${bed.sb.url}/link/company/${item!.companyId}\\?token=.+`));

    // A day later (a busy end customer), the service's URL has expired; Ferry's link gives a fresh one.
    await bed.sb.control.advanceClock({ days: 1 });
    expect((await fetch(first)).status).toBe(410);
    const second = redirected(await opener.open(tokenOfUrl(row!.linkUrl!)));
    expect(second).not.toBe(first);
    const page = await fetch(second);
    expect(page.status).toBe(200);
    const form = onlyPostForm(await page.text());
    const connect = await fetch(`${new URL(bed.sb.url).origin}${form.action}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form.hidden).toString(),
      redirect: "manual",
    });
    expect(connect.status).toBe(303);
    // The one-time URL worked once: it does not open again, while Ferry's link still does.
    expect((await fetch(second)).status).toBe(410);
    redirected(await opener.open(tokenOfUrl(row!.linkUrl!)));

    const after = (await customer.lastMile.get({ engagementId: eng.engagementId })).pending[0]!;
    expect(after.linkOpens).toBe(3);
    expect(after.linkLastOpenedAt).toBeInstanceOf(Date);
    const timeline = await customer.bulk.timeline({ engagementId: eng.engagementId, itemId: row!.itemId });
    const opens = timeline.entries.filter((e) => e.actor === "Its end customer (reconnect link)");
    expect(opens.map((e) => e.text)).toEqual(Array(3).fill("Its reconnect link was opened: Ferry asked the service for a fresh Link URL and sent the browser there"));
    const csv = await (await (await import("@/server/api/downloads")).reconnectLinksCsvResponse({ database: bed.t.database, config: testConfig(), actor: bed.people.customerA }, eng.engagementId)).text();
    expect(csv).toContain(`${row!.linkUrl},${item!.companyId},`);
    expect(csv).toMatch(/,3,\d{4}-\d\d-\d\dT[^,]+Z\r\n$/);

    // A forged or altered link says nothing about any company and records nothing.
    const forged = reconnectLinkToken(TEST_KEY_RING, eng.items[1]!.id).slice(0, -2) + "xx";
    expect(await opener.open(forged)).toEqual({ kind: "unknown" });
    expect(await opener.open("nothing-like-a-link")).toEqual({ kind: "unknown" });
    expect(await bed.t.db.select().from(reconnectLinkOpens).where(eq(reconnectLinkOpens.itemId, row!.itemId))).toHaveLength(3);

    // Once the watch has ended the link is closed: it says why, sends nobody anywhere, and the open is recorded.
    await bed.t.database.transaction(function* (tx) {
      yield* endWatch(tx, { engagementId: eng.engagementId, at: new Date() });
    }, { isolation: "read committed" });
    const closed = await opener.open(tokenOfUrl(row!.linkUrl!));
    expect(closed).toMatchObject({ kind: "closed", companyName: "Link Rotated", reason: expect.stringMatching(/that time has ended/) });
    const last = (await customer.bulk.timeline({ engagementId: eng.engagementId, itemId: row!.itemId })).entries.at(-1);
    expect(last).toMatchObject({ source: "person", text: expect.stringMatching(/^Its reconnect link was opened after it had closed: This link was for the weeks after/) });
  });

  it("keeps the service's status, error text and correlationId when it gives no Link URL, works again once it does, and holds a link opened in a loop", async () => {
    const eng = await bed.ready([{ name: "Refused Good", records: 1 }, { name: "Refused Rotated", records: 1, rotatedAfterExport: true }], { organizationId: bed.people.orgB, customer: bed.people.customerB });
    const worker = createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, watch: false, notify: null });
    await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot", itemId: eng.items[0]!.id });
    await worker.runOnce();
    await startBulkRun(bed.t.database, { notify: testConfig() }, bed.people.support, { engagementId: eng.engagementId, reason: "Refusal test." });
    await worker.runOnce();
    await worker.stop();
    const token = reconnectLinkToken(TEST_KEY_RING, eng.items[1]!.id);
    const opener = createReconnectLinkOpener({ database: bed.t.database, ring: TEST_KEY_RING, client: { retry: "none" } });
    await bed.sb.control.setFaults({ maintenance: true });
    try {
      const refused = await opener.open(token);
      expect(refused).toMatchObject({ kind: "service_error", companyName: "Refused Rotated", status: 503, error: expect.any(String), correlationId: expect.any(String) });
      const timeline = await callerAs(bed.t.database, bed.people.support).bulk.timeline({ engagementId: eng.engagementId, itemId: eng.items[1]!.id });
      expect(timeline.entries.at(-1)).toMatchObject({ text: expect.stringMatching(/the service gave no Link URL/), call: { status: 503, ok: false, correlationId: (refused as { correlationId: string }).correlationId } });
    } finally {
      await bed.sb.control.setFaults({ maintenance: false });
    }
    expect((await opener.open(token)).kind).toBe("redirect");
    // Opened in a loop, the link is held to a few opens a minute: nothing more is asked of the service or recorded.
    const rows = () => bed.t.db.select().from(reconnectLinkOpens).where(eq(reconnectLinkOpens.itemId, eng.items[1]!.id));
    expect(await rows()).toHaveLength(2);
    const strict = createReconnectLinkOpener({ database: bed.t.database, ring: TEST_KEY_RING, opensPerMinute: 2 });
    expect(await strict.open(token)).toEqual({ kind: "busy", companyName: "Refused Rotated", retryAfterSeconds: 60 });
    expect(await rows()).toHaveLength(2);
  });
});

describe("why a link is closed", () => {
  const open = { companyId: "c1", engagementStatus: "active", watchEnded: false, customerName: "Acme Lending" };
  it("is open while the company exists and the engagement watches it", () => {
    expect(closedReason(open)).toBeNull();
    expect(closedReason({ ...open, engagementStatus: "completed" })).toBeNull();
    expect(closedReason({ ...open, engagementStatus: "on_hold" })).toBeNull();
  });
  it("closes when the engagement is cancelled or its watch has ended, and before the company exists", () => {
    expect(closedReason({ ...open, engagementStatus: "cancelled" })).toBe("Acme Lending stopped this migration, so this link no longer leads anywhere.");
    expect(closedReason({ ...open, watchEnded: true })).toMatch(/^This link was for the weeks after Acme Lending moved its connections/);
    expect(closedReason({ ...open, companyId: null })).toMatch(/not ready/);
  });
});
