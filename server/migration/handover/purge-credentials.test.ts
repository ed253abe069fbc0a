/**
 * The credential purge on a real temporary database: the automatic purge (due, not due, cancelled,
 * idempotent, audited as the system), and what is left in the SQLite file afterwards.
 */
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { and, count, eq, isNotNull } from "drizzle-orm";
import { auditEvents, engagements, handovers, intakeSubmissions, migrationItems, migrationRuns } from "@/db/schema";
import { callerAs } from "@/server/testing/caller";
import { seedHandover, type HandoverFixture } from "@/server/testing/handover-fixture";
import { createTestDb, seedPeople, type People, type TestDb } from "@/server/testing/test-db";
import { databaseOf } from "@/db/database";
import { checkpointAfterSecretOverwrite } from "@/server/security/checkpoint";
import { purgeDueCredentials } from "./purge-credentials";

let t: TestDb;
let p: People;

beforeEach(async () => {
  t = createTestDb();
  p = await seedPeople(t.db);
});
afterEach(() => t.close());

const DAY = 24 * 60 * 60 * 1000;
const support = () => callerAs(t.db, p.support);

/** Ciphertexts the engagement still holds (items and submissions). */
function held(engagementId: string): number {
  const items = t.db.select({ n: count() }).from(migrationItems).where(and(eq(migrationItems.engagementId, engagementId), isNotNull(migrationItems.credentialsCipher))).get()!.n;
  const secrets = t.db.select({ n: count() }).from(intakeSubmissions).where(and(eq(intakeSubmissions.engagementId, engagementId), isNotNull(intakeSubmissions.clientSecretCipher))).get()!.n;
  return items + secrets;
}

const purgeEvents = () => t.db.select().from(auditEvents).where(eq(auditEvents.action, "credentials.purged")).all();

/** Produces the report and dates it `daysAgo` days back. */
async function handedOver(f: HandoverFixture, daysAgo: number, now: Date) {
  await support().handover.confirm({ engagementId: f.engagementId });
  t.db.update(handovers).set({ confirmedAt: new Date(now.getTime() - daysAgo * DAY) }).where(eq(handovers.engagementId, f.engagementId)).run();
}

/** Cancels the engagement and dates the cancellation `daysAgo` days back. */
async function cancelled(f: HandoverFixture, daysAgo: number, now: Date) {
  await support().engagements.setStatus({ engagementId: f.engagementId, status: "cancelled", reason: "Customer withdrew." });
  t.db.update(engagements).set({ statusChangedAt: new Date(now.getTime() - daysAgo * DAY) }).where(eq(engagements.id, f.engagementId)).run();
}

describe("purgeDueCredentials", () => {
  it("purges an engagement handed over at least `afterDays` ago and not acknowledged, as the system", async () => {
    const now = new Date();
    const due = await seedHandover(t.db, p);
    const notYet = await seedHandover(t.db, p, { organizationId: p.orgB });
    await handedOver(due, 14, now);
    await handedOver(notYet, 13.9, now);

    expect(await purgeDueCredentials(databaseOf(t.db), { now, afterDays: 14 })).toEqual({ engagements: 1, items: 6, rehearsalItems: 0, submissions: 1, rehearsalKeys: 0, supplementaryRows: 0 });
    expect(held(due.engagementId)).toBe(0);
    expect(held(notYet.engagementId)).toBe(7);
    const [event] = purgeEvents();
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
    const old = await seedHandover(t.db, p);
    const recent = await seedHandover(t.db, p, { organizationId: p.orgB });
    const active = await seedHandover(t.db, p, { organizationId: p.orgB, platformKey: "fztf" });
    await cancelled(old, 20, now);
    await cancelled(recent, 2, now);
    t.db.update(engagements).set({ updatedAt: new Date(now.getTime() - 400 * DAY) }).where(eq(engagements.id, active.engagementId)).run();

    expect(await purgeDueCredentials(databaseOf(t.db), { now, afterDays: 14 })).toMatchObject({ engagements: 1, items: 6, submissions: 1 });
    expect([held(old.engagementId), held(recent.engagementId), held(active.engagementId)]).toEqual([0, 7, 7]);
    expect(purgeEvents()[0]!.after).toMatchObject({ trigger: "after_cancellation", afterDays: 14 });
    const timeline = await support().engagements.timeline({ engagementId: old.engagementId });
    expect(timeline[0]!.summary).toBe("Purged the credentials of 6 companies and 1 OAuth client secret (14 days after the cancellation)");
  });

  it("dates a cancellation from before the status_changed_at column by the engagement's last change", async () => {
    const now = new Date();
    const f = await seedHandover(t.db, p);
    await cancelled(f, 0, now);
    t.db.update(engagements).set({ statusChangedAt: null, updatedAt: new Date(now.getTime() - 15 * DAY) }).where(eq(engagements.id, f.engagementId)).run();
    expect((await purgeDueCredentials(databaseOf(t.db), { now, afterDays: 14 })).engagements).toBe(1);
  });

  it("also deletes the API key of a sandbox client a rehearsal made, even when nothing else is left", async () => {
    const now = new Date();
    const f = await seedHandover(t.db, p);
    const run = t.db
      .insert(migrationRuns)
      .values({ engagementId: f.engagementId, kind: "rehearsal", status: "passed", requestedAt: now, sandboxClientId: "client-1", sandboxApiKeyCipher: "v1.test.iv.tag.ct" })
      .returning({ id: migrationRuns.id })
      .get();
    await cancelled(f, 20, now);
    expect(await purgeDueCredentials(databaseOf(t.db), { now, afterDays: 14 })).toMatchObject({ engagements: 1, items: 6, submissions: 1, rehearsalKeys: 1 });
    expect(t.db.select().from(migrationRuns).where(eq(migrationRuns.id, run.id)).get()!.sandboxApiKeyCipher).toBeNull();
    expect(purgeEvents()[0]!.after).toMatchObject({ rehearsalKeys: 1 });
    // Nothing is left to find on the next run.
    expect((await purgeDueCredentials(databaseOf(t.db), { now, afterDays: 14 })).engagements).toBe(0);
  });

  it("is idempotent: a second run purges and records nothing", async () => {
    const now = new Date();
    const f = await seedHandover(t.db, p);
    await handedOver(f, 30, now);
    expect((await purgeDueCredentials(databaseOf(t.db), { now, afterDays: 14 })).engagements).toBe(1);
    const events = t.db.select({ n: count() }).from(auditEvents).get()!.n;
    expect(await purgeDueCredentials(databaseOf(t.db), { now: new Date(now.getTime() + DAY), afterDays: 14 })).toEqual({ engagements: 0, items: 0, rehearsalItems: 0, submissions: 0, rehearsalKeys: 0, supplementaryRows: 0 });
    expect(t.db.select({ n: count() }).from(auditEvents).get()!.n).toBe(events);
    expect(t.db.select().from(handovers).get()!.purgedAt).toEqual(now);
  });

  it("with a wait of 0 days purges at the next run after the report", async () => {
    const f = await seedHandover(t.db, p);
    await support().handover.confirm({ engagementId: f.engagementId });
    expect((await purgeDueCredentials(databaseOf(t.db), { now: new Date(), afterDays: 0 })).items).toBe(6);
  });

  it("leaves the acknowledgement to complete step 6 afterwards, keeping when the credentials went", async () => {
    const now = new Date(Date.now() - 1000);
    const f = await seedHandover(t.db, p);
    await handedOver(f, 15, now);
    await purgeDueCredentials(databaseOf(t.db), { now, afterDays: 14 });
    const result = await callerAs(t.db, p.customerA).handover.acknowledge({ engagementId: f.engagementId });
    expect(result).toEqual({ status: "completed", purged: { items: 0, rehearsalItems: 0, submissions: 0, rehearsalKeys: 0, supplementaryRows: 0 } });
    expect(purgeEvents()).toHaveLength(1);
    const eng = await support().engagements.get({ engagementId: f.engagementId });
    expect(eng.steps[5]!.evidence?.flow).toMatchObject({ kind: "handed_over", purgedAt: now });
    expect(t.db.select().from(handovers).get()).toMatchObject({ purgeTrigger: "after_handover", purgedAt: now });
  });
});

/** Every byte of the database and its write-ahead log, after a checkpoint. */
function rawFile(db: TestDb): Buffer {
  checkpointAfterSecretOverwrite(databaseOf(db.db));
  const parts = [db.file, `${db.file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f));
  return Buffer.concat(parts);
}

/** The secrets an engagement's rows carried: ciphertexts (whole, and their encrypted part) and the plain values. */
function secretsOf(db: TestDb, f: HandoverFixture): { ciphertexts: string[]; plain: string[] } {
  const envelopes = [
    ...db.db.select({ c: migrationItems.credentialsCipher }).from(migrationItems).where(eq(migrationItems.engagementId, f.engagementId)).all().map((r) => r.c!),
    db.db.select().from(intakeSubmissions).where(eq(intakeSubmissions.id, f.submissionId)).get()!.clientSecretCipher!,
  ];
  return {
    ciphertexts: [...envelopes, ...envelopes.map((e) => e.split(".")[4]!)],
    plain: [f.clientSecret, ...f.items.flatMap((i) => [i.credentials.accessToken!, i.credentials.refreshToken!])],
  };
}

describe("the database file after a purge", () => {
  it("holds neither the ciphertexts nor the plain credentials (secure_delete, then a WAL checkpoint)", async () => {
    const f = await seedHandover(t.db, p, { companies: Array.from({ length: 40 }, () => ({ state: "verified" as const })) });
    const { ciphertexts, plain } = secretsOf(t, f);
    // The scan works: before the purge every ciphertext is in the file, and no plain value ever is.
    const before = rawFile(t);
    for (const c of ciphertexts) expect(before.includes(c), `before purge: ${c.slice(0, 20)}…`).toBe(true);
    for (const s of plain) expect(before.includes(s)).toBe(false);

    await support().handover.confirm({ engagementId: f.engagementId });
    await callerAs(t.db, p.customerA).handover.acknowledge({ engagementId: f.engagementId });

    expect(t.db.$client.pragma("secure_delete", { simple: true })).toBe(1);
    const after = rawFile(t);
    for (const c of ciphertexts) expect(after.includes(c), `after purge: ${c.slice(0, 20)}…`).toBe(false);
    for (const s of plain) expect(after.includes(s)).toBe(false);
    // The masks stay for the screens.
    expect(after.includes(Buffer.from(`••••${f.clientSecret.slice(-4)}`))).toBe(true);
  });

  it("would keep them without secure_delete (why the database is opened with it)", async () => {
    t.db.$client.pragma("secure_delete = OFF");
    const f = await seedHandover(t.db, p, { companies: Array.from({ length: 40 }, () => ({ state: "verified" as const })) });
    const { ciphertexts } = secretsOf(t, f);
    await support().handover.confirm({ engagementId: f.engagementId });
    await callerAs(t.db, p.customerA).handover.acknowledge({ engagementId: f.engagementId });
    expect(held(f.engagementId)).toBe(0);
    const after = rawFile(t);
    expect(ciphertexts.filter((c) => after.includes(c)).length).toBeGreaterThan(0);
  });
});
