import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, serviceTargets } from "@/db/schema";
import { callerAs } from "@/server/api/testing";
import { createTestDb, seedPeople, TEST_KEY_RING, type People, type TestDb } from "@/server/testing/test-db";
import { generateKeySpec, keyRingFrom, SecretDecryptionError } from "@/server/security/secrets";
import { createServiceTarget, revealTargetApiKey } from "./targets";

let t: TestDb;
let p: People;
beforeEach(async () => {
  t = createTestDb();
  p = await seedPeople(t.db);
});
afterEach(() => t.close());

const decryptions = () => t.db.select().from(auditEvents).where(eq(auditEvents.action, "secret.decrypted")).all();

describe("service target API keys", () => {
  it("are masked when encrypted, so listing decrypts nothing and one undecryptable key cannot break the list", async () => {
    const { id } = createServiceTarget(t.db, TEST_KEY_RING, p.admin, { name: "Production", baseUrl: "https://api.example.test", apiKey: "live-key-abcdef123456", kind: "service" });
    createServiceTarget(t.db, TEST_KEY_RING, p.admin, { name: "Staging", baseUrl: "https://staging.example.test", apiKey: "stage-key-999988887777", kind: "service" });
    // A value no key of the ring opens any more (e.g. its key was retired too early).
    t.db.update(serviceTargets).set({ apiKeyCipher: "v1.gone.AAAA.BBBB.CCCC" }).where(eq(serviceTargets.id, id)).run();

    const listed = await callerAs(t.db, p.support).targets.list();
    expect(listed.map((x) => [x.name, x.apiKeyMasked])).toEqual([
      ["Production", "••••3456"],
      ["Staging", "••••7777"],
    ]);
    expect(decryptions()).toEqual([]);
    expect(JSON.stringify(t.db.select().from(serviceTargets).all())).not.toMatch(/live-key|stage-key/);
  });

  it("are decrypted only to be used, and each decryption is an audit event without the key", () => {
    const { id } = createServiceTarget(t.db, TEST_KEY_RING, p.admin, { name: "Production", baseUrl: "https://api.example.test", apiKey: "live-key-abcdef123456", kind: "service" });
    expect(revealTargetApiKey(t.db, TEST_KEY_RING, null, id, "pilot test")).toBe("live-key-abcdef123456");
    const [event] = decryptions();
    expect(event).toMatchObject({ targetType: "service_target", targetId: id, after: { purpose: "pilot test" } });
    expect(JSON.stringify(event)).not.toContain("live-key");
  });

  it("a key that cannot be decrypted fails its use clearly, and records no decryption", () => {
    const { id } = createServiceTarget(t.db, TEST_KEY_RING, p.admin, { name: "Production", baseUrl: "https://api.example.test", apiKey: "live-key-abcdef123456", kind: "service" });
    const otherRing = keyRingFrom(generateKeySpec("other"));
    expect(() => revealTargetApiKey(t.db, otherRing, null, id, "pilot test")).toThrow(SecretDecryptionError);
    expect(decryptions()).toEqual([]);
  });
});
