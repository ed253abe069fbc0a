/**
 * Runs on both databases: items inserted in batches (each dialect's statement size).
 * @module-tag both-databases
 */
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { readSteps, sqliteClientOf } from "@/db/database";
import { engagements, intakeSubmissions, migrationItems } from "@/db/schema";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { getManagedPlatform } from "@/server/platforms";
import { generateKeySpec, keyRingFrom, SecretDecryptionError } from "@/server/security/secrets";
import { createTestDatabase, seedPeople, TEST_KEY_RING, TEST_NOTIFY } from "@/server/testing/test-db";
import { createEngagement } from "@/server/engagements/create-engagement";
import { reconcile } from "@/server/migration/reconciliation";
import { insertMigrationItems, sealMigrationItems } from "./insert-items";
import { maskCredentials, openClientSecret, openItemCredentials, sealClientSecret, sealItemCredentials } from "./item-credentials";

const qbo = getManagedPlatform("qhyg")!;
const shopify = getManagedPlatform("fztf")!;
const ring = keyRingFrom(generateKeySpec("k1"));

describe("migration item credentials", () => {
  const creds = credentialsFor(qbo, 7);
  const ref = { engagementId: "eng-1", itemId: "item-1" };

  it("round-trip, with no secret in the ciphertext", () => {
    const sealed = sealItemCredentials(ring, ref, creds);
    expect(sealed).not.toContain(creds.accessToken);
    expect(sealed).not.toContain(creds.refreshToken);
    expect(openItemCredentials(ring, ref, sealed)).toEqual(creds);
  });

  it("do not open for another row, another engagement, another key, or once altered", () => {
    const sealed = sealItemCredentials(ring, ref, creds);
    expect(() => openItemCredentials(ring, { ...ref, itemId: "item-2" }, sealed)).toThrow(SecretDecryptionError);
    expect(() => openItemCredentials(ring, { ...ref, engagementId: "eng-2" }, sealed)).toThrow(SecretDecryptionError);
    expect(() => openItemCredentials(keyRingFrom(generateKeySpec("k1")), ref, sealed)).toThrow(SecretDecryptionError);
    const parts = sealed.split(".");
    const ct = Buffer.from(parts[4]!, "base64url");
    ct[0] = ct[0]! ^ 1;
    parts[4] = ct.toString("base64url");
    expect(() => openItemCredentials(ring, ref, parts.join("."))).toThrow(SecretDecryptionError);
  });

  it("client secrets are bound to their submission", () => {
    const sealed = sealClientSecret(ring, { engagementId: "e", submissionId: "s1" }, "oauth-client-secret-123");
    expect(openClientSecret(ring, { engagementId: "e", submissionId: "s1" }, sealed)).toBe("oauth-client-secret-123");
    expect(() => openClientSecret(ring, { engagementId: "e", submissionId: "s2" }, sealed)).toThrow(SecretDecryptionError);
  });

  it("masks secret fields only", () => {
    const masked = maskCredentials(qbo, creds);
    expect(masked.accessToken).toBe(`••••${creds.accessToken!.slice(-4)}`);
    expect(masked.refreshToken).toBe(`••••${creds.refreshToken!.slice(-4)}`);
    expect(masked.realmId).toBe(creds.realmId);
    expect(masked.expiresAt).toBe(creds.expiresAt);
    expect(maskCredentials(shopify, credentialsFor(shopify, 1)).shopDomain).toMatch(/myshopify\.com$/);
  });
});

describe("insertMigrationItems", () => {
  it("stores one pending item per row in file order, each sealed for its own row, and no plain secret; the reconciliation counts them", async () => {
    const t = await createTestDatabase();
    try {
      const people = await seedPeople(t.database);
      const eng = await createEngagement(t.database, TEST_NOTIFY, people.support, { organizationId: people.orgA, platformKey: "qhyg" });
      const [submission] = await t.db
        .insert(intakeSubmissions)
        .values({
          engagementId: eng.id,
          status: "submitted",
          clientId: "client",
          clientSecretMask: "••••",
          contacts: [],
          fileName: "f.csv",
          fileKind: "csv",
          rowCount: 1201,
          warningCount: 0,
          countsByKind: {},
          preview: [],
          submittedAt: new Date(),
        })
        .returning({ id: intakeSubmissions.id });
      const submissionId = submission!.id;
      const rows = Array.from({ length: 1201 }, (_, i) => ({
        line: i + 2,
        name: `Company ${i}`,
        externalRef: i % 2 ? `REF-${i}` : null,
        records: i % 3 ? 100 + i : null,
        credentials: credentialsFor(qbo, i),
      }));
      const sealedItems = sealMigrationItems({ ring: TEST_KEY_RING, platform: qbo, engagementId: eng.id, submissionId, rows, at: new Date() });
      const n = await t.database.transaction((tx) => insertMigrationItems(tx, sealedItems), {
        isolation: "read committed",
      });
      expect(n).toBe(1201);
      const items = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, eng.id)).orderBy(migrationItems.position);
      expect(items.map((i) => i.name)).toEqual(rows.map((r) => r.name));
      expect(items[3]).toMatchObject({ state: "pending", sourceRef: "line 5", externalRef: "REF-3", recordsHint: null });
      expect(items[4]).toMatchObject({ externalRef: null, recordsHint: 104 });
      expect(items[3]!.accessTokenExpiresAt).toEqual(new Date("2030-01-01T00:00:00Z"));
      expect(openItemCredentials(TEST_KEY_RING, { engagementId: eng.id, itemId: items[3]!.id }, items[3]!.credentialsCipher!)).toEqual(rows[3]!.credentials);
      // A ciphertext copied onto another row does not open there.
      expect(() => openItemCredentials(TEST_KEY_RING, { engagementId: eng.id, itemId: items[4]!.id }, items[3]!.credentialsCipher!)).toThrow(SecretDecryptionError);
      expect(await t.db.select().from(engagements)).toHaveLength(1);
      // The reconciliation counts them from their states and their stored JSON checks (->> on both databases).
      const set = (i: number, values: Partial<typeof migrationItems.$inferInsert>) => t.db.update(migrationItems).set(values).where(eq(migrationItems.id, items[i]!.id));
      await set(0, { state: "verified", companyId: "c0" });
      await set(1, { state: "failed", companyId: "c1", checks: { connection: { status: "Linked" } } });
      await set(2, { state: "failed", companyId: "c2", checks: { connection: { status: "Linked" }, sync: { finishedAt: "2026-01-01T00:00:00Z" } }, lastError: { operation: "createConnection" } });
      await set(3, { state: "failed", companyId: "c3", checks: { connection: { status: "Linked" }, sync: { finishedAt: "2026-01-01T00:00:00Z" } }, lastError: { operation: "getDataStatus" } });
      await set(4, { state: "set_aside", checks: { connection: { status: "PendingAuth" } } });
      const counted = await readSteps(t.database, (tx) => reconcile(tx, eng.id));
      expect(counted).toMatchObject({ supplied: 1201, created: 4, linked: 4, synced: 2, verified: 1, failed: 3, setAside: 1, inProgress: 1196, pilot: null });

      const stored = JSON.stringify(items);
      for (const r of rows.slice(0, 50)) {
        expect(stored.includes(r.credentials.accessToken!)).toBe(false);
        expect(stored.includes(r.credentials.refreshToken!)).toBe(false);
      }
      // SQLite's file itself, write-ahead log checkpointed (PostgreSQL's files are not ours to read).
      if (t.dialect === "sqlite") {
        sqliteClientOf(t.database)!.pragma("wal_checkpoint(TRUNCATE)");
        const raw = (await import("node:fs")).readFileSync(t.file!);
        for (const r of rows.slice(0, 50)) {
          expect(raw.includes(Buffer.from(r.credentials.accessToken!))).toBe(false);
          expect(raw.includes(Buffer.from(r.credentials.refreshToken!))).toBe(false);
        }
      }
    } finally {
      await t.close();
    }
  });
});
