/**
 * The last mile's procedures and its CSV, through createCaller and the route's handler on a real
 * database (SQLite, or PostgreSQL in its pass): both sides read the waiting companies with their links, only support steers
 * the watch, another organisation's customer gets the same 404 as for an unknown engagement.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { and } from "drizzle-orm";
import { auditEvents, migrationItems, watches } from "@/db/schema";
import { getEngagement } from "@/server/engagements/get-engagement";
import { reconnectLinksCsvResponse } from "@/server/api/downloads";
import { handToEndCustomers } from "@/server/migration/watch/watch-repository";
import { seedHandover } from "@/server/testing/handover-fixture";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, testConfig, trpcError } from "../../testing/caller";
import { reconnectLinkUrl } from "@/server/migration/watch/reconnect-link";

let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

/** An engagement at step 6 whose bulk run handed two companies to their end customers. */
async function handedOver() {
  const f = await seedHandover(t.database, p, {
    companies: [{ state: "verified", name: "Ash Ltd" }, { state: "reauth_required", name: "Société Générale Café", externalRef: "=HYPERLINK(\"x\")" }, { state: "reauth_required", name: "Oak & Co" }],
  });
  for (const [i, item] of f.items.entries()) {
    await t.db.update(migrationItems).set({ companyId: `company-${i}`, connectionId: `connection-${i}`, linkUrl: `https://link.example/company/company-${i}` }).where(eq(migrationItems.id, item.id));
  }
  await t.database.transaction((tx) => handToEndCustomers(tx, { engagementId: f.engagementId, now: new Date() }), { isolation: "read committed" });
  return f;
}

describe("lastMile", () => {
  it("shows both sides the companies waiting for their end customers with their reconnect links; only support steers the watch", async () => {
    const f = await handedOver();
    const support = await callerAs(t.database, p.support).lastMile.get({ engagementId: f.engagementId });
    // Each with Ferry's own link (never the service's, which may work once), not yet opened.
    const linkOf = (itemId: string) => reconnectLinkUrl({ appUrl: "http://ferry.test", ring: TEST_KEY_RING }, itemId);
    expect(support.pending.map((r) => [r.name, r.linkUrl, r.linkOpens])).toEqual([
      ["Société Générale Café", linkOf(f.items[1]!.id), 0],
      ["Oak & Co", linkOf(f.items[2]!.id), 0],
    ]);
    expect(support).toMatchObject({ pendingTotal: 2, hypercareDays: 7, watch: { status: "watching", checks: 0 }, controls: { checkNow: { allowed: true }, setHypercareDays: { allowed: true } } });
    const customer = await callerAs(t.database, p.customerA).lastMile.get({ engagementId: f.engagementId });
    expect(customer.pending).toEqual(support.pending);
    expect(customer.controls).toEqual({
      checkNow: { allowed: false, reason: "Support staff ask for checks." },
      setHypercareDays: { allowed: false, reason: "Support staff set the hypercare days." },
      markDropsSeen: { allowed: false, reason: "Support staff look at the dropped connections." },
    });
    expect((await trpcError(callerAs(t.database, p.customerA).lastMile.checkNow({ engagementId: f.engagementId }))).code).toBe("FORBIDDEN");
    expect((await trpcError(callerAs(t.database, p.customerB).lastMile.get({ engagementId: f.engagementId }))).code).toBe("NOT_FOUND");
    expect((await trpcError(callerAs(t.database, p.customerB).lastMile.get({ engagementId: "no-such-engagement" }))).code).toBe("NOT_FOUND");
  });

  it("sets the hypercare days within 1–90, audited; a bad number is refused on its field and nothing changes", async () => {
    const f = await handedOver();
    const s = callerAs(t.database, p.support);
    for (const days of [0, 91, 2.5]) {
      const e = await trpcError(s.lastMile.setHypercareDays({ engagementId: f.engagementId, days }));
      expect(e.code).toBe("BAD_REQUEST");
    }
    expect((await s.lastMile.get({ engagementId: f.engagementId })).hypercareDays).toBe(7);
    await s.lastMile.setHypercareDays({ engagementId: f.engagementId, days: 14 });
    expect((await s.lastMile.get({ engagementId: f.engagementId })).hypercareDays).toBe(14);
    const timeline = await s.engagements.timeline({ engagementId: f.engagementId });
    expect(timeline.map((e) => e.summary)).toContain("Changed the hypercare watch from 7 days to 14 days");
  });

  it("downloads the reconnect links as CSV (cells neutralised for spreadsheets); 404 for another organisation, 409 when none waits", async () => {
    const f = await handedOver();
    const answer = await reconnectLinksCsvResponse({ database: t.database, config: testConfig(), actor: p.customerA }, f.engagementId);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-disposition")).toContain(`${f.reference}-reconnect-links.csv`);
    const text = await answer.text();
    // Each company's link is Ferry's own stable one (not the service's one-time Link URL), with how often it was opened.
    const items = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, f.engagementId));
    const linkOf = (name: string) => reconnectLinkUrl({ appUrl: "http://ferry.test", ring: TEST_KEY_RING }, items.find((i) => i.name === name)!.id);
    expect(linkOf("Oak & Co")).toMatch(/^http:\/\/ferry\.test\/reconnect\/[^/]+$/);
    expect(text).toContain(`Société Générale Café,"'=HYPERLINK(""x"")",${linkOf("Société Générale Café")},company-1`);
    expect(text).toContain(`Oak & Co,REF-2,${linkOf("Oak & Co")},company-2`);
    expect(text).not.toContain("https://link.example");
    expect(text).not.toContain("Ash Ltd");
    expect((await reconnectLinksCsvResponse({ database: t.database, config: testConfig(), actor: p.customerB }, f.engagementId)).status).toBe(404);
    expect((await reconnectLinksCsvResponse({ database: t.database, config: testConfig(), actor: null }, f.engagementId)).status).toBe(401);
    const none = await seedHandover(t.database, p, { companies: [{ state: "verified" }], organizationId: p.orgB });
    expect((await reconnectLinksCsvResponse({ database: t.database, config: testConfig(), actor: p.support }, none.engagementId)).status).toBe(409);
  });
});

describe("drops to look at", () => {
  /** The watch found a company's connection dropped at `at` (on the target's clock), as its check records it. */
  async function dropped(itemId: string, engagementId: string, at: Date) {
    await t.db.update(migrationItems).set({ state: "reconnect_pending", droppedAt: at, reconnectSince: at, outcomeReason: "revoked" }).where(eq(migrationItems.id, itemId));
    const [w] = await t.db.select().from(watches).where(eq(watches.engagementId, engagementId));
    await t.db.update(watches).set({ drops: w!.drops + 1 }).where(eq(watches.engagementId, engagementId));
  }

  it("a dropped connection is support's move until support marks it seen; a later drop is again; only support marks, once", async () => {
    const f = await handedOver();
    const s = callerAs(t.database, p.support);
    const move = async () => (await getEngagement(t.database, p.support, f.engagementId)).waiting;
    const before = (await move()).moves.support?.action;
    expect(before).not.toBe("look_at_drops");

    // A day ahead on the target's clock, as a moved sandbox clock stamps it.
    await dropped(f.items[0]!.id, f.engagementId, new Date(Date.now() + 86_400_000));
    expect(await s.lastMile.get({ engagementId: f.engagementId })).toMatchObject({ unseenDrops: 1, controls: { markDropsSeen: { allowed: true } } });
    expect(await move()).toMatchObject({ party: "support", moves: { support: { action: "look_at_drops", text: expect.stringMatching(/^A migrated connection dropped during the hypercare watch/) } } });
    expect((await trpcError(callerAs(t.database, p.customerA).lastMile.markDropsSeen({ engagementId: f.engagementId }))).code).toBe("FORBIDDEN");

    await s.lastMile.markDropsSeen({ engagementId: f.engagementId });
    expect(await s.lastMile.get({ engagementId: f.engagementId })).toMatchObject({ unseenDrops: 0, controls: { markDropsSeen: { allowed: false, reason: "No dropped connection waits to be looked at." } } });
    expect((await move()).moves.support?.action).toBe(before);
    const audited = await t.db.select().from(auditEvents).where(and(eq(auditEvents.engagementId, f.engagementId), eq(auditEvents.action, "watch.drops_seen")));
    expect(audited.map((e) => e.after)).toEqual([{ drops: 1 }]);
    expect((await trpcError(s.lastMile.markDropsSeen({ engagementId: f.engagementId }))).code).toBe("PRECONDITION_FAILED");

    await dropped(f.items[1]!.id, f.engagementId, new Date(Date.now() + 2 * 86_400_000));
    expect(await s.lastMile.get({ engagementId: f.engagementId })).toMatchObject({ unseenDrops: 1 });
    expect((await move()).moves.support?.action).toBe("look_at_drops");
  });
});
