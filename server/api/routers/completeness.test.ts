/**
 * Complete data per company through createCaller on a temporary database, against a real sandbox:
 * the single-company test counts every data type and reads its validation results, then compares
 * the counts with the old app's (kept with the item from the token file's count columns): short
 * flagged, equal fine, no old count not compared, Zoho Books' caveats (its shared daily limit, its reduced datasets) and Shopify's count
 * cap explained, validation messages listed.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { migrationItems } from "@/db/schema";
import { DEFAULT_PIPELINE_POLICY, type PipelinePolicy } from "@/server/migration/engine/pipeline";
import { createMigrationWorker } from "@/server/migration/migration-worker";
import { engineTestBed } from "@/server/testing/test-bed";
import { TEST_KEY_RING } from "@/server/testing/test-db";
import type { ReadyCompany } from "@/server/testing/ready-engagement";
import type { PlatformKey } from "@/server/platforms";
import { engagementThroughFlows, sampleCompanies } from "@/server/testing/engagement-flows";
import { callerAs, testConfig } from "../../testing/caller";

const FAST: PipelinePolicy = { ...DEFAULT_PIPELINE_POLICY, pollInitialMs: 100, pollMaxMs: 500, retryBaseMs: 50, retryMaxMs: 200 };
const bed = engineTestBed();
const worker = () => createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, leaseMs: 2_000, idleMs: 50, policy: FAST, sandbox: { url: bed.sb.url, adminToken: bed.sb.adminToken } });

/** A single-company test of one company whose token file row carried `oldCounts`, run to its end; the run as support reads it. */
async function tested(company: ReadyCompany, oldCounts: Record<string, number> | null, platformKey: PlatformKey = "qhyg") {
  const eng = await bed.ready([company], { platformKey });
  const itemId = eng.items[0]!.id;
  if (oldCounts) await bed.t.db.update(migrationItems).set({ oldCounts }).where(eq(migrationItems.id, itemId));
  const s = callerAs(bed.t.database, bed.people.support);
  const { runId } = await s.tests.start({ engagementId: eng.engagementId, kind: "pilot", itemId });
  expect((await worker().runOnce())?.id).toBe(runId);
  const run = await s.tests.get({ engagementId: eng.engagementId, runId });
  expect(run.result).toBe("passed");
  return { run, eng };
}

describe("the single-company test's complete data", () => {
  it("flags a data type below the old app's count, passes one equal to it, and leaves one without an old count uncompared", { tags: ["both-databases"] }, async () => {
    const { run } = await tested({ name: "Counted Co", records: 30 }, { invoices: 40, bills: 30 });
    const c = run.completeness!;
    expect(c.verdict).toBe("short");
    expect(c.summary).toBe("Short: Invoices: 30 of the old app's 40.");
    const row = (dataType: string) => c.dataTypes.find((d) => d.dataType === dataType);
    expect(row("invoices")).toMatchObject({ count: 30, oldCount: 40, comparison: "short", flag: "Invoices: 30 of the old app's 40", caveat: null });
    expect(row("bills")).toMatchObject({ count: 30, oldCount: 30, comparison: "matches", flag: null });
    expect(row("customers")).toMatchObject({ count: 30, oldCount: null, comparison: "not_compared" });
    // Validation read for each counted type: none raised.
    expect(row("customers")?.validation).toEqual({ errors: [], warnings: [], errorCount: 0, warningCount: 0 });
    // One validation read per counted data type, each by its dataset.
    const validations = run.calls.filter((call) => call.operation === "getValidationResults");
    expect(validations).toHaveLength(6);
    expect(validations.every((call) => /^\/companies\/[^/]+\/sync\/[^/]+\/validation$/.test(call.path))).toBe(true);
  });

  it("is not compared without old counts, and complete when every count holds", async () => {
    expect((await tested({ name: "Plain Co", records: 5 }, null)).run.completeness).toMatchObject({ verdict: "not_compared", summary: "Not compared: the token file gives no old app counts for this company." });
    expect((await tested({ name: "Whole Co", records: 5 }, { invoices: 5, chartOfAccounts: 5 })).run.completeness).toMatchObject({ verdict: "complete" });
  });

  it("lists the validation errors and warnings per data type, by message with their count", async () => {
    const { run } = await tested({ name: "Flawed Co", records: 8, tenant: { validationIssues: { bills: { errors: 3, warnings: 1 } } } }, null);
    const c = run.completeness!;
    expect(c.verdict).toBe("validation_issues");
    expect(c.summary).toBe("Validation raised 3 errors and 1 warning on Bills.");
    expect(c.dataTypes.find((d) => d.dataType === "bills")?.validation).toEqual({
      errors: [{ message: "A bill's lines summed should be the same as its total amount.", count: 3 }],
      warnings: [{ message: "A bill refers to a record the sync did not read.", count: 1 }],
      errorCount: 3,
      warningCount: 1,
    });
  });

  it("explains a Zoho Books count short of the old app's (the organisation's shared daily limit ran out) and what its reduced datasets leave out", async () => {
    const { run } = await tested({ name: "Zoho Co", records: 50, tenant: { dailyLimitRecords: 40 } }, { invoices: 50, chartOfAccounts: 50 }, "rwuv");
    const c = run.completeness!;
    expect(c.verdict).toBe("short");
    const invoices = c.dataTypes.find((d) => d.dataType === "invoices")!;
    expect(invoices).toMatchObject({ count: 40, oldCount: 50, flag: "Invoices: 40 of the old app's 50" });
    expect(invoices.caveat).toMatch(/^Zoho Books: the organisation's daily API limit .* Sync the company again the next day before concluding records are missing\. Zoho Books: the service reads a reduced dataset by default, so invoices arrive without their line items/);
    expect(c.dataTypes.find((d) => d.dataType === "chartOfAccounts")).toMatchObject({ count: 50, comparison: "matches" });
  });

  it("does not compare a Shopify count at the cap of 25,000, and says why", async () => {
    const { run } = await tested({ name: "Big Shop", records: 26_000 }, { "commerce-orders": 26_000 }, "fztf");
    const orders = run.completeness!.dataTypes.find((d) => d.dataType === "commerce-orders")!;
    expect(orders).toMatchObject({ count: 25_000, oldCount: 26_000, comparison: "capped", flag: null });
    expect(orders.caveat).toMatch(/^Shopify: counts are capped at 25,000, so a count of exactly 25,000 cannot be compared with the old app's 26,000/);
    expect(run.completeness!.verdict).toBe("not_compared");
  });
});

describe("the old app's counts from the token file", () => {
  it("are kept with each company from the file's count_ columns (none where a row leaves them empty)", { tags: ["both-databases"] }, async () => {
    const companies = sampleCompanies("vxvy", 3).map((c, i) => ({ ...c, ...(i < 2 ? { oldCounts: { invoices: 1_040 + i, customers: 12 } } : {}) }));
    const eng = await engagementThroughFlows({ db: bed.t.database, config: testConfig(), support: bed.people.support, customer: bed.people.customerB, platformKey: "vxvy", companies, upTo: 1 });
    const rows = await bed.t.db.select({ name: migrationItems.name, oldCounts: migrationItems.oldCounts }).from(migrationItems).where(eq(migrationItems.engagementId, eng.engagementId)).orderBy(migrationItems.position);
    expect(rows).toEqual([
      { name: "Company 1 Ltd", oldCounts: { invoices: 1_040, customers: 12 } },
      { name: "Company 2 Ltd", oldCounts: { invoices: 1_041, customers: 12 } },
      { name: "Company 3 Ltd", oldCounts: null },
    ]);
  });
});
