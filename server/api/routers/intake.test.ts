/**
 * Step 1 through the procedures (createCaller, a real temporary database): support's review of a
 * submission, sending it back with a note, replacing a submission, the refusal once the migration
 * has started, and whose move it is with the mail that goes with it. Files are submitted through
 * the same domain operation the upload route calls.
 */
import { count, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engagements, mailOutbox, migrationItems, migrationRuns, windowProposals } from "@/db/schema";
import { submitIntake } from "@/server/engagements/flows";
import { tokenFileCsv } from "@/server/intake";
import { ITEMS_PER_BATCH } from "@/server/items/insert-items";
import { openItemCredentials } from "@/server/items/item-credentials";
import { csvBytes, headerFor, rowFor, xlsxBytes } from "@/server/testing/token-files";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { getManagedPlatform } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { agreeWindow, completeIntake, sampleCompanies } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { callerAs, testConfig, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;
let engagementId: string;
const qbo = getManagedPlatform("qhyg")!;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  engagementId = (await callerAs(t.database, p.support).engagements.create({ organizationId: p.orgA, platformKey: "qhyg" })).id;
});
afterEach(() => t.close());

const support = () => callerAs(t.database, p.support);
const customer = () => callerAs(t.database, p.customerA);

async function submit(companies = sampleCompanies("qhyg", 3), actor: Actor = p.customerA, fileName = "companies.csv") {
  const result = await submitIntake(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, actor, {
    engagementId,
    form: { clientId: "client-abc", clientSecret: "cs_secret_value_123456", contacts: [{ name: "Carol Contact", email: "carol.contact@org-a.test" }] },
    file: { name: fileName, bytes: tokenFileCsv({ platformKey: "qhyg", companies }) },
  });
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.check.problems)}`);
  return result;
}

const mailTo = (to: string) => t.db.select().from(mailOutbox).where(eq(mailOutbox.to, to)).orderBy(mailOutbox.createdAt);
const waitingOn = async () => (await t.db.select({ on: engagements.waitingOn, since: engagements.waitingSince }).from(engagements).where(eq(engagements.id, engagementId)).limit(1))[0]!;

describe("support's review", () => {
  it("shows both sides the submission (counts, warnings by line, masked values, who and when), and accepting completes step 1", async () => {
    expect((await waitingOn()).on).toBe("customer");
    const { expiresAt: _, ...noExpiry } = credentialsFor(qbo, 9);
    const companies = [...sampleCompanies("qhyg", 2), { name: "Café Olé", credentials: noExpiry }];
    const { submissionId } = await submit(companies);
    expect((await waitingOn()).on).toBe("support");

    const seen = await support().intake.get({ engagementId });
    expect(seen.current).toMatchObject({
      id: submissionId,
      status: "submitted",
      clientId: "client-abc",
      clientSecretMasked: "••••3456",
      contacts: [{ name: "Carol Contact", email: "carol.contact@org-a.test" }],
      rowCount: 3,
      warningCount: 2,
      countsByKind: { company_name_altered: 1, expires_at_missing: 1 },
      submittedBy: { name: "Customer A" },
    });
    expect(seen.current!.warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: "company_name_altered", line: 4, becomes: "Cafe Ole" }), expect.objectContaining({ kind: "expires_at_missing", line: 4 })]),
    );
    expect(seen.current!.preview.rows[0]).toMatchObject({ sourceRef: "line 2", values: { companyName: "Company 1 Ltd", accessToken: expect.stringMatching(/^••••.{4}$/) } });
    expect(seen.accept).toEqual({ allowed: true, reason: null });
    expect((await customer().intake.get({ engagementId })).current?.id).toBe(submissionId);
    expect((await customer().intake.get({ engagementId })).accept.allowed).toBe(false);

    const items = await support().intake.items({ engagementId, page: 1, pageSize: 2 });
    expect(items.total).toBe(3);
    expect(items.items.map((i) => i.sourceRef)).toEqual(["line 2", "line 3"]);
    expect(items.items[0]!.credentialsMask).toMatchObject({ accessToken: expect.stringMatching(/^••••/), realmId: companies[0]!.credentials.realmId });

    await support().intake.accept({ engagementId, submissionId });
    const eng = await support().engagements.get({ engagementId });
    expect(eng.steps[0]).toMatchObject({
      state: "done",
      completedBy: { name: "Support One" },
      evidence: { flow: { kind: "intake_accepted", submissionId, rowCount: 3, warningCount: 2, submittedBy: "Customer A" } },
    });
    expect(eng.waiting).toMatchObject({ party: "support", next: "Propose a migration window." });
    expect((await mailTo("a@org-a.test")).at(-1)).toMatchObject({ subject: expect.stringContaining("were accepted") });
    expect((await mailTo("carol.contact@org-a.test")).at(-1)).toMatchObject({ subject: expect.stringContaining("were accepted") });
    const timeline = await support().engagements.timeline({ engagementId });
    expect(timeline.map((e) => e.summary)).toEqual(
      expect.arrayContaining([
        "Accepted the token file companies.csv (3 companies, 2 warnings)",
        "Completed step 1 (Details gathered)",
        "Submitted the details and the token file companies.csv (3 companies, 2 warnings)",
        "Started step 1 (Details gathered)",
      ]),
    );
    expect((await trpcError(support().intake.accept({ engagementId, submissionId }))).message).toBe("The submission is already accepted.");
  });

  it("accepts a submission once when support accepts it four times at once (the engagement's row is locked while checked)", async () => {
    const { submissionId } = await submit();
    await Promise.all([1, 2, 3, 4].map(() => t.db.select().from(engagements)));
    const tries = await Promise.allSettled([1, 2, 3, 4].map(() => support().intake.accept({ engagementId, submissionId })));
    expect(tries.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of tries.filter((r): r is PromiseRejectedResult => r.status === "rejected")) {
      expect(r.reason).toMatchObject({ code: "PRECONDITION_FAILED", message: "The submission is already accepted." });
    }
    const timeline = await support().engagements.timeline({ engagementId });
    expect(timeline.filter((e) => e.action === "intake.accepted")).toHaveLength(1);
    expect(timeline.filter((e) => e.action === "step.completed")).toHaveLength(1);
  });

  it("sends a submission back with a note the customer sees and is mailed; it can then no longer be accepted", async () => {
    const { submissionId } = await submit();
    const noNote = await trpcError(support().intake.return({ engagementId, submissionId, note: "  " }));
    expect(noNote.code).toBe("BAD_REQUEST");
    await support().intake.return({ engagementId, submissionId, note: "The realm ids are from your sandbox company; send production ones." });
    const seen = await customer().intake.get({ engagementId });
    expect(seen.current).toMatchObject({ status: "returned", returnNote: "The realm ids are from your sandbox company; send production ones.", reviewedBy: { name: "Support One" } });
    expect(seen.submit.allowed).toBe(true);
    expect((await waitingOn()).on).toBe("customer");
    const mail = (await mailTo("a@org-a.test")).at(-1)!;
    expect(mail.subject).toMatch(/was sent back$/);
    expect(mail.text).toContain("send production ones");
    expect(mail.text).toContain(`/portal/engagements/${engagementId}`);
    const again = await trpcError(support().intake.accept({ engagementId, submissionId }));
    expect(again).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("sent back") });
    const timeline = await support().engagements.timeline({ engagementId });
    expect(timeline[0]!.summary).toBe("Sent the submission back: The realm ids are from your sandbox company; send production ones");
  });
});

describe("storing the file", { tags: ["both-databases"] }, () => {
  const form = { clientId: "client-abc", clientSecret: "cs_secret_value_123456", contacts: [{ name: "Carol Contact", email: "carol.contact@org-a.test" }] };
  const submitBytes = (name: string, bytes: Buffer) => submitIntake(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, p.customerA, { engagementId, form, file: { name, bytes } });
  const items = () => t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, engagementId)).orderBy(migrationItems.position);
  // More than one batch (ITEMS_PER_BATCH), so a quote-free file stores some before it is read to its end.
  const many = ITEMS_PER_BATCH + 150;

  it.each([
    { kind: "a quote-free CSV (stored as it is read)", name: "tokens.csv", bytes: async () => csvBytes([headerFor(qbo), ...Array.from({ length: many }, (_, i) => rowFor(qbo, i + 1))]) },
    { kind: "a CSV with quoted names (read before it is stored)", name: "tokens.csv", bytes: async () => csvBytes([headerFor(qbo), ...Array.from({ length: many }, (_, i) => [`"Company ${i + 1}, Ltd"`, ...rowFor(qbo, i + 1).slice(1)])]) },
    { kind: "a workbook", name: "tokens.xlsx", bytes: () => xlsxBytes([headerFor(qbo), ...Array.from({ length: 40 }, (_, i) => rowFor(qbo, i + 1))]) },
  ])("stores every company of $kind in file order, each credential sealed for its own row", async ({ name, bytes }) => {
    const file = await bytes();
    const result = await submitBytes(name, file);
    expect(result.ok).toBe(true);
    const stored = await items();
    const rows = name.endsWith(".xlsx") ? 40 : many;
    expect(result.ok && result.companies).toBe(rows);
    expect(stored.map((r) => r.position)).toEqual(Array.from({ length: rows }, (_, i) => i));
    const last = stored.at(-1)!;
    expect(openItemCredentials(TEST_KEY_RING, { engagementId, itemId: last.id }, last.credentialsCipher!)).toEqual(credentialsFor(qbo, rows));
    const seen = await support().intake.get({ engagementId });
    expect(seen.current).toMatchObject({ rowCount: rows, status: "submitted" });
  });

  it("stores a file of more than a megabyte (its credentials sealed on a thread of their own where a core is free) as any other", async () => {
    const rows = 9_000;
    const bytes = csvBytes([headerFor(qbo), ...Array.from({ length: rows }, (_, i) => rowFor(qbo, i + 1))]);
    expect(bytes.length).toBeGreaterThan(1 << 20);
    const result = await submitBytes("large.csv", bytes);
    expect(result).toMatchObject({ ok: true, companies: rows });
    const stored = await items();
    expect(stored.map((r) => r.position)).toEqual(Array.from({ length: rows }, (_, i) => i));
    for (const position of [0, 99, 100, 2_999, rows - 1]) {
      const item = stored[position]!;
      expect(openItemCredentials(TEST_KEY_RING, { engagementId, itemId: item.id }, item.credentialsCipher!)).toEqual(credentialsFor(qbo, position + 1));
    }
    expect(new Set(stored.map((r) => r.credentialsCipher)).size).toBe(rows);
  });

  it("stores nothing of a replacement found wrong after a batch was stored, and the previous file stays current with its companies", async () => {
    const first = await submit(sampleCompanies("qhyg", 5));
    const rows = Array.from({ length: many }, (_, i) => rowFor(qbo, i + 1));
    rows[many - 10]![1] = "";
    const result = await submitBytes("late-error.csv", csvBytes([headerFor(qbo), ...rows]));
    expect(result.ok).toBe(false);
    expect(result.check.problems).toEqual([expect.objectContaining({ severity: "error", line: many - 10 + 2 })]);
    expect((await items()).map((r) => r.submissionId)).toEqual(Array(5).fill(first.submissionId));
    const seen = await support().intake.get({ engagementId });
    expect(seen.current).toMatchObject({ id: first.submissionId, status: "submitted", rowCount: 5 });
    expect(seen.history).toEqual([]);
    expect((await support().engagements.timeline({ engagementId })).filter((e) => e.action === "intake.submitted")).toHaveLength(1);
  });

  it("replaces the previous companies with those of a file stored as it is read", async () => {
    await submit(sampleCompanies("qhyg", 5));
    const result = await submitBytes("second.csv", csvBytes([headerFor(qbo), ...Array.from({ length: many }, (_, i) => rowFor(qbo, i + 1))]));
    expect(result).toMatchObject({ ok: true, companies: many, replacedCompanies: 5 });
    const stored = await items();
    expect(stored).toHaveLength(many);
    expect(new Set(stored.map((r) => r.submissionId))).toEqual(new Set([result.ok && result.submissionId]));
    expect((await support().intake.get({ engagementId })).current).toMatchObject({ fileName: "second.csv", rowCount: many, replacedItemCount: 5 });
  });
});

describe("replacing a submission", () => {
  it("replaces the previous companies, audited with counts before and after; the old submission can no longer be reviewed", async () => {
    const first = await submit(sampleCompanies("qhyg", 5));
    const second = await submit(sampleCompanies("qhyg", 2), p.customerA, "fixed.csv");
    expect(second.replacedCompanies).toBe(5);
    expect((await t.db.select({ n: count() }).from(migrationItems).where(eq(migrationItems.engagementId, engagementId)))[0]!.n).toBe(2);
    const seen = await support().intake.get({ engagementId });
    expect(seen.current).toMatchObject({ id: second.submissionId, fileName: "fixed.csv", replacedItemCount: 5 });
    expect(seen.history).toEqual([expect.objectContaining({ id: first.submissionId, status: "replaced", rowCount: 5 })]);
    const stale = await trpcError(support().intake.accept({ engagementId, submissionId: first.submissionId }));
    expect(stale).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("no longer the current one") });
    const timeline = await support().engagements.timeline({ engagementId });
    expect(timeline[0]).toMatchObject({
      action: "intake.submitted",
      summary: "Submitted the details and the token file fixed.csv (2 companies, 0 warnings), replacing the previous file (5 companies)",
      before: { submission: first.submissionId, companies: 5 },
      after: { companies: 2 },
    });
  });

  it("a new file after acceptance reopens step 1 and the steps gated on it (not the callback URL), and supersedes the windows", async () => {
    const flow = { db: t.database, config: testConfig(), support: p.support, customer: p.customerA };
    await completeIntake(flow, { engagementId });
    await agreeWindow(flow, { engagementId });
    await customer().confirmations.callbackUrl({ engagementId });
    expect((await customer().intake.get({ engagementId })).submitReopens).toBe(true);

    await submit(sampleCompanies("qhyg", 4));
    const eng = await support().engagements.get({ engagementId });
    expect(eng.steps.map((s) => s.state)).toEqual(["in_progress", "pending", "done", "pending", "pending", "pending"]);
    expect(eng.steps[1]!.reopenedReason).toBe("Step 1 was reopened: A new token file was submitted");
    expect(eng.windowStartsAt).toBeNull();
    expect((await t.db.select().from(windowProposals).where(eq(windowProposals.engagementId, engagementId))).map((w) => w.status)).toEqual(["superseded"]);
    expect(eng.waiting.party).toBe("support");
  });

  it("sending back an accepted submission reopens step 1 with the note, and the cascade applies", async () => {
    const flow = { db: t.database, config: testConfig(), support: p.support, customer: p.customerA };
    const { submissionId } = await completeIntake(flow, { engagementId });
    await customer().confirmations.syncingDisabled({ engagementId });
    await support().intake.return({ engagementId, submissionId, note: "Wrong OAuth app" });
    const eng = await support().engagements.get({ engagementId });
    expect(eng.steps.slice(0, 4).map((s) => s.state)).toEqual(["pending", "pending", "pending", "pending"]);
    expect(eng.steps[0]!.reopenedReason).toBe("Submission sent back: Wrong OAuth app");
    expect(eng.waiting.party).toBe("customer");
    const timeline = await support().engagements.timeline({ engagementId });
    expect(timeline[0]!.summary).toBe("Sent the accepted submission back: Wrong OAuth app");
  });

  it("is refused once the migration has started, as is sending the accepted file back", async () => {
    const flow = { db: t.database, config: testConfig(), support: p.support, customer: p.customerA };
    const { submissionId } = await completeIntake(flow, { engagementId });
    // The engine has taken the first company (its state is the pipeline's record).
    const first = (await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, engagementId)).orderBy(migrationItems.position).limit(1))[0]!;
    await t.db.update(migrationItems).set({ state: "company_created", companyId: "c-1" }).where(eq(migrationItems.id, first.id));
    const refused = await submit().catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("migration has started") });
    const seen = await customer().intake.get({ engagementId });
    expect(seen.submit).toEqual({ allowed: false, reason: expect.stringContaining("migration has started") });
    expect((await support().intake.get({ engagementId })).return).toEqual({ allowed: false, reason: expect.stringContaining("migration has started") });
    expect((await trpcError(support().intake.return({ engagementId, submissionId, note: "x" }))).code).toBe("PRECONDITION_FAILED");
    expect((await t.db.select({ n: count() }).from(migrationItems).where(eq(migrationItems.engagementId, engagementId)))[0]!.n).toBe(3);
  });

  it("a requested single-company test run counts as started too", async () => {
    const flow = { db: t.database, config: testConfig(), support: p.support, customer: p.customerA };
    await completeIntake(flow, { engagementId });
    await t.db.insert(migrationRuns).values({ engagementId, kind: "pilot", status: "queued", requestedAt: new Date() });
    expect((await customer().intake.get({ engagementId })).submit.allowed).toBe(false);
  });
});

describe("whose move it is", () => {
  it("follows holds and resumes, and moves `since` only when it changes hands", async () => {
    await submit();
    const handed = await waitingOn();
    expect(handed.on).toBe("support");
    await support().engagements.setOwner({ engagementId, ownerId: p.support2.id });
    expect(await waitingOn()).toEqual(handed);
    await support().engagements.setStatus({ engagementId, status: "on_hold", reasonCode: "customer_unavailable" });
    expect(await waitingOn()).toEqual({ on: null, since: null });
    const refused = await submit().catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("on hold") });
    await support().engagements.setStatus({ engagementId, status: "active" });
    expect((await waitingOn()).on).toBe("support");
    // The list shows it and filters by it.
    const list = await support().engagements.list({ waitingOn: "support", page: 1, pageSize: 10 });
    expect(list.items.map((e) => [e.id, e.waitingOn])).toEqual([[engagementId, "support"]]);
    expect((await support().engagements.list({ waitingOn: "customer", page: 1, pageSize: 10 })).total).toBe(0);
    const portal = await customer().engagements.list({ page: 1, pageSize: 10 });
    expect(portal.items[0]).toMatchObject({ waitingOn: "support", waitingSince: expect.any(Date) });
    // The new owner was mailed that it is their move when the engagement resumed.
    expect((await mailTo("support2@test")).at(-1)).toMatchObject({ subject: expect.stringContaining("It is your move") });
  });
});
