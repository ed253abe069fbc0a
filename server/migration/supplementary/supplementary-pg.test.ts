/**
 * The supplementary file's repository on a real PostgreSQL server (in the PostgreSQL pass of the
 * suite, vitest.pg.config.ts): which companies wait for fresh tokens (read from their stored JSON
 * failure), a file's rows stored and purged, and two purges of one file at once counting each row once.
 * @module-tag postgresql
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, postgresUrl, type Database } from "@/db/database";
import { engagements, intakeSubmissions, migrationItems, supplementaryRows } from "@/db/schema";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { insertMigrationItems, sealMigrationItems } from "@/server/items/insert-items";
import { getManagedPlatform } from "@/server/platforms";
import { createPgTestDb, type PgTestDb } from "@/server/testing/pg";
import { seedPeople, TEST_KEY_RING, type People } from "@/server/testing/test-db";
import { waitsForFreshTokens } from "./rules";
import { candidateCompanies, countWaiting, findCurrentFile, insertFile, insertRows, listRows, listWaiting, purgeRows, rowsToApply } from "./supplementary-repository";

const base = postgresUrl();
let database: Database;
let p: People;
let pg: PgTestDb;
beforeAll(async () => {
  if (!base) return;
  pg = await createPgTestDb();
  database = openPostgres(pg.url, { max: 20 });
  p = await seedPeople(database.db);
});
afterAll(async () => {
  await database?.close();
  await pg?.close();
});

const read = { isolation: "read committed" } as const;

describe.runIf(base)("the supplementary file's repository on PostgreSQL", () => {
  it("finds the companies waiting for fresh tokens as the rule does, and stores, lists and purges a file's rows", async () => {
    const qbo = getManagedPlatform("qhyg")!;
    const [eng] = await database.db.insert(engagements).values({ reference: "FER-PG-S1", organizationId: p.orgA, platformKey: "qhyg", ownerId: p.support.id }).returning();
    const [submission] = await database.db
      .insert(intakeSubmissions)
      .values({ engagementId: eng!.id, status: "accepted", clientId: "c", clientSecretMask: "••••", contacts: [], fileName: "f.csv", fileKind: "csv", rowCount: 5, warningCount: 0, countsByKind: {}, preview: [], submittedAt: new Date() })
      .returning();
    const names = ["Reauth Ltd", "Sync Auth Ltd", "Rate Limited Ltd", "Reconnect Ltd", "No Connection Ltd"];
    const rows = names.map((name, i) => ({ line: i + 2, name, externalRef: null, records: null, credentials: credentialsFor(qbo, i) }));
    const sealedItems = sealMigrationItems({ ring: TEST_KEY_RING, platform: qbo, engagementId: eng!.id, submissionId: submission!.id, rows, at: new Date() });
    await database.transaction((tx) => insertMigrationItems(tx, sealedItems), read);
    const items = await database.db.select().from(migrationItems).where(eq(migrationItems.engagementId, eng!.id)).orderBy(migrationItems.position);
    const set = (i: number, values: Partial<typeof migrationItems.$inferInsert>) => database.db.update(migrationItems).set(values).where(eq(migrationItems.id, items[i]!.id));
    await set(0, { state: "reauth_required", connectionId: "conn-0" });
    await set(1, { state: "failed", connectionId: "conn-1", lastError: { kind: "auth_error_during_sync", operation: "getDataStatus" } });
    await set(2, { state: "failed", connectionId: "conn-2", lastError: { kind: "rate_limited", operation: "createConnection" } });
    await set(3, { state: "reconnect_pending", connectionId: "conn-3" });
    await set(4, { state: "reauth_required" });

    const candidates = await database.transaction((tx) => candidateCompanies(tx, eng!.id), read);
    expect(candidates.map((c) => [c.name, c.lastErrorKind, c.hasConnection])).toEqual([
      ["Reauth Ltd", null, true],
      ["Sync Auth Ltd", "auth_error_during_sync", true],
      ["Rate Limited Ltd", "rate_limited", true],
      ["Reconnect Ltd", null, true],
      ["No Connection Ltd", null, false],
    ]);
    const byRule = candidates.filter(waitsForFreshTokens).map((c) => c.name);
    expect(byRule).toEqual(["Reauth Ltd", "Sync Auth Ltd", "Reconnect Ltd"]);
    expect((await database.transaction((tx) => listWaiting(tx, eng!.id, 10), read)).map((c) => c.name)).toEqual(byRule);
    expect(await database.transaction((tx) => countWaiting(tx, eng!.id), read)).toBe(3);

    const fileId = crypto.randomUUID();
    const expires = new Date("2031-01-01T00:00:00Z");
    await database.transaction(function* (tx) {
      yield* insertFile(tx, { id: fileId, engagementId: eng!.id, status: "submitted", fileName: "fresh.csv", rowCount: 3, warnings: [], submittedById: p.customerA.id, submittedAt: new Date() });
      yield* insertRows(
        tx,
        fileId,
        [0, 1, 3].map((i, position) => ({ id: crypto.randomUUID(), itemId: items[i]!.id, position, sourceRef: `line ${position + 2}`, credentialsCipher: `sealed-${i}`, credentialsMask: { accessToken: "••••" }, accessTokenExpiresAt: i === 3 ? null : expires })),
      );
    }, read);
    expect((await database.transaction((tx) => findCurrentFile(tx, eng!.id), read))?.id).toBe(fileId);
    const listed = await database.transaction((tx) => listRows(tx, fileId, 10), read);
    expect(listed.map((r) => [r.company.name, r.accessTokenExpiresAt])).toEqual([
      ["Reauth Ltd", expires],
      ["Sync Auth Ltd", expires],
      ["Reconnect Ltd", null],
    ]);
    const toApply = await database.transaction((tx) => rowsToApply(tx, fileId), read);
    expect(toApply.map((r) => [r.name, r.cipher, r.hasConnection])).toEqual([
      ["Reauth Ltd", "sealed-0", true],
      ["Sync Auth Ltd", "sealed-1", true],
      ["Reconnect Ltd", "sealed-3", true],
    ]);

    // Two purges of the file at once (a send-back and the handover's purge): each row counted once.
    const at = new Date();
    const purged = await Promise.all([1, 2].map(() => database.transaction((tx) => purgeRows(tx, fileId, at), read)));
    expect(purged.reduce((n, c) => n + c, 0)).toBe(3);
    const left = await database.db.select().from(supplementaryRows).where(eq(supplementaryRows.fileId, fileId));
    expect(left.every((r) => r.credentialsCipher === null && r.credentialsPurgedAt?.getTime() === at.getTime())).toBe(true);
  });
});
