/**
 * Service targets in the domain: their keys encrypted and decrypted only to be used, the built-in
 * sandbox, and admins' changes at once (on PostgreSQL really in parallel, each transaction on a
 * connection of its own): a target's row is locked while it is checked, so each change happens once.
 *
 * Runs on both databases: admins' changes at once, each transaction on a connection of its own.
 * @module-tag both-databases
 */
import { and, eq } from "drizzle-orm";
import { Client } from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { databaseDialect } from "@/db/dialect";
import { auditEvents, engagements, serviceTargets } from "@/db/schema";
import { callerAs } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { generateKeySpec, keyRingFrom, SecretDecryptionError } from "@/server/security/secrets";
import { archiveServiceTarget, createServiceTarget, ensureBuiltInSandbox, revealTargetApiKey, setTargetLimits } from "./targets";

let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const decryptions = () => t.db.select().from(auditEvents).where(eq(auditEvents.action, "secret.decrypted"));
const audited = (action: string, targetId: string) => t.db.select().from(auditEvents).where(and(eq(auditEvents.action, action), eq(auditEvents.targetId, targetId)));
const orgATarget = async (name: string) =>
  (await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name, baseUrl: "https://api.example.test", apiKey: `${name.toLowerCase().replace(/\W/g, "-")}-key-1234`, kind: "service", organizationId: p.orgA })).id;
/** Opens `n` connections first (queries at once each take one), so requests made at once do not queue behind their opening. */
const openConnections = (n: number) => Promise.all(Array.from({ length: n }, () => t.db.select().from(serviceTargets)));
/** An engagement of Org A written as it is stored, pointed at a target or at none. */
async function engagementOn(serviceTargetId: string | null, reference: string) {
  const [eng] = await t.db.insert(engagements).values({ reference, organizationId: p.orgA, platformKey: "qhyg", ownerId: p.support.id, serviceTargetId }).returning();
  return eng!;
}

describe("service target API keys", () => {
  it("are masked when encrypted, so listing decrypts nothing and one undecryptable key cannot break the list", async () => {
    const { id } = await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Production", baseUrl: "https://api.example.test", apiKey: "live-key-abcdef123456", kind: "service" });
    await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Staging", baseUrl: "https://staging.example.test", apiKey: "stage-key-999988887777", kind: "service" });
    // A value no key of the ring opens any more (e.g. its key was retired too early).
    await t.db.update(serviceTargets).set({ apiKeyCipher: "v1.gone.AAAA.BBBB.CCCC" }).where(eq(serviceTargets.id, id));

    const listed = await callerAs(t.database, p.admin).targets.list();
    expect(listed.map((x) => [x.name, x.apiKeyMasked])).toEqual([
      ["Production", "••••3456"],
      ["Staging", "••••7777"],
    ]);
    expect(await decryptions()).toEqual([]);
    expect(JSON.stringify(await t.db.select().from(serviceTargets))).not.toMatch(/live-key|stage-key/);
  });

  it("are decrypted only to be used, and each decryption is an audit event without the key", async () => {
    const { id } = await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Production", baseUrl: "https://api.example.test", apiKey: "live-key-abcdef123456", kind: "service" });
    expect(await revealTargetApiKey(t.database, TEST_KEY_RING, null, { targetId: id, purpose: "pilot test" })).toBe("live-key-abcdef123456");
    const [event] = await decryptions();
    expect(event).toMatchObject({ targetType: "service_target", targetId: id, after: { purpose: "pilot test" } });
    expect(JSON.stringify(event)).not.toContain("live-key");
  });

  it("a key that cannot be decrypted fails its use clearly, and records no decryption", async () => {
    const { id } = await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Production", baseUrl: "https://api.example.test", apiKey: "live-key-abcdef123456", kind: "service" });
    const otherRing = keyRingFrom(generateKeySpec("other"));
    await expect(revealTargetApiKey(t.database, otherRing, null, { targetId: id, purpose: "pilot test" })).rejects.toThrow(SecretDecryptionError);
    expect(await decryptions()).toEqual([]);
  });
});

describe("the built-in sandbox", () => {
  const url = "http://127.0.0.1:4010";
  const builtIn = () => t.db.select().from(serviceTargets).where(eq(serviceTargets.builtIn, true));

  it("is added by Ferry's start with a client of its own when there is none, once", async () => {
    let made = 0;
    const newApiKey = async () => `sandbox-client-key-${++made}0000`;
    expect(await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: `${url}/`, newApiKey })).toMatchObject({ how: "created" });
    expect(await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url, newApiKey })).toMatchObject({ how: "existing" });
    expect(made).toBe(1);
    expect(await builtIn()).toMatchObject([{ name: "Ferry sandbox", baseUrl: url, kind: "sandbox", organizationId: null, apiKeyMask: "••••0000" }]);
    expect(await revealTargetApiKey(t.database, TEST_KEY_RING, null, { targetId: (await builtIn())[0]!.id, purpose: "check" })).toBe("sandbox-client-key-10000");
  });

  it("is an existing sandbox target at SANDBOX_URL (from before the flag), marked and taken out of the organisation the migration gave it", async () => {
    const { id } = await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Ferry sandbox", baseUrl: url, apiKey: "old-sandbox-key-1234", kind: "sandbox", organizationId: p.orgA, requestsPerMinute: 60 });
    expect(await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url })).toEqual({ id, how: "marked" });
    expect(await builtIn()).toMatchObject([{ id, organizationId: null, requestsPerMinute: null }]);
    expect((await t.db.select().from(auditEvents).where(eq(auditEvents.action, "service_target.marked_built_in")).limit(1))[0]).toMatchObject({ targetId: id, before: { organization: "Org A" }, after: { name: "Ferry sandbox", baseUrl: url } });
  });

  it("is never a target at another address, or one an admin called a real service, and without a way to make one there is none", async () => {
    await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Other sandbox", baseUrl: "http://127.0.0.1:4999", apiKey: "other-key-1234", kind: "sandbox" });
    await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Real, at the sandbox's address", baseUrl: url, apiKey: "real-key-1234", kind: "service" });
    expect(await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url })).toBeNull();
    expect(await builtIn()).toEqual([]);
  });
});

describe("admins changing one target at once", () => {
  it("four setting the same limits change them once (the row is locked while checked)", async () => {
    const id = await orgATarget("Limits");
    await openConnections(4);
    await Promise.all([1, 2, 3, 4].map(() => setTargetLimits(t.database, p.admin, { targetId: id, requestsPerMinute: 120, dailyQuota: 5000 })));
    expect(await audited("service_target.limits_changed", id)).toHaveLength(1);
  });

  it("refuses to archive a target an unfinished engagement points at, and archives it once, whoever else tries at once", async () => {
    const id = await orgATarget("In use");
    const eng = await engagementOn(id, "FER-9001");
    await expect(archiveServiceTarget(t.database, p.admin, { targetId: id })).rejects.toThrow("FER-9001, Org A");
    await t.db.update(engagements).set({ status: "completed" }).where(eq(engagements.id, eng.id));
    await openConnections(3);
    const tries = await Promise.allSettled([1, 2, 3].map(() => archiveServiceTarget(t.database, p.admin, { targetId: id })));
    expect(tries.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(tries.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(Array(2).fill("In use is already archived."));
    expect(await audited("service_target.archived", id)).toHaveLength(1);
  });

  // Needs a second connection holding an uncommitted change while the archive runs: SQLite's one writer never lets the two overlap.
  it.skipIf(databaseDialect() !== "postgresql")("waits for an engagement being pointed at the target, then refuses to archive it", async () => {
    const id = await orgATarget("Being chosen");
    const eng = await engagementOn(null, "FER-9002");
    // Staff point the engagement at the target in a transaction that has not committed yet.
    const other = new Client({ connectionString: t.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query("begin");
      await other.query("update engagements set service_target_id = $1 where id = $2", [id, eng.id]);
      const archiving = archiveServiceTarget(t.database, p.admin, { targetId: id }).then(
        () => "archived",
        (e: Error) => e.message,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other.query("commit");
      expect(await archiving).toContain("FER-9002, Org A");
    } finally {
      await other.end();
    }
    expect(await audited("service_target.archived", id)).toEqual([]);
  });

  it("registers one built-in sandbox when four replicas start at once", async () => {
    await openConnections(4);
    const answers = await Promise.all([1, 2, 3, 4].map((n) => ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: "http://127.0.0.1:4010", newApiKey: async () => `sandbox-key-${n}0000` })));
    const builtIn = await t.db.select().from(serviceTargets).where(eq(serviceTargets.builtIn, true));
    expect(builtIn).toHaveLength(1);
    expect(new Set(answers.map((a) => a!.id))).toEqual(new Set([builtIn[0]!.id]));
    expect(answers.filter((a) => a!.how === "created")).toHaveLength(1);
  });
});

describe("where a target may point, and what it is called", () => {
  const create = (baseUrl: string, options: Parameters<typeof createServiceTarget>[4] = {}, name = "Somewhere") =>
    createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name, baseUrl, apiKey: "some-key-1234", kind: "service", organizationId: p.orgA }, options);
  const resolveTo = (address: string) => ({ resolve: async () => [{ address, family: address.includes(":") ? 6 : 4 }] });

  it("refuses link-local, metadata and private addresses, written in the URL or resolved from its name, when it is saved", async () => {
    for (const [baseUrl, options, words] of [
      ["https://10.0.0.5", {}, "10.0.0.5 is a private network address"],
      ["https://172.16.4.4/codat", {}, "172.16.4.4 is a private network address"],
      ["https://192.168.1.1", {}, "192.168.1.1 is a private network address"],
      ["https://[fd00::1]", {}, "fd00::1 is a private network address"],
      ["https://169.254.169.254", {}, "169.254.169.254 is a link-local, metadata"],
      ["https://internal.example.test", resolveTo("10.20.30.40"), "internal.example.test resolves to 10.20.30.40 is a private network address"],
      ["https://metadata.example.test", resolveTo("169.254.169.254"), "resolves to 169.254.169.254 is a link-local, metadata"],
      ["https://v6.example.test", resolveTo("fd12::1"), "resolves to fd12::1 is a private network address"],
    ] as const) {
      await expect(create(baseUrl, options), baseUrl).rejects.toMatchObject({ code: "BAD_INPUT", fields: { baseUrl: expect.stringContaining(words) as string } });
    }
    expect(await t.db.select().from(serviceTargets)).toEqual([]);
    // A public address, and a name that resolves to one (or not at all yet: the call checks again).
    await create("https://api.example.test", resolveTo("93.184.216.34"));
    await create("https://93.184.216.34");
    await create("https://not-yet.example.test", { resolve: async () => Promise.reject(Object.assign(new Error("not found"), { code: "ENOTFOUND" })) });
  });

  it("takes private addresses when the operator allows private targets, but never link-local or metadata ones, nor plain http beyond loopback", async () => {
    const before = process.env.FERRY_PRIVATE_TARGETS;
    process.env.FERRY_PRIVATE_TARGETS = "allow";
    try {
      await create("https://10.0.0.5");
      await create("https://internal.example.test", resolveTo("192.168.7.7"));
      await expect(create("https://169.254.169.254")).rejects.toMatchObject({ fields: { baseUrl: expect.stringContaining("link-local, metadata") as string } });
      await expect(create("https://internal.example.test", resolveTo("169.254.10.10"))).rejects.toMatchObject({ fields: { baseUrl: expect.stringContaining("link-local, metadata") as string } });
      await expect(create("http://10.0.0.5")).rejects.toMatchObject({ fields: { baseUrl: expect.stringContaining("must use https") as string } });
    } finally {
      if (before === undefined) delete process.env.FERRY_PRIVATE_TARGETS;
      else process.env.FERRY_PRIVATE_TARGETS = before;
    }
  });

  it("refuses names with control characters, when created and when renamed", async () => {
    for (const name of ["Prod\nAcme", "Prod\u001b[31m", "Prod\tAcme", "Prod\u202eemcA", "Prod\u0000"]) {
      await expect(create("https://api.example.test", {}, name), JSON.stringify(name)).rejects.toMatchObject({ code: "BAD_INPUT", fields: { name: expect.stringContaining("control characters") as string } });
    }
    const { id } = await create("https://api.example.test", {}, "Prod  Acme");
    await expect(callerAs(t.database, p.admin).targets.rename({ targetId: id, name: "Evil\r\nline" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect((await t.db.select({ name: serviceTargets.name }).from(serviceTargets).where(eq(serviceTargets.id, id)))[0]?.name).toBe("Prod Acme");
  });
});
