/**
 * Fresh tokens purged once used: a company retried with a supplementary file's tokens loses its
 * sealed copy and its row's once the retry is final, audited once; a second purge finds nothing.
 */
import { and, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, intakeSubmissions, migrationItems, supplementaryFiles, supplementaryRows } from "@/db/schema";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { createEngagement } from "@/server/engagements/create-engagement";
import { getManagedPlatform } from "@/server/platforms";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { purgeUsedFreshTokens } from "./fresh-tokens";
import { insertMigrationItems, sealMigrationItems } from "./insert-items";

const qbo = getManagedPlatform("qhyg")!;
let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

describe("purgeUsedFreshTokens", () => {
  it("purges a company's used fresh tokens (its sealed copy and its supplementary row's), audited once", async () => {
    const eng = await createEngagement(t.database, TEST_NOTIFY, p.support, { organizationId: p.orgA, platformKey: "qhyg" });
    const [submission] = await t.db
      .insert(intakeSubmissions)
      .values({ engagementId: eng.id, status: "submitted", clientId: "c", clientSecretMask: "••••", contacts: [], fileName: "f.csv", fileKind: "csv", rowCount: 1, warningCount: 0, countsByKind: {}, preview: [], submittedAt: new Date() })
      .returning();
    const sealedItems = sealMigrationItems({
      ring: TEST_KEY_RING,
      platform: qbo,
      engagementId: eng.id,
      submissionId: submission!.id,
      rows: [{ line: 2, name: "Fresh Co", externalRef: null, records: null, credentials: credentialsFor(qbo, 1) }],
      at: new Date(),
    });
    await t.database.transaction((tx) => insertMigrationItems(tx, sealedItems), { isolation: "read committed" });
    const [item] = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, eng.id));
    const [file] = await t.db
      .insert(supplementaryFiles)
      .values({ engagementId: eng.id, status: "accepted", fileName: "fresh.csv", rowCount: 1, warnings: [], submittedById: p.customerA.id, submittedAt: new Date() })
      .returning();
    await t.db.insert(supplementaryRows).values({ fileId: file!.id, itemId: item!.id, position: 0, sourceRef: "line 2", credentialsCipher: "sealed", credentialsMask: {} });
    await t.db.update(migrationItems).set({ supplementaryFileId: file!.id, state: "verified" }).where(eq(migrationItems.id, item!.id));

    const purge = () => t.database.transaction((tx) => purgeUsedFreshTokens(tx, { itemId: item!.id, at: new Date() }), { isolation: "read committed" });
    expect(await purge()).toBe(true);
    expect(await purge()).toBe(false);
    const [after] = await t.db.select().from(migrationItems).where(eq(migrationItems.id, item!.id));
    expect(after).toMatchObject({ credentialsCipher: null, credentialsPurgedAt: expect.any(Date) as Date });
    const [row] = await t.db.select().from(supplementaryRows).where(eq(supplementaryRows.itemId, item!.id));
    expect(row).toMatchObject({ credentialsCipher: null });
    const audited = await t.db.select().from(auditEvents).where(and(eq(auditEvents.action, "supplementary.tokens_purged"), eq(auditEvents.targetId, item!.id)));
    expect(audited).toHaveLength(1);
  });
});
