/**
 * The credential purge on a real temporary database: the automatic purge (due, not due, cancelled,
 * idempotent, audited as the system), and (SQLite only) what is left in the database file
 * afterwards. PostgreSQL keeps old row versions until VACUUM (see docs/migration-engine.md, "The handover and the token purge"), so the bytes in its
 * files are no test of the purge there; its purge at once with others is in handover-pg.test.ts.
 */
import { sqliteClientOf } from "@/db/database";
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { and, asc, count, eq, isNotNull } from "drizzle-orm";
import { auditEvents, engagements, handovers, intakeSubmissions, migrationItems, migrationRuns } from "@/db/schema";
import { callerAs } from "@/server/testing/caller";
import { seedHandover, type HandoverFixture } from "@/server/testing/handover-fixture";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { databaseDialect } from "@/db/dialect";
import { checkpointAfterSecretOverwrite } from "@/db/checkpoint";
import { purgeDueCredentials } from "./purge-credentials";

let t: TestDatabase;
let p: People;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const DAY = 24 * 60 * 60 * 1000;
const support = () => callerAs(t.database, p.support);

/** Ciphertexts the engagement still holds (items and submissions). */
async function held(engagementId: string): Promise<number> {
  const [items] = await t.db.select({ n: count() }).from(migrationItems).where(and(eq(migrationItems.engagementId, engagementId), isNotNull(migrationItems.credentialsCipher)));
  const [secrets] = await t.db.select({ n: count() }).from(intakeSubmissions).where(and(eq(intakeSubmissions.engagementId, engagementId), isNotNull(intakeSubmissions.clientSecretCipher)));
  return items!.n + secrets!.n;
}

const purgeEvents = () => t.db.select().from(auditEvents).where(eq(auditEvents.action, "credentials.purged")).orderBy(asc(auditEvents.id));
const theHandover = async () => (await t.db.select().from(handovers))[0];

/** Produces the report and dates it `daysAgo` days back. */
async function handedOver(f: HandoverFixture, daysAgo: number, now: Date) {
  await support().handover.confirm({ engagementId: f.engagementId });
  await t.db.update(handovers).set({ confirmedAt: new Date(now.getTime() - daysAgo * DAY) }).where(eq(handovers.engagementId, f.engagementId));
}

/** Cancels the engagement and dates the cancellation `daysAgo` days back. */
async function cancelled(f: HandoverFixture, daysAgo: number, now: Date) {
  await support().engagements.setStatus({ engagementId: f.engagementId, status: "cancelled", reasonCode: "customer_withdrew", reason: "Customer withdrew." });
  await t.db.update(engagements).set({ statusChangedAt: new Date(now.getTime() - daysAgo * DAY) }).where(eq(engagements.id, f.engagementId));
}

describe("purgeDueCredentials", () => {
  it("purges an engagement handed over at least `afterDays` ago and not acknowledged, as the system", async () => {
    const now = new Date();
    const due = await seedHandover(t.database, p);
    const notYet = await seedHandover(t.database, p, { organizationId: p.orgB });
    await handedOver(due, 14, now);
    await handedOver(notYet, 13.9, now);

    expect(await purgeDueCredentials(t.database, { now, afterDays: 14 })).toEqual({ engagements: 1, items: 6, rehearsalItems: 0, submissions: 1, rehearsalKeys: 0, supplementaryRows: 0 });
    expect(await held(due.engagementId)).toBe(0);
    expect(await held(notYet.engagementId)).toBe(7);
    const [event] = await purgeEvents();
    expect(event).toMatchObject({
      actorId: null,
      actorLabel: "System",
      engagementId: due.engagementId,
      after: { trigger: "after_handover", items: 6, rehearsalItems: 0, submissions: 1, rehearsalKeys: 0, afterDays: 14 },
    });
    const view = await support().handover.get({ engagementId: due.engagementId });
    expect(view.handover).toMatchObject({ purgedAt: now, purgeTrigger: "after_handover", acknowledgedAt: null });
    expect(view.credentialsHeld).toBe(0);
    const timeline = await support().engagements.timeline({ engagementId: due.engagementId });
    expect(timeline[0]).toMatchObject({
      actor: "System",
      summary: "Purged the credentials of 6 companies and 1 OAuth client secret (14 days after the handover report)",
    });
    // Step 6 still waits for the customer's acknowledgement: the purge does not complete it.
    const eng = await support().engagements.get({ engagementId: due.engagementId });
    expect([eng.status, eng.steps[5]!.state]).toEqual(["active", "in_progress"]);
  });

  it("purges a cancelled engagement once the wait has passed since its cancellation, and no other", async () => {
    const now = new Date();
    const old = await seedHandover(t.database, p);
    const recent = await seedHandover(t.database, p, { organizationId: p.orgB });
    const active = await seedHandover(t.database, p, { organizationId: p.orgB, platformKey: "fztf" });
    await cancelled(old, 20, now);
    await cancelled(recent, 2, now);
    await t.db.update(engagements).set({ updatedAt: new Date(now.getTime() - 400 * DAY) }).where(eq(engagements.id, active.engagementId));

    expect(await purgeDueCredentials(t.database, { now, afterDays: 14 })).toMatchObject({ engagements: 1, items: 6, submissions: 1 });
    expect([await held(old.engagementId), await held(recent.engagementId), await held(active.engagementId)]).toEqual([0, 7, 7]);
    expect((await purgeEvents())[0]!.after).toMatchObject({ trigger: "after_cancellation", afterDays: 14 });
    const timeline = await support().engagements.timeline({ engagementId: old.engagementId });
    expect(timeline[0]!.summary).toBe("Purged the credentials of 6 companies and 1 OAuth client secret (14 days after the cancellation)");
  });

  it("dates a cancellation from before the status_changed_at column by the engagement's last change", async () => {
    const now = new Date();
    const f = await seedHandover(t.database, p);
    await cancelled(f, 0, now);
    await t.db.update(engagements).set({ statusChangedAt: null, updatedAt: new Date(now.getTime() - 15 * DAY) }).where(eq(engagements.id, f.engagementId));
    expect((await purgeDueCredentials(t.database, { now, afterDays: 14 })).engagements).toBe(1);
  });

  it("also deletes the API key of a sandbox client a rehearsal made, even when nothing else is left", async () => {
    const now = new Date();
    const f = await seedHandover(t.database, p);
    const [run] = await t.db
      .insert(migrationRuns)
      .values({ engagementId: f.engagementId, kind: "rehearsal", status: "passed", requestedAt: now, sandboxClientId: "client-1", sandboxApiKeyCipher: "v1.test.iv.tag.ct" })
      .returning({ id: migrationRuns.id });
    await cancelled(f, 20, now);
    expect(await purgeDueCredentials(t.database, { now, afterDays: 14 })).toMatchObject({ engagements: 1, items: 6, submissions: 1, rehearsalKeys: 1 });
    expect((await t.db.select().from(migrationRuns).where(eq(migrationRuns.id, run!.id)))[0]!.sandboxApiKeyCipher).toBeNull();
    expect((await purgeEvents())[0]!.after).toMatchObject({ rehearsalKeys: 1 });
    // Nothing is left to find on the next run.
    expect((await purgeDueCredentials(t.database, { now, afterDays: 14 })).engagements).toBe(0);
  });

  it("is idempotent: a second run purges and records nothing", async () => {
    const now = new Date();
    const f = await seedHandover(t.database, p);
    await handedOver(f, 30, now);
    expect((await purgeDueCredentials(t.database, { now, afterDays: 14 })).engagements).toBe(1);
    const events = (await t.db.select({ n: count() }).from(auditEvents))[0]!.n;
    expect(await purgeDueCredentials(t.database, { now: new Date(now.getTime() + DAY), afterDays: 14 })).toEqual({ engagements: 0, items: 0, rehearsalItems: 0, submissions: 0, rehearsalKeys: 0, supplementaryRows: 0 });
    expect((await t.db.select({ n: count() }).from(auditEvents))[0]!.n).toBe(events);
    expect((await theHandover())!.purgedAt).toEqual(now);
  });

  it("with a wait of 0 days purges at the next run after the report", async () => {
    const f = await seedHandover(t.database, p);
    await support().handover.confirm({ engagementId: f.engagementId });
    expect((await purgeDueCredentials(t.database, { now: new Date(), afterDays: 0 })).items).toBe(6);
  });

  it("leaves the acknowledgement to complete step 6 afterwards, keeping when the credentials went", async () => {
    const now = new Date(Date.now() - 1000);
    const f = await seedHandover(t.database, p);
    await handedOver(f, 15, now);
    await purgeDueCredentials(t.database, { now, afterDays: 14 });
    const result = await callerAs(t.database, p.customerA).handover.acknowledge({ engagementId: f.engagementId });
    expect(result).toEqual({ status: "completed", purged: { items: 0, rehearsalItems: 0, submissions: 0, rehearsalKeys: 0, supplementaryRows: 0 } });
    expect(await purgeEvents()).toHaveLength(1);
    const eng = await support().engagements.get({ engagementId: f.engagementId });
    expect(eng.steps[5]!.evidence?.flow).toMatchObject({ kind: "handed_over", purgedAt: now });
    expect(await theHandover()).toMatchObject({ purgeTrigger: "after_handover", purgedAt: now });
  });
});

const onSqlite = databaseDialect() === "sqlite";

/** Every byte of the database and its write-ahead log, after a checkpoint (SQLite). */
function rawFile(db: TestDatabase): Buffer {
  checkpointAfterSecretOverwrite(db.database);
  const parts = [db.file!, `${db.file!}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f));
  return Buffer.concat(parts);
}

/** The secrets an engagement's rows carried: ciphertexts (whole, and their encrypted part) and the plain values. */
async function secretsOf(db: TestDatabase, f: HandoverFixture): Promise<{ ciphertexts: string[]; plain: string[] }> {
  const envelopes = [
    ...(await db.db.select({ c: migrationItems.credentialsCipher }).from(migrationItems).where(eq(migrationItems.engagementId, f.engagementId))).map((r) => r.c!),
    (await db.db.select().from(intakeSubmissions).where(eq(intakeSubmissions.id, f.submissionId)))[0]!.clientSecretCipher!,
  ];
  return {
    ciphertexts: [...envelopes, ...envelopes.map((e) => e.split(".")[4]!)],
    plain: [f.clientSecret, ...f.items.flatMap((i) => [i.credentials.accessToken!, i.credentials.refreshToken!])],
  };
}

// About SQLite's file itself (secure_delete, the write-ahead log): PostgreSQL's old row versions
// go at VACUUM instead, which no test of the purge can observe.
describe.runIf(onSqlite)("the SQLite database file after a purge", () => {
  it("holds neither the ciphertexts nor the plain credentials (secure_delete, then a WAL checkpoint)", async () => {
    const f = await seedHandover(t.database, p, { companies: Array.from({ length: 40 }, () => ({ state: "verified" as const })) });
    const { ciphertexts, plain } = await secretsOf(t, f);
    // The scan works: before the purge every ciphertext is in the file, and no plain value ever is.
    const before = rawFile(t);
    for (const c of ciphertexts) expect(before.includes(c), `before purge: ${c.slice(0, 20)}…`).toBe(true);
    for (const s of plain) expect(before.includes(s)).toBe(false);

    await support().handover.confirm({ engagementId: f.engagementId });
    await callerAs(t.database, p.customerA).handover.acknowledge({ engagementId: f.engagementId });

    expect(sqliteClientOf(t.database)!.pragma("secure_delete", { simple: true })).toBe(1);
    const after = rawFile(t);
    for (const c of ciphertexts) expect(after.includes(c), `after purge: ${c.slice(0, 20)}…`).toBe(false);
    for (const s of plain) expect(after.includes(s)).toBe(false);
    // The masks stay for the screens.
    expect(after.includes(Buffer.from(`••••${f.clientSecret.slice(-4)}`))).toBe(true);
  });

  it("would keep them without secure_delete (why the database is opened with it)", async () => {
    sqliteClientOf(t.database)!.pragma("secure_delete = OFF");
    const f = await seedHandover(t.database, p, { companies: Array.from({ length: 40 }, () => ({ state: "verified" as const })) });
    const { ciphertexts } = await secretsOf(t, f);
    await support().handover.confirm({ engagementId: f.engagementId });
    await callerAs(t.database, p.customerA).handover.acknowledge({ engagementId: f.engagementId });
    expect(await held(f.engagementId)).toBe(0);
    const after = rawFile(t);
    expect(ciphertexts.filter((c) => after.includes(c)).length).toBeGreaterThan(0);
  });
});
