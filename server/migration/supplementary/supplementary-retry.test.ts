/**
 * Fresh tokens carried through a real worker against a real sandbox on a random port: a company
 * whose tokens the old app rotated ends reauth_required in the bulk run; the customer sends the
 * platform's fresh tokens for it; support accepts; the bulk run authorizes the same connection
 * again, syncs and verifies it — and the fresh tokens are purged once used (whatever the retry's
 * outcome), also after the handover's own purge.
 *
 * SQLite only for now: the worker (createMigrationWorker, startBulkRun) and the handover still run on
 * better-sqlite3. The supplementary operations' own concurrency on PostgreSQL is
 * supplementary-races.test.ts's.
 */
import { until } from "@/server/testing/until";
import fs from "node:fs";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { auditEvents, mailOutbox, migrationItems, migrationRuns, supplementaryFiles, supplementaryRows, users, watches } from "@/db/schema";
import type { Actor } from "@/core/accounts/actor";
import { callerAs } from "@/server/testing/caller";
import { passSingleCompanyTest } from "@/server/testing/engagement-flows";
import { TEST_KEY_RING, TEST_NOTIFY } from "@/server/testing/test-db";
import { csvBytes, headerFor } from "@/server/testing/token-files";
import { getManagedPlatform } from "@/server/platforms";
import { createServiceClient } from "@/server/service-client";
import { engineTestBed } from "../../testing/test-bed";
import { startBulkRun } from "../bulk/bulk-controls";
import { DEFAULT_PIPELINE_POLICY, ITEM_TAG, type PipelinePolicy } from "../engine/pipeline";
import { createMigrationWorker, type Worker } from "../migration-worker";
import { setHypercareDays } from "../watch/last-mile";
import { getSupplementary } from "./get-supplementary";
import { submitSupplementaryFile } from "./submit-supplementary-file";

const FAST: PipelinePolicy = { ...DEFAULT_PIPELINE_POLICY, pollInitialMs: 100, pollMaxMs: 500, retryBaseMs: 50, retryMaxMs: 200 };
const qbo = getManagedPlatform("qhyg")!;
const bed = engineTestBed();
const running: Worker[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
});

const worker = () => {
  const w = createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, leaseMs: 2_000, idleMs: 50, policy: FAST });
  running.push(w);
  w.start();
  return w;
};

const item = async (id: string) => (await bed.t.db.select().from(migrationItems).where(eq(migrationItems.id, id)).limit(1))[0]!;
const run = async (runId: string) => (await bed.t.db.select().from(migrationRuns).where(eq(migrationRuns.id, runId)).limit(1))[0]!;


/** Three companies, the second rotated after the export; the bulk run carried out until it completes. */
async function bulkRunDone() {
  const eng = await bed.ready(
    [
      { name: "Harbour Books Ltd", records: 5, externalRef: "HB-01" },
      { name: "Copperleaf Cafe", records: 5, externalRef: "CC-02", rotatedAfterExport: true },
      { name: "Fernhill Farm", records: 5, externalRef: "FF-03" },
    ],
  );
  await passSingleCompanyTest(bed.t.db, bed.people.support, eng.engagementId);
  const { runId } = await startBulkRun(bed.t.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
  const w = worker();
  await until("the bulk run", () => run(runId), (r) => r.status === "completed", 60_000);
  await w.stop();
  const copperleaf = eng.items[1]!;
  // Handed to its end customer with its reconnect link; fresh tokens are the other way back.
  expect(await item(copperleaf.id)).toMatchObject({ state: "reconnect_pending" });
  // The customer of the engagement's organisation, who submitted the first file.
  const [u] = await bed.t.db.select().from(users).where(eq(users.organizationId, eng.organizationId)).limit(1);
  const customer: Actor = { id: u!.id, email: u!.email, name: u!.name, role: u!.role, organizationId: eng.organizationId };
  return { eng, runId, copperleaf, customer };
}

/** The customer's file: the company by its externalRef, with the tokens the platform issues now. */
function fileFor(rows: { name: string; externalRef: string; credentials: Record<string, string> }[]) {
  const header = headerFor(qbo);
  const bytes = csvBytes([
    header,
    ...rows.map((r) => header.map((c) => (c === "companyName" ? r.name : c === "externalRef" ? r.externalRef : c === "records" ? "" : (r.credentials[c] ?? "")))),
  ]);
  return { name: "fresh-tokens.csv", bytes };
}

async function sendAndAccept(customer: Actor, engagementId: string, credentials: Record<string, string>) {
  const sent = await submitSupplementaryFile(bed.t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, customer, {
    engagementId,
    file: fileFor([{ name: "Copperleaf Cafe", externalRef: "CC-02", credentials }]),
  });
  if (!sent.ok) throw new Error(`refused: ${JSON.stringify(sent.check.problems)}`);
  const [row] = await bed.t.db.select().from(supplementaryRows).where(eq(supplementaryRows.fileId, sent.fileId)).limit(1);
  expect(await callerAs(bed.t.database, bed.people.support).supplementary.accept({ engagementId, fileId: sent.fileId })).toEqual({ companies: 1, skipped: 0 });
  return { fileId: sent.fileId, rowId: row!.id, rowCipher: row!.credentialsCipher! };
}

/** Every byte of the database file and its write-ahead log. */
function rawFile(): Buffer {
  const file = bed.t.file!;
  return Buffer.concat([file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
}

const purgeEvents = (itemId: string) =>
  bed.t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, "supplementary.tokens_purged"), eq(auditEvents.targetId, itemId)));

describe("a company retried with fresh tokens", () => {
  it("is authorized again on its own connection, synced and verified by the bulk run; its fresh tokens are then purged", async () => {
    const { eng, runId, copperleaf, customer } = await bulkRunDone();
    const before = await item(copperleaf.id);
    const fresh = (await bed.sb.control.issueCredentials("qhyg", copperleaf.tenantId, "valid")).credentials;
    const { fileId, rowId, rowCipher } = await sendAndAccept(customer, eng.engagementId, fresh);
    const itemCipher = (await item(copperleaf.id)).credentialsCipher!;
    expect(await item(copperleaf.id)).toMatchObject({ state: "connection_created", runId, supplementaryFileId: fileId });

    worker();
    const done = await until("Copperleaf verified", () => item(copperleaf.id), (i) => i.state === "verified", 60_000);
    await until("the run completed again", () => run(runId), (r) => r.status === "completed", 30_000);
    // The same company and connection: authorized again, never created twice.
    expect(done).toMatchObject({ companyId: before.companyId, connectionId: before.connectionId, credentialsCipher: null });
    expect(done.credentialsPurgedAt).not.toBeNull();
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    expect((await client.findCompaniesByTag({ name: ITEM_TAG, value: copperleaf.id })).data).toHaveLength(1);
    // The others are as the bulk run left them.
    expect(await Promise.all(eng.items.filter((i) => i.id !== copperleaf.id).map(async (i) => (await item(i.id)).state))).toEqual(["verified", "verified"]);

    // Purged once used: the item's sealed copy and the row's, audited, gone from the file.
    const [row] = await bed.t.db.select().from(supplementaryRows).where(eq(supplementaryRows.id, rowId)).limit(1);
    expect(row).toMatchObject({ credentialsCipher: null });
    expect(row!.credentialsPurgedAt).not.toBeNull();
    expect((await purgeEvents(copperleaf.id)).map((e) => e.after)).toEqual([{ company: "Copperleaf Cafe", state: "verified" }]);
    // The bytes of the SQLite file itself (secure_delete); on PostgreSQL the rows above are what can be read.
    if (bed.t.dialect === "sqlite") {
      const raw = rawFile();
      for (const cipher of [rowCipher, itemCipher]) expect(raw.includes(cipher.split(".")[4]!)).toBe(false);
      expect(raw.includes(fresh.refreshToken!)).toBe(false);
    }
    const timeline = await callerAs(bed.t.database, bed.people.support).engagements.timeline({ engagementId: eng.engagementId });
    expect(timeline.map((e) => e.summary)).toContain("Deleted the fresh tokens of Copperleaf Cafe once used (verified)");
  });

  it("has its fresh tokens purged too when the platform refuses them again", async () => {
    const { eng, copperleaf, customer } = await bulkRunDone();
    // The customer sends tokens the old app has since refreshed again: refused as rotated.
    const stale = (await bed.sb.control.issueCredentials("qhyg", copperleaf.tenantId, "rotated")).credentials;
    await sendAndAccept(customer, eng.engagementId, stale);
    worker();
    // Refused again: back with its end customer when the run ends.
    const done = await until("Copperleaf refused again", () => item(copperleaf.id), (i) => i.state === "reconnect_pending" && i.credentialsCipher === null, 60_000);
    expect(done.credentialsCipher).toBeNull();
    expect((await purgeEvents(copperleaf.id)).map((e) => e.after)).toEqual([{ company: "Copperleaf Cafe", state: expect.stringMatching(/^(reauth_required|reconnect_pending)$/) as string }]);
    // It waits for fresh tokens again: another file may follow.
    const view = await callerAs(bed.t.database, customer).supplementary.get({ engagementId: eng.engagementId });
    expect(view.waiting.companies.map((c) => c.name)).toEqual(["Copperleaf Cafe"]);
    expect(view.submit.allowed).toBe(true);
  });

  it("works after the handover was acknowledged and every credential purged, during the hypercare watch", async () => {
    const { eng, runId, copperleaf, customer } = await bulkRunDone();
    await callerAs(bed.t.database, bed.people.support).handover.confirm({ engagementId: eng.engagementId });
    await callerAs(bed.t.database, customer).handover.acknowledge({ engagementId: eng.engagementId });
    expect((await item(copperleaf.id)).credentialsCipher).toBeNull();
    // The hypercare watch runs after the handover.
    expect((await bed.t.db.select().from(watches).where(eq(watches.engagementId, eng.engagementId)))[0]).toMatchObject({ status: "watching" });

    const fresh = (await bed.sb.control.issueCredentials("qhyg", copperleaf.tenantId, "valid")).credentials;
    await sendAndAccept(customer, eng.engagementId, fresh);
    expect((await run(runId)).status).toBe("queued");
    worker();
    const done = await until("Copperleaf verified", () => item(copperleaf.id), (i) => i.state === "verified", 60_000);
    expect(done.credentialsCipher).toBeNull();
    expect(await purgeEvents(copperleaf.id)).toHaveLength(1);
    expect((await bed.t.db.select().from(supplementaryRows)).every((r) => r.credentialsCipher === null)).toBe(true);
  });

  it("still awaiting review when the hypercare watch ends: its fresh tokens are deleted unused, audited, and the customer told", async () => {
    const { eng, copperleaf, customer } = await bulkRunDone();
    const fresh = (await bed.sb.control.issueCredentials("qhyg", copperleaf.tenantId, "valid")).credentials;
    const sent = await submitSupplementaryFile(bed.t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, customer, { engagementId: eng.engagementId, file: fileFor([{ name: "Copperleaf Cafe", externalRef: "CC-02", credentials: fresh }]) });
    if (!sent.ok) throw new Error("the file was refused");
    // Support never reviews it. The handover is confirmed; one day of hypercare watch follows.
    await setHypercareDays(bed.t.database, bed.people.support, { engagementId: eng.engagementId, days: 1 });
    await callerAs(bed.t.database, bed.people.support).handover.confirm({ engagementId: eng.engagementId });
    const w = createMigrationWorker({
      database: bed.t.database,
      ring: TEST_KEY_RING,
      leaseMs: 2_000,
      idleMs: 50,
      policy: FAST,
      watchEveryMs: 100,
      // The sandbox's clock is the target's: moved on, it ends the hypercare days.
      sandbox: { url: bed.sb.url, adminToken: bed.sb.adminToken },
      notify: { appUrl: "http://ferry.test", mail: { from: "Ferry <ferry@test>", log: () => {}, keyRing: TEST_KEY_RING } },
    });
    running.push(w);
    w.start();
    const watchOf = async () => (await bed.t.db.select().from(watches).where(eq(watches.engagementId, eng.engagementId)))[0]!;
    await until("hypercare begins", watchOf, (x) => x.hypercareEndsAt !== null, 30_000);
    await bed.sb.control.advanceClock({ days: 2 });
    await until("the watch ends", watchOf, (x) => x.status === "ended", 30_000);

    const [file] = await bed.t.db.select().from(supplementaryFiles).where(eq(supplementaryFiles.id, sent.fileId));
    expect(file).toMatchObject({ status: "expired", decidedAt: expect.any(Date) as Date });
    const rows = await bed.t.db.select().from(supplementaryRows).where(eq(supplementaryRows.fileId, sent.fileId));
    expect(rows.map((r) => [r.credentialsCipher, r.credentialsPurgedAt !== null])).toEqual([[null, true]]);
    const expired = await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.action, "supplementary.expired"), eq(auditEvents.targetId, sent.fileId)));
    expect(expired.map((e) => e.after)).toEqual([{ fileName: "fresh-tokens.csv", companies: 1 }]);
    // Nobody may accept it or send it back any more, and the portal says what became of it.
    const view = await getSupplementary(bed.t.database, customer, eng.engagementId);
    expect(view.current).toMatchObject({ status: "expired" });
    await expect(callerAs(bed.t.database, bed.people.support).supplementary.accept({ engagementId: eng.engagementId, fileId: sent.fileId })).rejects.toThrow();
    // The customer is told, in the watch's final mail.
    const mails = await until(
      "the final report's mail",
      () => bed.t.db.select().from(mailOutbox).where(eq(mailOutbox.to, customer.email)),
      (m) => m.some((x) => x.subject.includes("hypercare watch has ended")),
      15_000,
    );
    const final = mails.find((x) => x.subject.includes("hypercare watch has ended"))!;
    expect(final.text).toContain("The fresh tokens sent in fresh-tokens.csv (1 company) were still awaiting review when the watch ended, so they were deleted unused.");
  }, 120_000);
});
