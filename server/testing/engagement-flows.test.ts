/**
 * The engagement-flows helper: steps 1–4 through the real flows, from given rows and from real
 * sandbox tenants (a real sandbox on a random port), with the evidence each flow records.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engagements, mailOutbox, migrationItems } from "@/db/schema";
import { testConfig } from "@/server/testing/caller";
import { getEngagement } from "@/server/engagements/get-engagement";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { openItemCredentials } from "@/server/items/item-credentials";
import { getManagedPlatform } from "@/server/platforms";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { createServiceTarget } from "@/server/targets/targets";
import { engagementThroughFlows } from "./engagement-flows";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "./test-db";

let t: TestDatabase;
let p: People;
let sandbox: TestSandbox;

beforeAll(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await t.close();
  await sandbox.close();
});

describe("engagementThroughFlows", () => {
  it("takes an engagement through steps 1–4 from given rows, each step done with its flow's evidence", async () => {
    const platform = getManagedPlatform("fbrh")!;
    const companies = [0, 1, 2].map((i) => ({ name: `Flow Co ${i}`, credentials: credentialsFor(platform, i), records: 10 * (i + 1) }));
    const result = await engagementThroughFlows({ db: t.database, config: testConfig(), support: p.support, customer: p.customerA, platformKey: "fbrh", companies });
    expect(result.itemIds).toHaveLength(3);
    const eng = await getEngagement(t.database, p.support, result.engagementId);
    expect(eng.steps.slice(0, 4).map((s) => s.state)).toEqual(["done", "done", "done", "done"]);
    expect(eng.steps[0]!.evidence?.flow).toMatchObject({ kind: "intake_accepted", submissionId: result.submissionId, rowCount: 3, submittedBy: "Customer A" });
    expect(eng.steps[1]!.evidence?.flow).toMatchObject({ kind: "window_accepted", proposalId: result.windowId });
    expect(eng.steps[2]!.evidence?.flow).toEqual({ kind: "callback_confirmed", callbackUrl: platform.callbackUrl });
    expect(eng.steps[3]!.evidence?.flow).toMatchObject({ kind: "syncing_disabled", expiredAccessTokens: 0, refreshTokensRotate: false });
    expect(eng.currentStep).toBe(5);
    expect(eng.waiting).toMatchObject({ party: "support", next: "Run the single-company test." });
    expect(eng.windowStartsAt).not.toBeNull();
  });

  it("builds the file from real sandbox tenants, whose credentials open from the items and still authorise there", async () => {
    const target = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Test sandbox", baseUrl: sandbox.url, apiKey: "unused", kind: "sandbox", organizationId: p.orgB });
    const result = await engagementThroughFlows({
      db: t.database,
      config: { ...testConfig(), sandbox: { url: sandbox.url, adminToken: sandbox.adminToken } },
      support: p.support,
      customer: p.customerB,
      platformKey: "qhyg",
      sandbox: { control: sandbox.control, tenants: [{ name: "Tenant Alpha", records: 5 }, { name: "Tenant Beta", records: 2000 }] },
      serviceTargetId: target.id,
      upTo: 2,
    });
    expect(result.tenants).toHaveLength(2);
    const items = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, result.engagementId)).orderBy(migrationItems.position);
    expect(items.map((i) => [i.name, i.recordsHint])).toEqual([
      ["Tenant Alpha", 5],
      ["Tenant Beta", 2000],
    ]);
    const opened = openItemCredentials(TEST_KEY_RING, { engagementId: result.engagementId, itemId: items[0]!.id }, items[0]!.credentialsCipher!);
    expect(opened).toEqual(result.tenants[0]!.credentials);
    const eng = await getEngagement(t.database, p.support, result.engagementId);
    expect(eng.steps.slice(0, 4).map((s) => s.state)).toEqual(["done", "done", "pending", "pending"]);
    expect((await t.db.select().from(engagements).where(eq(engagements.id, result.engagementId)).limit(1))[0]).toMatchObject({ waitingOn: "customer" });
    // The customer heard of each step that waited on them; support of the submission.
    const mail = (await t.db.select().from(mailOutbox)).map((m) => `${m.to} ${m.subject}`);
    expect(mail).toEqual(expect.arrayContaining([expect.stringMatching(/^support@test \[FER-\d+\] Details and token file to review$/), expect.stringMatching(/^b@org-b\.test \[FER-\d+\] A migration window proposed$/)]));
  });
});
