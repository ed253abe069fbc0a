/**
 * The supplementary file on a real database (SQLite, or PostgreSQL in its pass): checked and sent through the domain (the
 * HTTP routes have their own tests), read, accepted and sent back through createCaller. Rows find
 * their companies by externalRef then name; every refusal is by line with nothing stored; a newer
 * file replaces one awaiting review; acceptance requeues exactly its companies into the bulk run
 * at connection_created with the fresh tokens sealed for them; sending back mails the customer.
 */
import { and, count, eq, isNotNull } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, mailOutbox, migrationItems, migrationRuns, supplementaryFiles, supplementaryRows } from "@/db/schema";
import { MIGRATION_ITEM_STATES } from "@/core/migration/states";
import { openItemCredentials, openSupplementaryCredentials } from "@/server/items/item-credentials";
import { SecretDecryptionError } from "@/server/security/secrets";
import { checkSupplementaryFile } from "@/server/migration/supplementary/check-supplementary-file";
import { waitsForFreshTokens } from "@/server/migration/supplementary/rules";
import { candidateCompanies, listWaiting } from "@/server/migration/supplementary/supplementary-repository";
import { submitSupplementaryFile } from "@/server/migration/supplementary/submit-supplementary-file";
import { afterBulkRun, freshCredentials, freshTokenCsv, type AfterBulkRun, type FreshRow } from "@/server/testing/supplementary-fixture";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import type { Actor } from "@/core/accounts/actor";
import { callerAs, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;
let f: AfterBulkRun;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  f = await afterBulkRun(t.database, p);
});
afterEach(() => t.close());

const read = { isolation: "read committed" } as const;
const support = () => callerAs(t.database, p.support);
const customer = () => callerAs(t.database, p.customerA);
const item = async (name: string) => (await t.db.select().from(migrationItems).where(and(eq(migrationItems.engagementId, f.engagementId), eq(migrationItems.name, name))).limit(1))[0]!;
const file = (rows: FreshRow[], name = "fresh.csv") => ({ name, bytes: freshTokenCsv(rows) });
const check = (rows: FreshRow[], actor: Actor = p.customerA) => checkSupplementaryFile(t.database, actor, { engagementId: f.engagementId, file: file(rows) });
const send = (rows: FreshRow[], name?: string) => submitSupplementaryFile(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, p.customerA, { engagementId: f.engagementId, file: file(rows, name) });

async function sent(rows: FreshRow[], name?: string) {
  const result = await send(rows, name);
  if (!result.ok) throw new Error(`the file was refused: ${JSON.stringify(result.check.problems)}`);
  return result;
}

/** What a refused file must leave unchanged. */
async function stored() {
  const n = async (table: typeof supplementaryFiles | typeof supplementaryRows | typeof auditEvents | typeof mailOutbox) => (await t.db.select({ n: count() }).from(table))[0]!.n;
  return { files: await n(supplementaryFiles), rows: await n(supplementaryRows), audit: await n(auditEvents), mail: await n(mailOutbox) };
}

const COPPERLEAF = { name: "whatever the name", externalRef: "CC-02", seed: 1 };
const WILDROSE = { name: "Wildrose Wedding Co", seed: 2 };

describe("which companies wait for fresh tokens", () => {
  it("are those that failed on their tokens: the list (SQL) and the rule (pure) agree on every state", async () => {
    // One company in every state, and failures of both kinds.
    const all = await afterBulkRun(t.database, p, {
      organizationId: p.orgB,
      companies: [
        ...MIGRATION_ITEM_STATES.map((state) => ({ state, name: `Co ${state}` })),
        { state: "failed" as const, name: "Co refused", lastError: { kind: "reauthorization_required" as const, status: 400, error: "invalid_grant", correlationId: null } },
      ],
    });
    const byRule = (await t.database.transaction((tx) => candidateCompanies(tx, all.engagementId), read)).filter(waitsForFreshTokens).map((c) => c.name);
    expect(byRule.sort()).toEqual(["Co reauth_required", "Co reconnect_pending", "Co refused"]);
    expect((await t.database.transaction((tx) => listWaiting(tx, all.engagementId, 100), read)).map((c) => c.name).sort()).toEqual(byRule);
  });

  it("are listed to both sides with why each failed, with the customer offered the file and support nothing yet", async () => {
    const view = await customer().supplementary.get({ engagementId: f.engagementId });
    expect(view.waiting.total).toBe(3);
    expect(view.waiting.companies.map((c) => [c.name, c.externalRef, c.state])).toEqual([
      ["Copperleaf Cafe", "CC-02", "reauth_required"],
      ["Wildrose Wedding Co", null, "reauth_required"],
      ["Société Générale Café", "SG-04", "failed"],
    ]);
    expect(view.waiting.companies[0]!.reason).toMatch(/invalid_grant/);
    expect(view.waiting.companies[2]!.failure).toMatchObject({ kind: "auth_error_during_sync", error: "AuthError: the tokens were refused during the sync" });
    expect(view).toMatchObject({ current: null, submit: { allowed: true }, accept: { allowed: false } });
    expect((await support().supplementary.get({ engagementId: f.engagementId })).submit).toEqual({ allowed: false, reason: "Customers send fresh tokens in the portal." });
  });

  it("is nobody before the bulk run: no file can be checked or sent", async () => {
    await t.db.delete(migrationRuns).where(eq(migrationRuns.id, f.runId));
    const view = await customer().supplementary.get({ engagementId: f.engagementId });
    expect(view.submit.reason).toMatch(/once the bulk migration has run/);
    await expect(check([COPPERLEAF])).rejects.toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringMatching(/once the bulk migration has run/) });
  });
});

describe("checking and sending a file", () => {
  it("matches rows by externalRef, then by name, and stores nothing on a check", async () => {
    const before = await stored();
    const result = await check([COPPERLEAF, WILDROSE, { name: "Société Générale Café", seed: 3 }]);
    expect(result).toMatchObject({ ok: true, rowCount: 3, errorCount: 0 });
    expect(result.matches.map((m) => [m.sourceRef, m.name, m.matchedBy])).toEqual([
      ["line 2", "Copperleaf Cafe", "externalRef"],
      ["line 3", "Wildrose Wedding Co", "name"],
      ["line 4", "Société Générale Café", "name"],
    ]);
    // The preview masks every secret, as the first file's does.
    expect(JSON.stringify(result.preview)).not.toContain(freshCredentials(1).refreshToken!);
    expect(await stored()).toEqual(before);
  });

  it.each([
    ["a company that is not in the engagement", { name: "Nobody Ltd", seed: 9 }, "company_not_in_engagement", /No company of this migration is named “Nobody Ltd”/],
    ["a reference that is not the engagement's", { name: "Copperleaf Cafe", externalRef: "XX-99", seed: 9 }, "company_not_in_engagement", /external reference “XX-99”/],
    ["a company already verified", { name: "Harbour Books Ltd", seed: 9 }, "company_not_waiting", /Harbour Books Ltd is already verified/],
    ["a company that failed for another reason", { name: "x", externalRef: "ST-05", seed: 9 }, "company_not_waiting", /Server Trouble Ltd failed for a reason fresh tokens do not fix/],
    ["a company named twice", { name: "Copperleaf Cafe", seed: 9 }, "duplicate_company", /Copperleaf Cafe is already on line 2/],
  ])("refuses %s by its line, and stores nothing", async (_what, bad, kind, message) => {
    const before = await stored();
    const result = await send([COPPERLEAF, bad]);
    expect(result.ok).toBe(false);
    expect(result.check).toMatchObject({ ok: false, errorCount: 1, countsByKind: { [kind]: 1 } });
    expect(result.check.problems).toEqual([expect.objectContaining({ kind, severity: "error", line: 3, message: expect.stringMatching(message) })]);
    expect(await stored()).toEqual(before);
  });

  it("refuses what the first file's check refuses (here a malformed token), by line, and stores nothing", async () => {
    const before = await stored();
    const bytes = Buffer.from(freshTokenCsv([COPPERLEAF]).toString("utf8").replace(freshCredentials(1).refreshToken!, "not a token"));
    const result = await submitSupplementaryFile(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, p.customerA, { engagementId: f.engagementId, file: { name: "fresh.csv", bytes } });
    expect(result.ok).toBe(false);
    expect(result.check.problems).toEqual([expect.objectContaining({ kind: "malformed_value", line: 2, column: "refreshToken" })]);
    expect(await stored()).toEqual(before);
  });

  it("stores the file and a row per company, each's tokens encrypted for its row alone; only masks come back; support is to be told", async () => {
    const result = await sent([COPPERLEAF, WILDROSE]);
    expect(result).toMatchObject({ companies: 2, replacedCompanies: 0 });
    const rows = await t.db.select().from(supplementaryRows).where(eq(supplementaryRows.fileId, result.fileId)).orderBy(supplementaryRows.position);
    expect(rows.map((r) => [r.itemId, r.sourceRef])).toEqual([
      [(await item("Copperleaf Cafe")).id, "line 2"],
      [(await item("Wildrose Wedding Co")).id, "line 3"],
    ]);
    const ref = (rowId: string) => ({ engagementId: f.engagementId, fileId: result.fileId, rowId });
    expect(openSupplementaryCredentials(TEST_KEY_RING, ref(rows[0]!.id), rows[0]!.credentialsCipher!)).toEqual(freshCredentials(1));
    // Moved to another row, a ciphertext no longer opens.
    expect(() => openSupplementaryCredentials(TEST_KEY_RING, ref(rows[1]!.id), rows[0]!.credentialsCipher!)).toThrow(SecretDecryptionError);

    const view = await support().supplementary.get({ engagementId: f.engagementId });
    expect(view.current).toMatchObject({ status: "submitted", fileName: "fresh.csv", rowCount: 2, submittedBy: { name: p.customerA.name } });
    expect(view.current!.rows.map((r) => [r.company.name, r.credentialsMask.refreshToken])).toEqual([
      ["Copperleaf Cafe", `••••${freshCredentials(1).refreshToken!.slice(-4)}`],
      ["Wildrose Wedding Co", `••••${freshCredentials(2).refreshToken!.slice(-4)}`],
    ]);
    expect(JSON.stringify(view)).not.toContain(freshCredentials(1).refreshToken!);
    expect(view).toMatchObject({ accept: { allowed: true }, sendBack: { allowed: true } });
    // The route mails support (see intake-http.test.ts); the operation says what to tell them.
    expect(result.notice).toMatchObject({ to: "support", subject: "Fresh tokens to review" });
    const timeline = await support().engagements.timeline({ engagementId: f.engagementId });
    expect(timeline[0]!.summary).toBe("Sent fresh tokens for 2 companies in fresh.csv (0 warnings)");
  });

  it("replaces a file awaiting review with a newer one, deleting the older file's tokens", async () => {
    const first = await sent([COPPERLEAF], "first.csv");
    const second = await sent([COPPERLEAF, WILDROSE], "second.csv");
    expect(second.replacedCompanies).toBe(1);
    const files = await t.db.select().from(supplementaryFiles);
    expect(Object.fromEntries(files.map((x) => [x.fileName, x.status]))).toEqual({ "first.csv": "replaced", "second.csv": "submitted" });
    const firstRows = await t.db.select().from(supplementaryRows).where(eq(supplementaryRows.fileId, first.fileId));
    expect(firstRows.map((r) => [r.credentialsCipher, r.credentialsPurgedAt !== null])).toEqual([[null, true]]);
    const view = await support().supplementary.get({ engagementId: f.engagementId });
    expect(view.current!.id).toBe(second.fileId);
    expect(view.history).toEqual([expect.objectContaining({ id: first.fileId, status: "replaced" })]);
    // Support can only review the current one.
    const stale = await trpcError(support().supplementary.accept({ engagementId: f.engagementId, fileId: first.fileId }));
    expect(stale).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringMatching(/no longer the current one/) });
  });
});

describe("support's review", () => {
  it("accepting requeues exactly the file's companies into the bulk run at connection_created, with the fresh tokens sealed for each", async () => {
    const { fileId } = await sent([COPPERLEAF, { name: "Société Générale Café", seed: 3 }]);
    const untouched = await Promise.all(["Harbour Books Ltd", "Wildrose Wedding Co", "Server Trouble Ltd"].map((name) => item(name)));
    expect(await support().supplementary.accept({ engagementId: f.engagementId, fileId })).toEqual({ companies: 2, skipped: 0 });

    for (const [name, seed] of [["Copperleaf Cafe", 1], ["Société Générale Café", 3]] as const) {
      const i = await item(name);
      expect(i).toMatchObject({ state: "connection_created", runId: f.runId, supplementaryFileId: fileId, attempts: 0, lastError: null, credentialsPurgedAt: null });
      expect(openItemCredentials(TEST_KEY_RING, { engagementId: f.engagementId, itemId: i.id }, i.credentialsCipher!)).toEqual(freshCredentials(seed));
      expect(i.credentialsMask.refreshToken).toBe(`••••${freshCredentials(seed).refreshToken!.slice(-4)}`);
    }
    // The others are as they were; the run is back at work.
    for (const before of untouched) expect(await item(before.name)).toEqual(before);
    expect((await t.db.select().from(migrationRuns).where(eq(migrationRuns.id, f.runId)))[0]!.status).toBe("queued");

    const view = await customer().supplementary.get({ engagementId: f.engagementId });
    expect(view.current).toMatchObject({ status: "accepted", decidedBy: { name: p.support.name } });
    expect(view.waiting.companies.map((c) => c.name)).toEqual(["Wildrose Wedding Co"]);
    const decrypted = await t.db.select().from(auditEvents).where(eq(auditEvents.action, "migration_item.credentials_decrypted"));
    expect(decrypted.map((e) => e.targetId).sort()).toEqual([(await item("Copperleaf Cafe")).id, (await item("Société Générale Café")).id].sort());
    const timeline = await support().engagements.timeline({ engagementId: f.engagementId });
    expect(timeline.map((e) => e.summary)).toContain("Accepted the fresh tokens of fresh.csv: retrying 2 companies in the bulk migration");
    const mail = await t.db.select().from(mailOutbox).where(eq(mailOutbox.subject, `[${f.reference}] Your fresh tokens were accepted`));
    expect(mail.length).toBeGreaterThan(0);
    expect(mail[0]!.text).toContain("2 companies are being migrated again with them");
    // Nothing to accept twice.
    expect(await trpcError(support().supplementary.accept({ engagementId: f.engagementId, fileId }))).toMatchObject({ message: expect.stringMatching(/already accepted/) });
  });

  it("skips a company that no longer waits for tokens by then, deleting its row's tokens", async () => {
    const { fileId } = await sent([COPPERLEAF, WILDROSE]);
    // Wildrose's end customer reconnected meanwhile and it was verified.
    await t.db.update(migrationItems).set({ state: "verified" }).where(eq(migrationItems.id, (await item("Wildrose Wedding Co")).id));
    expect(await support().supplementary.accept({ engagementId: f.engagementId, fileId })).toEqual({ companies: 1, skipped: 1 });
    expect(await item("Wildrose Wedding Co")).toMatchObject({ state: "verified", supplementaryFileId: null });
    const [wildroseRow] = await t.db.select().from(supplementaryRows).where(eq(supplementaryRows.itemId, (await item("Wildrose Wedding Co")).id)).limit(1);
    expect(wildroseRow!.credentialsCipher).toBeNull();
    const timeline = await support().engagements.timeline({ engagementId: f.engagementId });
    expect(timeline.map((e) => e.summary)).toContain("Accepted the fresh tokens of fresh.csv: retrying 1 company in the bulk migration; 1 company no longer waited for tokens and was skipped");
  });

  it("refuses to accept a file none of whose companies waits any more, changing nothing", async () => {
    const { fileId } = await sent([COPPERLEAF]);
    await t.db.update(migrationItems).set({ state: "set_aside" }).where(eq(migrationItems.id, (await item("Copperleaf Cafe")).id));
    const before = await stored();
    const error = await trpcError(support().supplementary.accept({ engagementId: f.engagementId, fileId }));
    expect(error).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringMatching(/None of the companies in fresh.csv waits for fresh tokens any more/) });
    expect(await stored()).toEqual(before);
    expect((await t.db.select().from(supplementaryFiles))[0]!.status).toBe("submitted");
  });

  it("sending back needs a note, mails it to the customer and deletes the file's tokens", async () => {
    const { fileId } = await sent([COPPERLEAF, WILDROSE]);
    expect(await trpcError(support().supplementary.sendBack({ engagementId: f.engagementId, fileId, note: "   " }))).toMatchObject({ code: "BAD_REQUEST" });
    await support().supplementary.sendBack({ engagementId: f.engagementId, fileId, note: "Line 3 has Wildrose's old tokens again." });
    const view = await customer().supplementary.get({ engagementId: f.engagementId });
    expect(view.current).toMatchObject({ status: "returned", note: "Line 3 has Wildrose's old tokens again.", decidedBy: { name: p.support.name } });
    expect(view.submit.allowed).toBe(true);
    expect((await t.db.select({ n: count() }).from(supplementaryRows).where(isNotNull(supplementaryRows.credentialsCipher)))[0]!.n).toBe(0);
    const mail = await t.db.select().from(mailOutbox).where(eq(mailOutbox.subject, `[${f.reference}] Your fresh tokens were sent back`));
    expect(mail.map((m) => m.to).sort()).toContain(p.customerA.email);
    expect(mail[0]!.text).toContain("Line 3 has Wildrose's old tokens again.");
    // The companies still wait, untouched.
    expect((await item("Copperleaf Cafe")).state).toBe("reauth_required");
    const timeline = await support().engagements.timeline({ engagementId: f.engagementId });
    expect(timeline[0]!.summary).toBe("Sent the fresh tokens of fresh.csv back: Line 3 has Wildrose's old tokens again");
  });

  it("answers another organisation's customer exactly like an unknown engagement", async () => {
    const other = callerAs(t.database, p.customerB);
    const unknown = await trpcError(other.supplementary.get({ engagementId: "no-such-engagement" }));
    const error = await trpcError(other.supplementary.get({ engagementId: f.engagementId }));
    expect(error).toMatchObject({ code: "NOT_FOUND", message: unknown.message });
    await expect(checkSupplementaryFile(t.database, p.customerB, { engagementId: f.engagementId, file: file([COPPERLEAF]) })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("the handover's purge", () => {
  it("deletes fresh tokens never used (a file awaiting review), counted in its audit event", async () => {
    const { fileId } = await sent([COPPERLEAF, WILDROSE]);
    await support().handover.confirm({ engagementId: f.engagementId });
    const result = await customer().handover.acknowledge({ engagementId: f.engagementId });
    expect(result.purged.supplementaryRows).toBe(2);
    expect((await t.db.select({ n: count() }).from(supplementaryRows).where(and(eq(supplementaryRows.fileId, fileId), isNotNull(supplementaryRows.credentialsCipher))))[0]!.n).toBe(0);
    const timeline = await support().engagements.timeline({ engagementId: f.engagementId });
    expect(timeline.map((e) => e.summary)).toContain(
      "Purged the credentials of 5 companies, the unused fresh tokens of 2 companies and 1 OAuth client secret (the handover report was acknowledged)",
    );
  });
});
