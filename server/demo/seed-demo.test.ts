/**
 * The demo seed through the real flows, with a real sandbox on a random port and without one: each
 * engagement where the README says, the Acme QuickBooks Online file made of 25 real tenants with
 * two rotated after export, and a second run that changes nothing.
 */
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, engagements, migrationItems, serviceTargets } from "@/db/schema";
import { findEngagements } from "@/server/engagements/find-engagements";
import { getEngagement } from "@/server/engagements/get-engagement";
import { getIntake } from "@/server/engagements/flows";
import type { Actor } from "@/core/accounts/actor";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { createServiceTarget } from "@/server/targets/targets";
import { createTestDatabase, TEST_KEY_RING, type TestDatabase } from "@/server/testing/test-db";
import { getCalendar, windowsWithOverlaps } from "@/server/engagements/calendar/get-calendar";
import { ACME_QBO_COMPANIES, ACME_QBO_ROTATED, BLUEBIRD_DAILY_QUOTA, seedDemo } from "./seed-demo";

const staff: Actor = { id: "x", email: "", name: "Viewer", role: "admin", organizationId: null };

async function byPlatform(t: TestDatabase) {
  const list = await findEngagements(t.database, staff, { page: 1, pageSize: 50 });
  return Object.fromEntries(await Promise.all(list.items.map(async (e) => [`${e.organizationName}/${e.platformName}`, await getEngagement(t.database, staff, e.id)] as const)));
}

describe("the demo seed with a sandbox", () => {
  let t: TestDatabase;
  let sandbox: TestSandbox;
  beforeAll(async () => {
    t = await createTestDatabase();
    sandbox = await startTestSandbox();
    expect(await seedDemo(t.database, { ring: TEST_KEY_RING, sandbox: { url: sandbox.url, adminToken: sandbox.adminToken } })).toEqual({ seeded: true });
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await sandbox.close();
  });

  it("brings every engagement to its step through the flows", async () => {
    const e = await byPlatform(t);
    const states = (key: string) => e[key]!.steps.map((s) => s.state);
    expect(states("Acme Lending/QuickBooks Online")).toEqual(["done", "done", "done", "done", "pending", "pending"]);
    expect(e["Acme Lending/QuickBooks Online"]!.waiting).toMatchObject({ party: "support", next: "Run the single-company test." });
    expect(e["Acme Lending/QuickBooks Online"]!.steps[0]!.evidence?.flow).toMatchObject({ kind: "intake_accepted", rowCount: 25 });
    expect(states("Acme Lending/FreeAgent")).toEqual(["in_progress", "pending", "pending", "pending", "pending", "pending"]);
    expect(e["Acme Lending/FreeAgent"]!.waiting.party).toBe("support");
    expect(states("Bluebird Commerce/Shopify").slice(0, 2)).toEqual(["done", "in_progress"]);
    expect(e["Bluebird Commerce/Shopify"]!.waiting).toMatchObject({ party: "customer", next: "Accept one of the proposed migration windows, or decline them and say what would suit." });
    expect(e["Bluebird Commerce/Wave"]).toMatchObject({ status: "on_hold", waiting: { party: null } });
    expect((await getIntake(t.database, staff, e["Acme Lending/FreeAgent"]!.id)).current).toMatchObject({ status: "submitted", warningCount: 1 });
  });

  it("holds the Acme QuickBooks Online file of 25 real tenants of mixed volume, two rotated after export", async () => {
    const id = (await byPlatform(t))["Acme Lending/QuickBooks Online"]!.id;
    const items = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, id)).orderBy(migrationItems.position);
    expect(items.map((i) => [i.name, i.recordsHint])).toEqual(ACME_QBO_COMPANIES.map((c) => [c.name, c.records]));
    expect(Math.min(...items.map((i) => i.recordsHint!))).toBeLessThan(10);
    expect(Math.max(...items.map((i) => i.recordsHint!))).toBeGreaterThan(3000);
    const state = (await sandbox.control.state()) as { tenants: { name: string; platformKey: string; generation: number }[] };
    const qboTenants = state.tenants.filter((x) => x.platformKey === "qhyg");
    expect(qboTenants).toHaveLength(25);
    const rotated = qboTenants.filter((x) => x.generation > qboTenants.find((y) => y.name === "Harbour Books Ltd")!.generation).map((x) => x.name);
    expect(rotated.sort()).toEqual([...ACME_QBO_ROTATED].sort());
  });

  it("hands over Bluebird's Zoho Books engagement through the real engine, one company waiting for its end customer with its reconnect link", async () => {
    const e = (await byPlatform(t))["Bluebird Commerce/Zoho Books"]!;
    expect(e.steps.map((s) => s.state)).toEqual(["done", "done", "done", "done", "done", "in_progress"]);
    expect(e.waiting).toMatchObject({ party: "customer", moves: { customer: { action: "acknowledge_report" } } });
    const items = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, e.id)).orderBy(migrationItems.position);
    expect(items.map((i) => [i.name, i.state])).toEqual([
      ["Bluebird Home", "verified"],
      ["Bluebird Garden", "verified"],
      ["Bluebird Café Société", "verified"],
      ["Bluebird Repairs", "reconnect_pending"],
    ]);
    expect(items[3]!.linkUrl).toBe(`${sandbox.url}/link/company/${items[3]!.companyId}`);
  });

  it("registers the sandbox as the built-in target, which every organisation's engagements start on and no organisation owns", async () => {
    const builtIn = await t.db.select().from(serviceTargets).where(eq(serviceTargets.builtIn, true));
    expect(builtIn).toMatchObject([{ name: "Ferry sandbox", baseUrl: sandbox.url, kind: "sandbox", organizationId: null }]);
    const e = await byPlatform(t);
    const onBluebirdAccount = ["Bluebird Commerce/Shopify", "Bluebird Commerce/Wave"];
    for (const key of Object.keys(e).filter((k) => !onBluebirdAccount.includes(k))) {
      expect([key, e[key]!.serviceTarget]).toEqual([key, expect.objectContaining({ id: builtIn[0]!.id, builtIn: true, problem: null })]);
    }
    for (const key of onBluebirdAccount) expect([key, e[key]!.serviceTarget]).toEqual([key, expect.objectContaining({ name: "Bluebird rehearsal account", builtIn: false, problem: null })]);
  });

  it("gives Bluebird's Shopify and Wave windows on its rehearsal account an overlap the calendar flags with the numbers, and Acme's window none", async () => {
    const e = await byPlatform(t);
    const sandboxAccess = { sandbox: { url: sandbox.url, adminToken: sandbox.adminToken } };
    const { rows } = await windowsWithOverlaps(t.database, sandboxAccess, { from: new Date(), to: new Date(Date.now() + 15 * 86_400_000) });
    const waveDay = rows.find((w) => w.engagementId === e["Bluebird Commerce/Wave"]!.id)!.startsAt.toISOString().slice(0, 10);
    const calendar = await getCalendar(t.database, sandboxAccess, staff, { view: "week", scope: "everyone", day: waveDay });
    const of = (key: string) => calendar.windows.filter((w) => w.reference === e[key]!.reference);
    const [wave] = of("Bluebird Commerce/Wave");
    expect(wave!.overlap).toMatchObject({ limit: "quota", allowed: BLUEBIRD_DAILY_QUOTA, daysSpanned: 1, with: [expect.objectContaining({ reference: e["Bluebird Commerce/Shopify"]!.reference })] });
    expect(wave!.overlap!.needed).toBeGreaterThan(BLUEBIRD_DAILY_QUOTA);
    expect(wave!.overlap!.text).toMatch(
      new RegExp(`^With ${e["Bluebird Commerce/Shopify"]!.reference} \\(Bluebird Commerce\\) on Bluebird rehearsal account: the companies need 2 days of the daily quota \\(18 requests\\) in Sat \\d+ \\w+, 14:00–20:00 UTC, which touches 1 UTC day \\(15 requests allowed\\)\\.$`),
    );
    // Shopify's Saturday window meets Wave's; its Sunday alternative does not.
    expect(of("Bluebird Commerce/Shopify").map((w) => w.overlap === null)).toEqual([false, true]);
    expect(of("Acme Lending/QuickBooks Online").map((w) => w.overlap)).toEqual([null]);
    expect(calendar.flagged).toBe(2);
  });

  it("changes nothing when run again", async () => {
    const before = [(await t.db.select({ n: count() }).from(engagements))[0]!.n, (await t.db.select({ n: count() }).from(auditEvents))[0]!.n];
    expect(await seedDemo(t.database, { ring: TEST_KEY_RING, sandbox: { url: sandbox.url, adminToken: sandbox.adminToken } })).toEqual({ seeded: false });
    expect([(await t.db.select({ n: count() }).from(engagements))[0]!.n, (await t.db.select({ n: count() }).from(auditEvents))[0]!.n]).toEqual(before);
  });
});

describe("the demo seed without a sandbox", () => {
  it("brings the same engagements to the same steps with stand-in credentials", async () => {
    const t = await createTestDatabase();
    try {
      await seedDemo(t.database, { ring: TEST_KEY_RING });
      const e = await byPlatform(t);
      expect(Object.keys(e).sort()).toEqual(["Acme Lending/FreeAgent", "Acme Lending/QuickBooks Online", "Bluebird Commerce/Shopify", "Bluebird Commerce/Wave"]);
      expect(e["Acme Lending/QuickBooks Online"]!.currentStep).toBe(5);
      expect(e["Acme Lending/QuickBooks Online"]!.serviceTarget).toBeNull();
    } finally {
      await t.close();
    }
  });

  it("marks a sandbox target already at SANDBOX_URL (from before the built-in flag) as the built-in one", async () => {
    const t = await createTestDatabase();
    try {
      const { id } = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Ferry sandbox", baseUrl: "http://127.0.0.1:4010", apiKey: "sandbox-key-0000", kind: "sandbox" });
      await seedDemo(t.database, { ring: TEST_KEY_RING, sandboxUrl: "http://127.0.0.1:4010" });
      expect((await t.db.select().from(serviceTargets).where(eq(serviceTargets.id, id)).limit(1))[0]).toMatchObject({ builtIn: true, organizationId: null });
      expect((await byPlatform(t))["Acme Lending/QuickBooks Online"]!.serviceTarget).toMatchObject({ id, builtIn: true });
    } finally {
      await t.close();
    }
  });
});
