import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, serviceTargets } from "@/db/schema";
import { callerAs } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { generateKeySpec, keyRingFrom, SecretDecryptionError } from "@/server/security/secrets";
import { createServiceTarget, ensureBuiltInSandbox, revealTargetApiKey } from "./targets";

let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const decryptions = () => t.db.select().from(auditEvents).where(eq(auditEvents.action, "secret.decrypted"));

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
