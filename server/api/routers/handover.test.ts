/** The handover procedures through createCaller on a real temporary database.
 *
 * Its tests tagged both-databases run on PostgreSQL too: confirmations and acknowledgements at once.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { and, asc, count, eq, isNotNull, like } from "drizzle-orm";
import { auditEvents, engagements, engagementSteps, handovers, intakeSubmissions, mailOutbox, migrationItems, migrationRuns } from "@/db/schema";
import { insertMigrationItems, sealMigrationItems } from "@/server/items/insert-items";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { getManagedPlatform } from "@/server/platforms";
import { finishItem, seedHandover, type HandoverFixture } from "@/server/testing/handover-fixture";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const support = () => callerAs(t.database, p.support);
const customer = () => callerAs(t.database, p.customerA);

const rows = async (table: typeof handovers | typeof auditEvents | typeof mailOutbox) => (await t.db.select({ n: count() }).from(table))[0]!.n;
const counts = () => Promise.all([rows(handovers), rows(auditEvents), rows(mailOutbox)]);
/** The only handover row (each test has one engagement with a report at most). */
const theHandover = async () => (await t.db.select().from(handovers))[0];
const heldCiphers = async (engagementId?: string) =>
  (await t.db.select({ n: count() }).from(migrationItems).where(and(engagementId ? eq(migrationItems.engagementId, engagementId) : undefined, isNotNull(migrationItems.credentialsCipher))))[0]!.n;

/** A rehearsal's simulated company beside the real ones (never counted, listed or reported). */
async function addRehearsalItem(f: HandoverFixture, state: "pending" | "verified" = "pending") {
  const runId = crypto.randomUUID();
  await t.db.insert(migrationRuns).values({ id: runId, engagementId: f.engagementId, kind: "rehearsal", status: "running", requestedAt: new Date() });
  const sealedItems = sealMigrationItems({
    ring: TEST_KEY_RING,
    platform: getManagedPlatform("qhyg")!,
    engagementId: f.engagementId,
    submissionId: f.submissionId,
    rows: [{ line: 2, name: "Rehearsal Co", externalRef: "REH-1", records: 10, credentials: credentialsFor(getManagedPlatform("qhyg")!, 999_999) }],
    at: new Date(),
  });
  await t.database.transaction((tx) => insertMigrationItems(tx, sealedItems), { isolation: "read committed" });
  await t.db.update(migrationItems).set({ rehearsalRunId: runId, state }).where(eq(migrationItems.name, "Rehearsal Co"));
  return runId;
}

describe("producing the handover report", () => {
  it("is refused, with the reason in words and nothing written, while any real company is not final", async () => {
    const f = await seedHandover(t.database, p, { companies: [{ state: "verified" }, { state: "pending" }, { state: "sync_requested" }, { state: "sync_requested" }] });
    const before = await counts();
    const error = await trpcError(support().handover.confirm({ engagementId: f.engagementId }));
    expect(error.code).toBe("PRECONDITION_FAILED");
    expect(error.message).toBe("3 companies are not in a final state yet (1 pending, 2 sync requested): migrate, retry or set them aside first.");
    expect(await counts()).toEqual(before);
    const view = await support().handover.get({ engagementId: f.engagementId });
    expect(view.actions.confirm).toEqual({ allowed: false, reason: error.message });
    expect(view).toMatchObject({ total: 4, counts: { verified: 1, pending: 1, sync_requested: 2 }, handover: null });
  });

  it("is refused while a bulk run is queued, running or paused", async () => {
    const f = await seedHandover(t.database, p);
    for (const status of ["queued", "running", "paused"] as const) {
      const id = crypto.randomUUID();
      await t.db.insert(migrationRuns).values({ id, engagementId: f.engagementId, kind: "bulk", status, requestedAt: new Date() });
      const error = await trpcError(support().handover.confirm({ engagementId: f.engagementId }));
      expect(error.message).toBe(`The bulk run is still ${status}: let it finish, or cancel it, before producing the handover report.`);
      await t.db.update(migrationRuns).set({ status: "completed" }).where(eq(migrationRuns.id, id));
    }
    // A finished bulk run, and a pilot still running, do not hold it back.
    await t.db.insert(migrationRuns).values({ engagementId: f.engagementId, kind: "pilot", status: "running", requestedAt: new Date() });
    await expect(support().handover.confirm({ engagementId: f.engagementId })).resolves.toMatchObject({ handoverId: expect.any(String) });
  });

  it("is refused before step 5, without companies, while not active, and a second time", async () => {
    const early = (await support().engagements.create({ organizationId: p.orgB, platformKey: "qhyg" })).id;
    expect((await trpcError(support().handover.confirm({ engagementId: early }))).message).toBe("The handover comes after step 5 (Single-company test).");

    const f = await seedHandover(t.database, p);
    await support().engagements.setStatus({ engagementId: f.engagementId, status: "on_hold", reasonCode: "customer_unavailable" });
    expect((await trpcError(support().handover.confirm({ engagementId: f.engagementId }))).message).toBe(
      "The engagement is on hold; the handover report can be produced only while it is active.",
    );
    await support().engagements.setStatus({ engagementId: f.engagementId, status: "active" });
    await support().handover.confirm({ engagementId: f.engagementId });
    const again = await trpcError(support().handover.confirm({ engagementId: f.engagementId }));
    expect(again).toMatchObject({ code: "PRECONDITION_FAILED", message: "The handover report has already been produced." });
    expect(await rows(handovers)).toBe(1);
  });

  it("ignores a rehearsal's companies: they neither hold the report back nor appear in it", async () => {
    const f = await seedHandover(t.database, p);
    await addRehearsalItem(f, "pending");
    const view = await support().handover.get({ engagementId: f.engagementId });
    expect(view.total).toBe(6);
    expect(view.actions.confirm.allowed).toBe(true);
    await support().handover.confirm({ engagementId: f.engagementId });
    const page = await support().handover.items({ engagementId: f.engagementId, pageSize: 100 });
    expect(page.total).toBe(6);
    expect(page.items.map((r) => r.name)).not.toContain("Rehearsal Co");
  });

  it("records the counts per final state, starts step 6, audits it and mails the customer", async () => {
    const f = await seedHandover(t.database, p, { contacts: [{ name: "Ops Lead", email: "ops@org-a.test" }, { name: "Customer A again", email: "A@ORG-A.TEST" }] });
    await support().handover.confirm({ engagementId: f.engagementId });

    const view = await support().handover.get({ engagementId: f.engagementId });
    expect(view.handover).toMatchObject({
      total: 6,
      counts: { verified: 3, reauth_required: 1, failed: 1, set_aside: 1 },
      confirmedBy: { name: "Support One" },
      acknowledgedAt: null,
      purgedAt: null,
    });
    expect(view.handover!.automaticPurgeAt.getTime() - view.handover!.confirmedAt.getTime()).toBe(14 * 24 * 3600 * 1000);
    expect(view.actions.acknowledge).toEqual({ allowed: true, reason: null, needsNote: true });
    expect(view.credentialsHeld).toBe(6);

    const eng = await support().engagements.get({ engagementId: f.engagementId });
    expect(eng.steps[5]!.state).toBe("in_progress");
    const timeline = await support().engagements.timeline({ engagementId: f.engagementId });
    // The reconciliation, in the words every surface uses (the fixture's failed company had a companyId but never linked).
    const words = "6 companies supplied: 5 created on the service, 3 linked, 3 synced; 3 verified, 1 reauthorization required, 1 set aside, 1 failed";
    expect(view.reconciliation).toMatchObject({ supplied: 6, created: 5, linked: 3, synced: 3, verified: 3, reauthRequired: 1, setAside: 1, failed: 1, inProgress: 0 });
    expect(timeline.map((e) => e.summary)).toContain(`Produced the handover report: ${words}`);
    expect(timeline.map((e) => e.summary)).toContain("Started step 6 (Bulk migration and handover)");

    // (The set-up's flows mailed too; this is the report's mail.)
    const mail = await t.db.select().from(mailOutbox).where(like(mailOutbox.subject, "%handover report is ready"));
    expect(mail.map((m) => m.to).sort()).toEqual(["a@org-a.test", "ops@org-a.test"]);
    expect(mail[0]!.subject).toBe(`[${f.reference}] Your handover report is ready`);
    expect(mail[0]!.text).toContain(`its handover report is ready: ${words}.`);
    expect(mail[0]!.text).toContain(`http://ferry.test/portal/engagements/${f.engagementId}`);
    expect(mail[0]!.text).toMatch(/deleted automatically on \d{4}-\d\d-\d\d/);
  });
});

describe("the report's companies", () => {
  it("lists every real company in file order with ids, checks, and for the rest why and what to do", async () => {
    const f = await seedHandover(t.database, p);
    await support().handover.confirm({ engagementId: f.engagementId });
    const page = await customer().handover.items({ engagementId: f.engagementId, pageSize: 25 });
    expect(page).toMatchObject({ total: 6, page: 1, pageSize: 25 });
    const [verified, , , reauth, failed, aside] = page.items;
    expect(verified).toMatchObject({
      name: "Company 0 Ltd",
      externalRef: "REF-0",
      state: "verified",
      companyId: expect.any(String),
      connectionId: expect.any(String),
      checksSummary: "Linked; 2 of 3 data types complete, 1 not supported; 50 records",
      reason: null,
      customerAction: null,
      error: null,
    });
    // Why, in words; the platform's own words (invalid_grant) in the error beside it, with the status the refusal left.
    expect(reauth).toMatchObject({
      reason: "The platform refused the migrated tokens when the connection was authorized, so it needs authorizing again.",
      error: { error: expect.stringContaining("invalid_grant"), correlationId: expect.stringMatching(/^corr-/) },
      errorStatus: "Deauthorized",
    });
    expect(reauth!.customerAction).toContain("check that syncing in your old app is off, then send the end customer the company's reconnect link, or send fresh tokens for it in a supplementary file");
    expect(failed!.error).toMatchObject({ status: 500, error: "Internal server error", correlationId: expect.stringMatching(/^corr-/) });
    expect(failed).toMatchObject({ reason: "The service did not complete the migration after 5 failed attempts in a row.", errorStatus: "500", attempts: 5, attemptsInAll: 7 });
    expect(aside).toMatchObject({ state: "set_aside", companyId: null, reason: "Set aside by support: The customer closed this company last month." });
  });

  it("pages, filters by final state and searches on the server", async () => {
    const f = await seedHandover(t.database, p, {
      companies: Array.from({ length: 30 }, (_, i) => ({ state: i % 10 === 0 ? ("failed" as const) : ("verified" as const), name: `Shop ${i}` })),
    });
    const s = support();
    const page2 = await s.handover.items({ engagementId: f.engagementId, page: 2, pageSize: 7 });
    expect(page2.total).toBe(30);
    expect(page2.items.map((r) => r.name)).toEqual(["Shop 7", "Shop 8", "Shop 9", "Shop 10", "Shop 11", "Shop 12", "Shop 13"]);
    const failed = await s.handover.items({ engagementId: f.engagementId, state: "failed" });
    expect(failed.items.map((r) => r.name)).toEqual(["Shop 0", "Shop 10", "Shop 20"]);
    expect((await s.handover.items({ engagementId: f.engagementId, search: "shop 2" })).items.map((r) => r.name)).toEqual([
      "Shop 2",
      "Shop 20",
      "Shop 21",
      "Shop 22",
      "Shop 23",
      "Shop 24",
      "Shop 25",
      "Shop 26",
      "Shop 27",
      "Shop 28",
      "Shop 29",
    ]);
    const byCompanyId = page2.items[0]!.companyId!;
    expect((await s.handover.items({ engagementId: f.engagementId, search: byCompanyId })).items.map((r) => r.name)).toEqual(["Shop 7"]);
    // Wildcards are searched for as text.
    expect((await s.handover.items({ engagementId: f.engagementId, search: "%" })).total).toBe(0);
  });

  it("is hidden from the customer until the report is produced", async () => {
    const f = await seedHandover(t.database, p);
    const error = await trpcError(customer().handover.items({ engagementId: f.engagementId }));
    expect(error).toMatchObject({ code: "PRECONDITION_FAILED", message: "The handover report has not been produced yet." });
    // Support sees a preview.
    await expect(support().handover.items({ engagementId: f.engagementId })).resolves.toMatchObject({ total: 6 });
    const view = await customer().handover.get({ engagementId: f.engagementId });
    expect(view.actions).toEqual({
      confirm: { allowed: false, reason: "Support produces the handover report." },
      acknowledge: { allowed: false, reason: "The handover report has not been produced yet.", needsNote: false },
    });
  });

  it("another organisation's customer gets exactly what an unknown id gets", async () => {
    const f = await seedHandover(t.database, p);
    await support().handover.confirm({ engagementId: f.engagementId });
    const other = callerAs(t.database, p.customerB);
    const unknown = await trpcError(other.handover.get({ engagementId: "no-such-engagement" }));
    // Each call made only when awaited: a rejection nobody awaits yet would be an unhandled one.
    for (const call of [
      () => other.handover.get({ engagementId: f.engagementId }),
      () => other.handover.items({ engagementId: f.engagementId }),
      () => other.handover.acknowledge({ engagementId: f.engagementId }),
    ]) {
      expect(await trpcError(call())).toMatchObject({ code: "NOT_FOUND", message: unknown.message });
    }
    expect((await theHandover())!.acknowledgedAt).toBeNull();
  });
});

describe("acknowledging the report", () => {
  it("is refused before the report is produced", async () => {
    const f = await seedHandover(t.database, p);
    const error = await trpcError(customer().handover.acknowledge({ engagementId: f.engagementId }));
    expect(error).toMatchObject({ code: "PRECONDITION_FAILED", message: "The handover report has not been produced yet." });
    expect(await heldCiphers()).toBe(6);
  });

  it("by the customer purges every credential, completes step 6 and the engagement, audited and mailed", async () => {
    const f = await seedHandover(t.database, p);
    await addRehearsalItem(f, "verified");
    await support().handover.confirm({ engagementId: f.engagementId });
    const masksBefore = await t.db.select({ id: migrationItems.id, mask: migrationItems.credentialsMask }).from(migrationItems).orderBy(migrationItems.id);

    const result = await customer().handover.acknowledge({ engagementId: f.engagementId });
    expect(result).toEqual({ status: "completed", purged: { items: 6, rehearsalItems: 1, submissions: 1, rehearsalKeys: 0, supplementaryRows: 0 } });

    // Ciphertexts gone, masks kept, purge times recorded.
    const items = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, f.engagementId)).orderBy(migrationItems.id);
    expect(items.every((i) => i.credentialsCipher === null && i.credentialsPurgedAt !== null)).toBe(true);
    expect(items.map((i) => ({ id: i.id, mask: i.credentialsMask }))).toEqual(masksBefore);
    const [submission] = await t.db.select().from(intakeSubmissions).where(eq(intakeSubmissions.id, f.submissionId));
    expect(submission).toMatchObject({ clientSecretCipher: null, clientSecretMask: `••••${f.clientSecret.slice(-4)}`, credentialsPurgedAt: expect.any(Date) });

    // Step 6 done with the handover as its evidence; the engagement completed.
    const eng = await support().engagements.get({ engagementId: f.engagementId });
    expect(eng).toMatchObject({ status: "completed", currentStep: 7, stepsDone: 6 });
    expect(eng.steps[5]).toMatchObject({
      state: "done",
      completedBy: { name: "Customer A" },
      evidence: { flow: { kind: "handed_over", counts: { verified: 3, reauth_required: 1, failed: 1, set_aside: 1 } } },
    });
    const view = await support().handover.get({ engagementId: f.engagementId });
    expect(view.handover).toMatchObject({ acknowledgedBy: { name: "Customer A" }, acknowledgementNote: null, purgeTrigger: "handover_acknowledged" });
    expect(view.handover!.purgedAt).toEqual(view.handover!.acknowledgedAt);
    expect(view.credentialsHeld).toBe(0);

    const timeline = (await customer().engagements.timeline({ engagementId: f.engagementId })).map((e) => [e.actor, e.summary]);
    expect(timeline.slice(0, 4)).toEqual([
      ["Customer A (customer)", "Changed status from active to completed"],
      ["Customer A (customer)", "Completed step 6 (Bulk migration and handover)"],
      ["Customer A (customer)", "Purged the credentials of 6 companies, the simulated credentials of 1 company rehearsed and 1 OAuth client secret (the handover report was acknowledged)"],
      ["Customer A (customer)", "Acknowledged the handover report"],
    ]);

    const [ownerMail] = await t.db.select().from(mailOutbox).where(and(eq(mailOutbox.to, "support@test"), like(mailOutbox.subject, "%Handover report acknowledged")));
    expect(ownerMail!.subject).toBe(`[${f.reference}] Handover report acknowledged`);
    expect(ownerMail!.text).toContain("Customer A acknowledged the handover report");
    expect(ownerMail!.text).toContain("the tokens of 6 companies and 1 OAuth client secret deleted");

    const again = await trpcError(customer().handover.acknowledge({ engagementId: f.engagementId }));
    expect(again).toMatchObject({ code: "PRECONDITION_FAILED", message: "The handover report has already been acknowledged." });
  });

  it("by staff needs a note of how the customer acknowledged, which is kept as evidence", async () => {
    const f = await seedHandover(t.database, p);
    await support().handover.confirm({ engagementId: f.engagementId });
    const noNote = await trpcError(support().handover.acknowledgeOnBehalf({ engagementId: f.engagementId, note: "  " }));
    expect(noNote.code).toBe("BAD_REQUEST");
    expect(noNote.cause).toMatchObject({ fields: { note: expect.stringContaining("Say how the customer acknowledged") } });
    expect((await theHandover())!.acknowledgedAt).toBeNull();

    await support().handover.acknowledgeOnBehalf({ engagementId: f.engagementId, note: "Carol confirmed by email on 3 May." });
    const eng = await support().engagements.get({ engagementId: f.engagementId });
    expect(eng.steps[5]).toMatchObject({ state: "done", evidence: { note: "Carol confirmed by email on 3 May.", flow: { kind: "handed_over" } } });
    const summaries = (await support().engagements.timeline({ engagementId: f.engagementId })).map((e) => e.summary);
    expect(summaries).toContain("Recorded the customer's acknowledgement of the handover report: Carol confirmed by email on 3 May");
    expect((await support().handover.get({ engagementId: f.engagementId })).handover!.acknowledgementNote).toBe("Carol confirmed by email on 3 May.");
  });

  it("is refused while the engagement is on hold, and nothing is purged", async () => {
    const f = await seedHandover(t.database, p);
    await support().handover.confirm({ engagementId: f.engagementId });
    await support().engagements.setStatus({ engagementId: f.engagementId, status: "on_hold", reasonCode: "customer_unavailable" });
    const error = await trpcError(customer().handover.acknowledge({ engagementId: f.engagementId }));
    expect(error.message).toBe("The engagement is on hold; the handover can be acknowledged only while it is active.");
    expect(await heldCiphers(f.engagementId)).toBe(6);
  });

  it("is refused, and nothing purged, while a step before it was reopened after the report", async () => {
    const f = await seedHandover(t.database, p);
    await support().handover.confirm({ engagementId: f.engagementId });
    await support().engagements.step({ engagementId: f.engagementId, step: 5, action: "reopen", reason: "Test again on the new target." });
    const error = await trpcError(customer().handover.acknowledge({ engagementId: f.engagementId }));
    expect(error.message).toBe("The handover can be acknowledged once step 5 (Single-company test) is done again.");
    expect((await customer().handover.get({ engagementId: f.engagementId })).actions.acknowledge).toMatchObject({ allowed: false, reason: error.message });
    expect((await theHandover())!.acknowledgedAt).toBeNull();
    expect(await heldCiphers()).toBe(6);
  });

  it("puts no secret into any response, the audit log or the mail", async () => {
    const f = await seedHandover(t.database, p);
    const envelopes = (await t.db.select({ c: migrationItems.credentialsCipher }).from(migrationItems)).map((r) => r.c!);
    envelopes.push((await t.db.select().from(intakeSubmissions))[0]!.clientSecretCipher!);
    const responses: unknown[] = [];
    const record = async <T,>(x: Promise<T>) => {
      const v = await x;
      responses.push(v);
      return v;
    };
    await record(support().handover.get({ engagementId: f.engagementId }));
    await record(support().handover.items({ engagementId: f.engagementId }));
    await record(support().handover.confirm({ engagementId: f.engagementId }));
    await record(customer().handover.get({ engagementId: f.engagementId }));
    await record(customer().handover.items({ engagementId: f.engagementId, pageSize: 1000 }));
    await record(customer().handover.acknowledge({ engagementId: f.engagementId }));
    await record(customer().engagements.get({ engagementId: f.engagementId }));
    await record(support().engagements.timeline({ engagementId: f.engagementId }));
    const everything = JSON.stringify([responses, await t.db.select().from(auditEvents).orderBy(asc(auditEvents.id)), await t.db.select().from(mailOutbox)]);
    const secrets = [f.clientSecret, ...envelopes, ...f.items.flatMap((i) => [i.credentials.accessToken!, i.credentials.refreshToken!])];
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });
});

describe("at once", { tags: ["both-databases"] }, () => {
  /** `n` calls started together (after reads at once, so the pool has a connection for each). */
  async function together<T>(engagementId: string, n: number, call: () => Promise<T>) {
    await Promise.all(Array.from({ length: n }, () => support().handover.get({ engagementId })));
    return Promise.allSettled(Array.from({ length: n }, call));
  }

  it("of several confirmations at once, one produces the report and mails it; the others are refused (on PostgreSQL they really are at once)", async () => {
    const f = await seedHandover(t.database, p, { contacts: [{ name: "Ops Lead", email: "ops@org-a.test" }] });
    const results = await together(f.engagementId, 6, () => support().handover.confirm({ engagementId: f.engagementId }));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) {
      expect(r.reason).toMatchObject({ code: "PRECONDITION_FAILED", message: "The handover report has already been produced." });
    }
    expect(await rows(handovers)).toBe(1);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.action, "handover.confirmed"))).toHaveLength(1);
    const mail = await t.db.select().from(mailOutbox).where(like(mailOutbox.subject, "%handover report is ready"));
    expect(mail.map((m) => m.to).sort()).toEqual(["a@org-a.test", "ops@org-a.test"]);
  });

  it("of several acknowledgements at once, one purges and completes step 6; the others are refused", async () => {
    const f = await seedHandover(t.database, p);
    await support().handover.confirm({ engagementId: f.engagementId });
    const results = await together(f.engagementId, 6, () => customer().handover.acknowledge({ engagementId: f.engagementId }));
    expect(results.filter((r) => r.status === "fulfilled").map((r) => (r as PromiseFulfilledResult<unknown>).value)).toEqual([
      { status: "completed", purged: { items: 6, rehearsalItems: 0, submissions: 1, rehearsalKeys: 0, supplementaryRows: 0 } },
    ]);
    for (const r of results.filter((r) => r.status === "rejected")) {
      expect(r.reason).toMatchObject({ code: "PRECONDITION_FAILED", message: "The handover report has already been acknowledged." });
    }
    for (const action of ["handover.acknowledged", "credentials.purged"]) {
      expect(await t.db.select().from(auditEvents).where(and(eq(auditEvents.engagementId, f.engagementId), eq(auditEvents.action, action)))).toHaveLength(1);
    }
    expect(await t.db.select().from(mailOutbox).where(like(mailOutbox.subject, "%Handover report acknowledged"))).toHaveLength(1);
  });
});

describe("the engagement's step 6", () => {
  it("cannot be completed by hand, and the handover cannot be produced for a completed engagement", async () => {
    const f = await seedHandover(t.database, p);
    await support().handover.confirm({ engagementId: f.engagementId });
    await customer().handover.acknowledge({ engagementId: f.engagementId });
    const [eng] = await t.db.select({ status: engagements.status }).from(engagements).where(eq(engagements.id, f.engagementId));
    expect(eng!.status).toBe("completed");
    const [step6] = await t.db.select().from(engagementSteps).where(and(eq(engagementSteps.engagementId, f.engagementId), eq(engagementSteps.step, 6)));
    expect(step6!.state).toBe("done");
    // A later item change (retrying one, say) cannot reopen a completed engagement's step 6 by hand.
    await finishItem(t.database, f.items[4]!.id, { state: "verified" });
    expect((await trpcError(support().engagements.step({ engagementId: f.engagementId, step: 6, action: "reopen", reason: "x" }))).code).toBe("PRECONDITION_FAILED");
  });
});
