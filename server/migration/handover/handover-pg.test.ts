/**
 * The handover's purge and report reads on a real PostgreSQL server (in the PostgreSQL pass of the
 * suite, vitest.pg.config.ts). Parallel purges really are parallel here: each transaction runs on
 * its own connection.
 * @module-tag postgresql
 */
import { and, eq, isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, postgresUrl, type Database } from "@/db/database";
import { auditEvents, engagements, handovers, intakeSubmissions, migrationItems, migrationRuns, serviceCalls, supplementaryFiles, supplementaryRows } from "@/db/schema";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { insertMigrationItems, sealMigrationItems } from "@/server/items/insert-items";
import { getManagedPlatform } from "@/server/platforms";
import { createPgTestDb, type PgTestDb } from "@/server/testing/pg";
import { seedPeople, TEST_KEY_RING, type People } from "@/server/testing/test-db";
import { pageOfReportItems } from "./handover-repository";
import { purgeDueCredentials } from "./purge-credentials";

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

const DAY = 24 * 60 * 60 * 1000;

/** An engagement holding every kind of secret the purge deletes: companies' tokens, a client secret, a rehearsal's key, a supplementary row's fresh tokens. */
async function engagementWithSecrets(reference: string, companies: string[]) {
  const qbo = getManagedPlatform("qhyg")!;
  const [eng] = await database.db.insert(engagements).values({ reference, organizationId: p.orgA, platformKey: "qhyg", ownerId: p.support.id }).returning();
  const [submission] = await database.db
    .insert(intakeSubmissions)
    .values({ engagementId: eng!.id, status: "accepted", clientId: "c", clientSecretCipher: "v1.sealed.client.secret", clientSecretMask: "••••", contacts: [], fileName: "f.csv", fileKind: "csv", rowCount: companies.length, warningCount: 0, countsByKind: {}, preview: [], submittedAt: new Date() })
    .returning();
  const rows = companies.map((name, i) => ({ line: i + 2, name, externalRef: `EXT-${i}`, records: null, credentials: credentialsFor(qbo, i) }));
  const sealedItems = sealMigrationItems({ ring: TEST_KEY_RING, platform: qbo, engagementId: eng!.id, submissionId: submission!.id, rows, at: new Date() });
  await database.transaction((tx) => insertMigrationItems(tx, sealedItems), { isolation: "read committed" });
  const [run] = await database.db
    .insert(migrationRuns)
    .values({ engagementId: eng!.id, kind: "rehearsal", status: "passed", requestedAt: new Date(), sandboxClientId: "client-1", sandboxApiKeyCipher: "v1.sealed.sandbox.key" })
    .returning();
  const [item] = await database.db.select().from(migrationItems).where(eq(migrationItems.engagementId, eng!.id)).limit(1);
  const [file] = await database.db
    .insert(supplementaryFiles)
    .values({ engagementId: eng!.id, status: "submitted", fileName: "fresh.csv", rowCount: 1, warnings: [], submittedById: p.customerA.id, submittedAt: new Date() })
    .returning();
  await database.db.insert(supplementaryRows).values({ fileId: file!.id, itemId: item!.id, position: 0, sourceRef: "line 2", credentialsCipher: "v1.sealed.fresh", credentialsMask: {} });
  return { ...eng!, runId: run!.id };
}

/** Every ciphertext the engagement's rows still hold. */
async function held(engagementId: string): Promise<number> {
  const items = await database.db.select().from(migrationItems).where(and(eq(migrationItems.engagementId, engagementId), isNotNull(migrationItems.credentialsCipher)));
  const secrets = await database.db.select().from(intakeSubmissions).where(and(eq(intakeSubmissions.engagementId, engagementId), isNotNull(intakeSubmissions.clientSecretCipher)));
  const keys = await database.db.select().from(migrationRuns).where(and(eq(migrationRuns.engagementId, engagementId), isNotNull(migrationRuns.sandboxApiKeyCipher)));
  const fresh = await database.db
    .select()
    .from(supplementaryRows)
    .innerJoin(supplementaryFiles, eq(supplementaryFiles.id, supplementaryRows.fileId))
    .where(and(eq(supplementaryFiles.engagementId, engagementId), isNotNull(supplementaryRows.credentialsCipher)));
  return items.length + secrets.length + keys.length + fresh.length;
}

const purgeEvents = (engagementId: string) => database.db.select().from(auditEvents).where(and(eq(auditEvents.action, "credentials.purged"), eq(auditEvents.targetId, engagementId)));

describe.runIf(base)("the automatic purge on PostgreSQL", () => {
  it("deletes every secret of an engagement handed over long enough ago, and records when", async () => {
    const now = new Date();
    const eng = await engagementWithSecrets("FER-PG-H1", ["Alpha Ltd", "Beta Ltd", "Gamma Ltd"]);
    await database.db.insert(handovers).values({ engagementId: eng.id, confirmedById: p.support.id, confirmedAt: new Date(now.getTime() - 20 * DAY), counts: { verified: 3 }, total: 3 });
    expect(await held(eng.id)).toBe(6);
    const done = await purgeDueCredentials(database, { now, afterDays: 14 });
    expect(done).toMatchObject({ engagements: 1, items: 3, submissions: 1, rehearsalKeys: 1, supplementaryRows: 1 });
    expect(await held(eng.id)).toBe(0);
    const [handover] = await database.db.select().from(handovers).where(eq(handovers.engagementId, eng.id));
    expect(handover).toMatchObject({ purgedAt: now, purgeTrigger: "after_handover" });
    // The masks stay for the screens.
    const [item] = await database.db.select().from(migrationItems).where(eq(migrationItems.engagementId, eng.id)).limit(1);
    expect(item!.credentialsMask).not.toBeNull();
    expect(item!.credentialsPurgedAt).toEqual(now);
  });

  it("counts a cancellation from when it happened (or the last change before that was recorded)", async () => {
    const now = new Date();
    const long = await engagementWithSecrets("FER-PG-H2", ["Delta Ltd"]);
    const recent = await engagementWithSecrets("FER-PG-H3", ["Epsilon Ltd"]);
    const unrecorded = await engagementWithSecrets("FER-PG-H4", ["Zeta Ltd"]);
    await database.db.update(engagements).set({ status: "cancelled", statusChangedAt: new Date(now.getTime() - 15 * DAY) }).where(eq(engagements.id, long.id));
    await database.db.update(engagements).set({ status: "cancelled", statusChangedAt: new Date(now.getTime() - 13 * DAY) }).where(eq(engagements.id, recent.id));
    await database.db.update(engagements).set({ status: "cancelled", statusChangedAt: null, updatedAt: new Date(now.getTime() - 15 * DAY) }).where(eq(engagements.id, unrecorded.id));
    expect(await purgeDueCredentials(database, { now, afterDays: 14 })).toMatchObject({ engagements: 2 });
    expect([await held(long.id), await held(recent.id), await held(unrecorded.id)]).toEqual([0, 4, 0]);
    expect(await purgeEvents(long.id)).toMatchObject([{ after: { trigger: "after_cancellation" } }]);
  });

  it("purges and audits an engagement once when three workers purge at the same moment", async () => {
    const now = new Date();
    const eng = await engagementWithSecrets("FER-PG-H5", Array.from({ length: 40 }, (_, i) => `Company ${i}`));
    await database.db.insert(handovers).values({ engagementId: eng.id, confirmedById: p.support.id, confirmedAt: new Date(now.getTime() - 20 * DAY), counts: { verified: 40 }, total: 40 });
    const runs = await Promise.all([1, 2, 3].map(() => purgeDueCredentials(database, { now, afterDays: 14 })));
    expect(runs.reduce((n, r) => n + r.items, 0)).toBe(40);
    expect(runs.reduce((n, r) => n + r.engagements, 0)).toBe(1);
    expect(await purgeEvents(eng.id)).toHaveLength(1);
    expect(await held(eng.id)).toBe(0);
  });
});

describe.runIf(base)("the handover report's pages on PostgreSQL", () => {
  it("finds companies whatever the case of the search, and counts every request sent for each", async () => {
    const eng = await engagementWithSecrets("FER-PG-H6", ["Acme Lending", "Bolt Couriers", "acme bakery"]);
    const [first] = await database.db.select().from(migrationItems).where(and(eq(migrationItems.engagementId, eng.id), eq(migrationItems.name, "Acme Lending")));
    await database.db.insert(serviceCalls).values([
      { runId: eng.runId, itemId: first!.id, operation: "createCompany", method: "POST", path: "/companies", attempts: 2, status: 201, ok: true, durationMs: 12, at: new Date() },
      { runId: eng.runId, itemId: first!.id, operation: "createConnection", method: "POST", path: "/connections", attempts: 3, status: 201, ok: true, durationMs: 9, at: new Date() },
    ]);
    const page = await database.transaction((tx) => pageOfReportItems(tx, { engagementId: eng.id, search: "ACME", page: 1, pageSize: 10 }), { isolation: "read committed" });
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => [r.name, r.attemptsInAll])).toEqual([
      ["Acme Lending", 5],
      ["acme bakery", 0],
    ]);
    const literal = await database.transaction((tx) => pageOfReportItems(tx, { engagementId: eng.id, search: "%", page: 1, pageSize: 10 }), { isolation: "read committed" });
    expect(literal.total).toBe(0);
  });
});
