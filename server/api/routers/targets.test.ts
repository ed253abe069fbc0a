/**
 * Service targets through the procedures, on a real temporary database: a target is one
 * customer's account, so an engagement is offered and may use only its organisation's targets or
 * the built-in sandbox; the https rule; and the admin's rename, known limits, key replacement,
 * archive and assignment, each audited.
 */
import fs from "node:fs";
import { and, eq, is, Table } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as schema from "@/db/schema";
import { auditEvents, engagements, serviceTargets } from "@/db/schema";
import { ensureBuiltInSandbox, revealTargetApiKey } from "@/server/targets/targets";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const admin = () => callerAs(t.database, p.admin);
const support = () => callerAs(t.database, p.support);
const row = async (id: string) => (await t.db.select().from(serviceTargets).where(eq(serviceTargets.id, id)).limit(1))[0]!;
const events = (action: string) => t.db.select().from(auditEvents).where(eq(auditEvents.action, action)).orderBy(auditEvents.id);
/** Every row of every table, as text: what no replaced key may be left in, on either database. */
const everyRow = async () => JSON.stringify(await Promise.all(Object.values(schema).filter((v): v is typeof serviceTargets => is(v, Table)).map((table) => t.db.select().from(table))));
const targetOf = async (engagementId: string) => (await t.db.select({ id: engagements.serviceTargetId }).from(engagements).where(eq(engagements.id, engagementId)).limit(1))[0]!.id;

/** Acme's (org A) and Bluebird's (org B) own accounts, an unassigned one, and the built-in sandbox. */
async function targets() {
  const builtIn = (await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: "http://127.0.0.1:4010", newApiKey: async () => "sandbox-demo-key-0001" }))!.id;
  const acme = (await admin().targets.create({ name: "Production — Org A", baseUrl: "https://api.codat.io", apiKey: "live-key-orga-1111", organizationId: p.orgA })).id;
  const bluebird = (await admin().targets.create({ name: "Production — Org B", baseUrl: "https://api.codat.io", apiKey: "live-key-orgb-2222", organizationId: p.orgB })).id;
  const unassigned = (await admin().targets.create({ name: "Staging (whose?)", baseUrl: "https://staging.example.test", apiKey: "stage-key-3333" })).id;
  return { builtIn, acme, bluebird, unassigned };
}

describe("creating a target", () => {
  it("stores the API key encrypted, lists it masked with its organisation, and Org A's engagement uses it", async () => {
    const { id } = await admin().targets.create({ name: "Production", baseUrl: "https://api.codat.io/", apiKey: "live-key-abcdef123456", organizationId: p.orgA });
    expect((await row(id)).apiKeyCipher).not.toContain("live-key");
    const [listed] = await admin().targets.list();
    expect(listed).toMatchObject({
      name: "Production",
      baseUrl: "https://api.codat.io",
      kind: "service",
      builtIn: false,
      organization: { id: p.orgA, name: "Org A" },
      apiKeyMasked: "••••3456",
      limitsText: expect.stringContaining("1,000 requests per minute per address"),
      inUse: { count: 0, engagements: [] },
    });
    expect(JSON.stringify(listed)).not.toContain("live-key");
    expect((await events("service_target.created"))[0]!.after).toEqual({ name: "Production", baseUrl: "https://api.codat.io", kind: "service", organization: "Org A", requestsPerMinute: null, dailyQuota: null });

    const eng = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    await support().targets.assign({ engagementId: eng.id, serviceTargetId: id });
    const detail = await support().engagements.get({ engagementId: eng.id });
    expect(detail.serviceTarget).toMatchObject({ id, name: "Production", builtIn: false, problem: null });
    const [event] = await support().engagements.timeline({ engagementId: eng.id });
    expect(event!.summary).toBe("Pointed the engagement at Production (https://api.codat.io)");
    expect((await admin().targets.list())[0]!.inUse).toEqual({ count: 1, engagements: [`${eng.reference} (Org A)`] });
  });

  it.each([
    ["ftp://api.example.test", "must start with https://"],
    ["http://api.codat.io", "must use https"],
    ["http://10.0.0.5:8080", "must use https"],
    ["http://localhost.example.test", "must use https"],
    ["https://user:secret@api.codat.io", "not in the URL"],
    ["https://api.codat.io/?key=abc", "leave out any ? or # part"],
    ["not a url", "Enter the service's base URL"],
  ])("refuses the base URL %s with a field error, storing nothing", async (baseUrl, message) => {
    const error = await trpcError(admin().targets.create({ name: "Bad", baseUrl, apiKey: "some-key-0000" }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.cause).toMatchObject({ fields: { baseUrl: expect.stringContaining(message) } });
    expect(await t.db.select().from(serviceTargets)).toHaveLength(0);
    expect(await events("service_target.created")).toHaveLength(0);
  });

  it.each(["http://127.0.0.1:4010", "http://127.8.9.10", "http://localhost:8080/codat", "http://[::1]:4010", "https://api.codat.io"])("takes %s (https, or plain http on this machine only)", async (baseUrl) => {
    await expect(admin().targets.create({ name: "Fine", baseUrl, apiKey: "some-key-0000" })).resolves.toMatchObject({ id: expect.any(String) });
  });

  it("refuses an unknown organisation and limits that are not whole numbers in range", async () => {
    expect((await trpcError(admin().targets.create({ name: "X", baseUrl: "https://api.codat.io", apiKey: "k-123456789", organizationId: "no-such-org" }))).cause).toMatchObject({
      fields: { organizationId: "Choose an existing customer organisation." },
    });
    for (const requestsPerMinute of [0, 1.5, -3, "many", 99_999_999]) {
      const error = await trpcError(admin().targets.create({ name: "X", baseUrl: "https://api.codat.io", apiKey: "k-123456789", requestsPerMinute }));
      expect(error.code).toBe("BAD_REQUEST");
      expect(error.message).toContain("Requests per minute is a whole number from 1 to 10,000,000");
    }
    expect(await t.db.select().from(serviceTargets)).toHaveLength(0);
  });

  it("is never the built-in sandbox, whatever kind the admin picks: a 'sandbox' at a real URL keeps the real limits", async () => {
    const { id } = await admin().targets.create({ name: "Sneaky", baseUrl: "https://api.codat.io", apiKey: "live-key-9999", kind: "sandbox", organizationId: p.orgA });
    expect((await row(id)).builtIn).toBe(false);
    const listed = (await admin().targets.list()).find((x) => x.id === id)!;
    expect(listed).toMatchObject({ kind: "sandbox", builtIn: false, limitsText: "The service's published limits (1,000 requests per minute per address; daily quota 1,000 × (1 + connected companies))." });
    // And a new engagement still starts on nothing rather than on it.
    const eng = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    expect(await targetOf(eng.id)).toBeNull();
  });
});

describe("pointing an engagement at a target", () => {
  it("offers only the built-in sandbox and the engagement's organisation's targets, current one first-class, and the engagement starts on the built-in sandbox", async () => {
    const tg = await targets();
    const eng = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    expect(await targetOf(eng.id)).toBe(tg.builtIn);
    const choices = await support().targets.choices({ engagementId: eng.id });
    expect(choices.current).toEqual({ id: tg.builtIn, name: "Ferry sandbox", problem: null });
    expect(choices.options.map((o) => [o.name, o.builtIn, o.apiKeyMasked])).toEqual([
      ["Ferry sandbox", true, "••••0001"],
      ["Production — Org A", false, "••••1111"],
    ]);
    const other = await support().targets.choices({ engagementId: (await support().engagements.create({ organizationId: p.orgB, platformKey: "qhyg" })).id });
    expect(other.options.map((o) => o.name)).toEqual(["Ferry sandbox", "Production — Org B"]);
  });

  it("refuses another organisation's target, an unassigned one and an archived one, changing nothing", async () => {
    const tg = await targets();
    const eng = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    const archived = (await admin().targets.create({ name: "Old Org A", baseUrl: "https://api.codat.io", apiKey: "old-key-4444", organizationId: p.orgA })).id;
    await admin().targets.archive({ targetId: archived });
    const cases: [string, string][] = [
      [tg.bluebird, "Production — Org B is another organisation's account on the service"],
      [tg.unassigned, "Staging (whose?) is not assigned to an organisation yet: an admin assigns it under Admin → Service targets"],
      [archived, "Old Org A is archived: choose another service target."],
      ["no-such-target", "Choose an existing service target."],
    ];
    for (const [serviceTargetId, message] of cases) {
      const error = await trpcError(support().targets.assign({ engagementId: eng.id, serviceTargetId }));
      expect(error.code).toBe("BAD_REQUEST");
      expect((error.cause as unknown as { fields: Record<string, string> }).fields.serviceTargetId).toContain(message);
    }
    expect(await targetOf(eng.id)).toBe(tg.builtIn);
    expect(await events("engagement.target_changed")).toHaveLength(0);
    await support().targets.assign({ engagementId: eng.id, serviceTargetId: tg.acme });
    await support().targets.assign({ engagementId: eng.id, serviceTargetId: tg.builtIn });
    expect(await targetOf(eng.id)).toBe(tg.builtIn);
  });

  it("says so when an engagement points at a target it may not use (data from before targets had organisations)", async () => {
    const tg = await targets();
    const eng = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    await t.db.update(engagements).set({ serviceTargetId: tg.bluebird }).where(eq(engagements.id, eng.id));
    const choices = await support().targets.choices({ engagementId: eng.id });
    expect(choices.current).toMatchObject({ id: tg.bluebird, problem: expect.stringContaining("another organisation's account") });
    expect(choices.options.map((o) => o.id)).not.toContain(tg.bluebird);
    expect((await support().engagements.get({ engagementId: eng.id })).serviceTarget).toMatchObject({ id: tg.bluebird, problem: expect.stringContaining("another organisation's account") });
  });

  it("is for staff: a customer is refused, an unknown engagement is not found", async () => {
    const eng = await support().engagements.create({ organizationId: p.orgB, platformKey: "qhyg" });
    expect((await trpcError(callerAs(t.database, p.customerA).targets.choices({ engagementId: eng.id }))).code).toBe("FORBIDDEN");
    expect((await trpcError(support().targets.choices({ engagementId: "no-such-engagement" }))).code).toBe("NOT_FOUND");
  });
});

describe("an admin", () => {
  it("renames a target, audited; the engagement keeps pointing at it", async () => {
    const tg = await targets();
    await admin().targets.rename({ targetId: tg.acme, name: "  Acme production  account " });
    expect((await row(tg.acme)).name).toBe("Acme production account");
    expect((await events("service_target.renamed"))[0]).toMatchObject({ targetId: tg.acme, organizationId: p.orgA, before: { name: "Production — Org A" }, after: { name: "Acme production account" } });
    expect((await trpcError(admin().targets.rename({ targetId: tg.acme, name: "   " }))).code).toBe("BAD_REQUEST");
    expect((await trpcError(admin().targets.rename({ targetId: "nope", name: "X" }))).code).toBe("NOT_FOUND");
  });

  it("replaces a key: the old ciphertext is gone from the file, the mask follows, the decryptions use the new key, and it is audited without either key", async () => {
    const tg = await targets();
    const eng = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    await support().targets.assign({ engagementId: eng.id, serviceTargetId: tg.acme });
    const oldCipher = (await row(tg.acme)).apiKeyCipher;
    const answer = await admin().targets.replaceKey({ targetId: tg.acme, apiKey: " live-key-orga-NEW9 " });
    expect(answer).toEqual({ apiKeyMasked: "••••NEW9" });
    expect((await row(tg.acme)).apiKeyMask).toBe("••••NEW9");
    expect(await revealTargetApiKey(t.database, TEST_KEY_RING, null, { targetId: tg.acme, purpose: "check" })).toBe("live-key-orga-NEW9");
    const rows = await everyRow();
    expect(rows).not.toContain(oldCipher);
    expect(rows).toContain((await row(tg.acme)).apiKeyCipher);
    // SQLite also keeps no copy in its file's free pages (secure_delete); PostgreSQL has no file of ours to read.
    for (const file of t.file ? [t.file, `${t.file}-wal`] : []) {
      if (fs.existsSync(file)) expect(fs.readFileSync(file).includes(Buffer.from(oldCipher)), `${file} still holds the old ciphertext`).toBe(false);
    }
    const [replaced] = await events("service_target.key_replaced");
    expect(replaced).toMatchObject({ targetId: tg.acme, before: { keyMask: "••••1111" }, after: { keyMask: "••••NEW9" } });
    expect(JSON.stringify(await t.db.select().from(auditEvents))).not.toMatch(/live-key-orga/);
    // The engagement pointed at it hears of it on its timeline.
    const [latest] = await support().engagements.timeline({ engagementId: eng.id });
    expect(latest!.summary).toBe("An admin replaced the API key of Production — Org A (now ••••NEW9); tests and bulk runs use it from their next start or resume");
  });

  it("sets and clears a target's known limits, which replace the published ones; the built-in sandbox keeps its own", async () => {
    const tg = await targets();
    await admin().targets.setLimits({ targetId: tg.acme, requestsPerMinute: "600", dailyQuota: 25_000 });
    expect(await row(tg.acme)).toMatchObject({ requestsPerMinute: 600, dailyQuota: 25_000 });
    let listed = (await admin().targets.list()).find((x) => x.id === tg.acme)!;
    expect(listed.limitsText).toBe("The target's known limits (600 requests per minute, set on the target; daily quota 25,000 requests, set on the target).");
    await admin().targets.setLimits({ targetId: tg.acme, requestsPerMinute: "", dailyQuota: null });
    listed = (await admin().targets.list()).find((x) => x.id === tg.acme)!;
    expect(listed).toMatchObject({ requestsPerMinute: null, dailyQuota: null, limitsText: expect.stringContaining("published") });
    expect((await events("service_target.limits_changed")).map((e) => e.after)).toEqual([
      { requestsPerMinute: 600, dailyQuota: 25_000 },
      { requestsPerMinute: null, dailyQuota: null },
    ]);
    expect(await trpcError(admin().targets.setLimits({ targetId: tg.builtIn, requestsPerMinute: 60, dailyQuota: null }))).toMatchObject({
      code: "PRECONDITION_FAILED",
      message: expect.stringContaining("The built-in sandbox keeps the limits configured on it"),
    });
  });

  it("archives a target only when no unfinished engagement uses it; archived targets are offered nowhere and keep their record", async () => {
    const tg = await targets();
    const eng = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    await support().targets.assign({ engagementId: eng.id, serviceTargetId: tg.acme });
    const inUse = await trpcError(admin().targets.archive({ targetId: tg.acme }));
    expect(inUse).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining(`in use by an engagement that is not finished (${eng.reference}, Org A)`) });
    await support().engagements.setStatus({ engagementId: eng.id, status: "on_hold", reasonCode: "customer_unavailable", reason: "Waiting" });
    expect((await trpcError(admin().targets.archive({ targetId: tg.acme }))).code).toBe("PRECONDITION_FAILED");
    expect((await row(tg.acme)).archivedAt).toBeNull();

    await support().engagements.setStatus({ engagementId: eng.id, status: "cancelled", reasonCode: "customer_withdrew", reason: "Customer left" });
    await admin().targets.archive({ targetId: tg.acme });
    expect((await row(tg.acme)).archivedAt).toBeInstanceOf(Date);
    expect((await events("service_target.archived"))[0]).toMatchObject({ targetId: tg.acme, after: { name: "Production — Org A" } });
    const fresh = await support().engagements.create({ organizationId: p.orgA, platformKey: "fbrh" });
    expect((await support().targets.choices({ engagementId: fresh.id })).options.map((o) => o.id)).toEqual([tg.builtIn]);
    expect((await admin().targets.list()).find((x) => x.id === tg.acme)!.archivedAt).toBeInstanceOf(Date);
    // Kept as it was, for the record.
    expect((await trpcError(admin().targets.rename({ targetId: tg.acme, name: "New" }))).code).toBe("PRECONDITION_FAILED");
    expect((await trpcError(admin().targets.replaceKey({ targetId: tg.acme, apiKey: "another-key-5555" }))).code).toBe("PRECONDITION_FAILED");
    expect(await trpcError(admin().targets.archive({ targetId: tg.builtIn }))).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("cannot be archived") });
  });

  it("assigns an unassigned target to an organisation, whose engagements may then use it; an assigned one or the built-in sandbox is refused", async () => {
    const tg = await targets();
    const eng = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    expect((await trpcError(support().targets.assign({ engagementId: eng.id, serviceTargetId: tg.unassigned }))).code).toBe("BAD_REQUEST");
    expect((await trpcError(admin().targets.assignOrganization({ targetId: tg.unassigned, organizationId: "no-such-org" }))).cause).toMatchObject({
      fields: { organizationId: "Choose an existing customer organisation." },
    });
    await admin().targets.assignOrganization({ targetId: tg.unassigned, organizationId: p.orgA });
    expect((await row(tg.unassigned)).organizationId).toBe(p.orgA);
    expect((await events("service_target.organization_assigned"))[0]).toMatchObject({ targetId: tg.unassigned, organizationId: p.orgA, after: { organization: "Org A" } });
    await support().targets.assign({ engagementId: eng.id, serviceTargetId: tg.unassigned });
    expect(await targetOf(eng.id)).toBe(tg.unassigned);

    expect(await trpcError(admin().targets.assignOrganization({ targetId: tg.unassigned, organizationId: p.orgB }))).toMatchObject({ code: "PRECONDITION_FAILED", message: "Staging (whose?) already belongs to Org A." });
    expect(await trpcError(admin().targets.assignOrganization({ targetId: tg.builtIn, organizationId: p.orgB }))).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("belongs to none") });
    expect((await row(tg.builtIn)).organizationId).toBeNull();
    expect(await t.db.select().from(auditEvents).where(and(eq(auditEvents.action, "service_target.organization_assigned"), eq(auditEvents.organizationId, p.orgB)))).toHaveLength(0);
  });
});
