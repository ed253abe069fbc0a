/**
 * One reconciliation, the same on every surface: an engagement on a real sandbox and a real
 * database whose single-company test migrates one company, one company set aside before the bulk run,
 * and a bulk run (real worker) in which one tenant's tokens were rotated after the export and one
 * data type fails to sync. The bulk panel, the handover card (before and after the report), the
 * timeline's bulk and handover entries and the report's CSV all say the same numbers, the pilot's
 * company counted and named — for support and for the customer alike.
 *
 * Runs on both databases: counting queries over the companies' states.
 * @module-tag both-databases
 */
import { until } from "@/server/testing/until";
import { parse } from "csv-parse/sync";
import { readSteps } from "@/db/database";
import { eq } from "drizzle-orm";
import { migrationItems } from "@/db/schema";
import { seedHandover } from "@/server/testing/handover-fixture";
import { afterEach, describe, expect, it } from "vitest";
import { callerAs } from "@/server/testing/caller";
import { TEST_KEY_RING } from "@/server/testing/test-db";
import { reconciliationInWords, type Reconciliation } from "@/core/migration/reconciliation";
import { DEFAULT_PIPELINE_POLICY, type PipelinePolicy } from "./engine/pipeline";
import { findRun } from "./engine/run-repository";
import { createMigrationWorker, type Worker } from "./migration-worker";
import { getBulkOverview } from "./bulk/bulk-view";
import { handoverReportCsv } from "./handover/report-csv";
import { requestTestRun } from "./test-run/request-test-run";
import { reconcile, toReconciliation } from "./reconciliation";
import { realProgress, unpackReached } from "./reconciliation-repository";
import { engineTestBed } from "../testing/test-bed";

const FAST: PipelinePolicy = { ...DEFAULT_PIPELINE_POLICY, pollInitialMs: 100, pollMaxMs: 500, retryBaseMs: 50, retryMaxMs: 200 };
const bed = engineTestBed();
const running: Worker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
});

describe("toReconciliation", () => {
  it("counts what is not final as still on its way", () => {
    const counts = { supplied: 10, created: 8, linked: 7, synced: 6, verified: 5, reconnectPending: 1, reauthRequired: 1, setAside: 1, failed: 0 };
    expect(toReconciliation(counts, null)).toEqual({ ...counts, inProgress: 2, pilot: null });
  });

  it("is all zeros for an engagement without companies", async () => {
    expect(await readSteps(bed.t.database, (tx) => reconcile(tx, "no-such-engagement"))).toEqual({
      supplied: 0,
      created: 0,
      linked: 0,
      synced: 0,
      verified: 0,
      reconnectPending: 0,
      reauthRequired: 0,
      setAside: 0,
      failed: 0,
      inProgress: 0,
      pilot: null,
    });
  });
});

describe("how far each company got, read from what the engine stored", () => {
  it("counts a company linked or synced on the way even where it ended elsewhere, and one the watch found dropped as having been verified", async () => {
    const at = new Date().toISOString();
    // Org B: the file's other test makes Org A's QuickBooks Online engagement (one open per platform).
    const f = await seedHandover(bed.t.database, bed.people, {
      organizationId: bed.people.orgB,
      companies: [
        { state: "verified" },
        // Linked, then the platform refused the tokens during the sync (AuthError).
        {
          state: "reauth_required",
          checks: { connection: { status: "Linked", at }, sync: { requestedAt: at, polls: 2, dataTypes: { invoices: "AuthError" }, finishedAt: at } },
          lastError: { kind: "auth_error_during_sync", status: null, error: "AuthError on invoices", correlationId: null, operation: "getDataStatus" },
        },
        // The sync finished and passed; reading the data back failed.
        {
          state: "failed",
          checks: { connection: { status: "Linked", at }, sync: { requestedAt: at, polls: 2, dataTypes: { invoices: "Complete" }, finishedAt: at } },
          lastError: { kind: "server_error", status: 500, error: "Internal server error", correlationId: "c-1", operation: "readData" },
        },
        // Never linked: refused at the authorization.
        { state: "reauth_required" },
        // Verified, then found Deauthorized by the watch: waiting for its end customer again.
        { state: "reconnect_pending", checks: {} },
        // Set aside before anything was sent.
        { state: "set_aside" },
        // Still on its way.
        { state: "pending" },
      ],
    });
    await bed.t.db.update(migrationItems).set({ droppedAt: new Date() }).where(eq(migrationItems.id, f.items[4]!.id));
    expect(await readSteps(bed.t.database, (tx) => reconcile(tx, f.engagementId))).toEqual({
      supplied: 7,
      created: 5,
      linked: 4,
      synced: 3,
      verified: 1,
      reconnectPending: 1,
      reauthRequired: 2,
      setAside: 1,
      failed: 1,
      inProgress: 1,
      pilot: null,
    });
    // The same counts when every state's group is counted mark by mark (as one too large to unpack is).
    const packed = await readSteps(bed.t.database, (tx) => realProgress(tx, f.engagementId));
    expect(await readSteps(bed.t.database, (tx) => realProgress(tx, f.engagementId, { fieldSize: 1 }))).toEqual(packed);
  });

  it("unpacks a sum of reached marks into its three counts, each up to 2^17 - 1", () => {
    const field = 2 ** 17;
    expect(unpackReached(0)).toEqual({ created: 0, linked: 0, synced: 0 });
    expect(unpackReached(5 + 4 * field + 3 * field ** 2)).toEqual({ created: 5, linked: 4, synced: 3 });
    const most = field - 1;
    expect(unpackReached(most + most * field + most * field ** 2)).toEqual({ created: most, linked: most, synced: most });
  });
});

describe("one reconciliation on every surface", () => {
  it("the bulk panel, the handover card, the timeline and the report's CSV say the same numbers, the pilot's company included and named", async () => {
    const { people } = bed;
    const eng = await bed.ready(
      [
        { name: "Pilot Books Ltd", records: 3, externalRef: "P-1" },
        { name: "Société Générale Café", records: 4, externalRef: "S-2" },
        { name: "Plain Co", records: 5, externalRef: "P-3" },
        { name: "Fourth Co", records: 3, externalRef: "F-4" },
        { name: "Rotated Co", records: 3, externalRef: "R-5", rotatedAfterExport: true },
        { name: "Broken Sync Co", records: 3, externalRef: "B-6", fetchErrorDataTypes: ["invoices"] },
        { name: "Closed Co", records: 3, externalRef: "C-7" },
      ],
      { organizationId: people.orgA, customer: people.customerA },
    );
    const [pilot, , , , , , closed] = eng.items;
    const support = callerAs(bed.t.database, people.support);
    const customer = callerAs(bed.t.database, people.customerA);
    const worker = createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, leaseMs: 2_000, idleMs: 50, policy: FAST });
    running.push(worker);
    worker.start();

    // Step 5 on the first company, through a real run.
    const { runId: pilotRunId } = await requestTestRun(bed.t.database, people.support, { engagementId: eng.engagementId, kind: "pilot", itemId: pilot!.id });
    expect((await until("the pilot", () => readSteps(bed.t.database, (tx) => findRun(tx, pilotRunId)), (r) => r?.status === "passed" || r?.status === "failed", 60_000))!.status).toBe("passed");

    // One company is set aside before the bulk run; the run takes the other five.
    await support.bulk.setAside({ engagementId: eng.engagementId, itemId: closed!.id, reason: "Closed by the end customer" });
    await support.bulk.start({ engagementId: eng.engagementId });
    await until("the bulk run", async () => (await getBulkOverview(bed.t.database, people.support, eng.engagementId)).run?.status, (s) => s === "completed", 90_000);

    const expected: Reconciliation = {
      supplied: 7,
      // Every company but the one set aside before anything was sent.
      created: 6,
      // Rotated Co's connection was never Linked; Broken Sync Co's was, before its sync failed.
      linked: 5,
      synced: 4,
      verified: 4,
      // At the run's end a company refused for its tokens waits for its end customer (or, without
      // that step, stays reauthorization required): one of the two.
      reconnectPending: expect.any(Number) as unknown as number,
      reauthRequired: expect.any(Number) as unknown as number,
      setAside: 1,
      failed: 1,
      inProgress: 0,
      pilot: { name: "Pilot Books Ltd", state: "verified" },
    };
    const now = await readSteps(bed.t.database, (tx) => reconcile(tx, eng.engagementId));
    expect(now).toEqual(expected);
    expect(now.reconnectPending + now.reauthRequired).toBe(1);

    // The bulk panel and the handover card, for support and for the customer.
    for (const viewer of [support, customer]) {
      expect((await viewer.bulk.overview({ engagementId: eng.engagementId })).reconciliation).toEqual(now);
      expect((await viewer.handover.get({ engagementId: eng.engagementId })).reconciliation).toEqual(now);
    }

    await support.handover.confirm({ engagementId: eng.engagementId });
    expect((await customer.handover.get({ engagementId: eng.engagementId })).reconciliation).toEqual(now);

    // The timeline's bulk and handover entries say it in the same words.
    const words = reconciliationInWords(now);
    expect(words).toBe(
      `7 companies supplied: 6 created on the service, 5 linked, 4 synced; 4 verified, 1 ${now.reconnectPending ? "reconnection pending" : "reauthorization required"}, 1 set aside, 1 failed (the single-company test's company, Pilot Books Ltd, included)`,
    );
    const timeline = await customer.engagements.timeline({ engagementId: eng.engagementId });
    const summary = (action: string) => timeline.find((e) => e.action === action)?.summary;
    expect(summary("migration.bulk_started")).toMatch(/^Started the bulk migration of 5 companies on .+ \(of 7 companies supplied; Pilot Books Ltd was migrated by the single-company test\)$/);
    expect(summary("migration.bulk_finished")).toBe(`The bulk migration finished: ${words}`);
    expect(summary("handover.confirmed")).toBe(`Produced the handover report: ${words}`);

    // The report's CSV states it at the top, one count a row, and its table agrees.
    const chunks: Uint8Array[] = [];
    for await (const chunk of (await handoverReportCsv(bed.t.database, { appUrl: "http://ferry.test", ring: TEST_KEY_RING }, people.customerA, eng.engagementId)).body) chunks.push(chunk);
    const records: string[][] = parse(Buffer.concat(chunks).toString("utf8"), { bom: true, relax_column_count: true });
    expect(records[0]).toEqual(["Reconciliation", `${eng.reference}: ${words}`]);
    const top = Object.fromEntries(records.slice(1, records.findIndex((r) => r[0] === "Company name")).map((r) => [r[0], r[1]]));
    expect(top).toMatchObject({
      Supplied: "7",
      "Created on the service": "6",
      Linked: "5",
      Synced: "4",
      Verified: "4",
      "Set aside": "1",
      Failed: "1",
      "Single-company test's company": "Pilot Books Ltd",
    });
    const table = records.slice(records.findIndex((r) => r[0] === "Company name") + 1);
    expect(table).toHaveLength(now.supplied);
    expect(table.filter((r) => r[4] === "Verified")).toHaveLength(now.verified);
    expect(table.find((r) => r[0] === "Société Générale Café")?.[1]).toBe("Societe Generale Cafe");
  }, 180_000);
});
