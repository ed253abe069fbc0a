/**
 * Steps 3 and 4 through the procedures: the callback URL with its instructions, step 4's risk from
 * the file, and the confirmations — the customer's, and staff's on the customer's behalf with a
 * note — each recording the same structured evidence.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mailOutbox, migrationItems } from "@/db/schema";
import { MANAGED_PLATFORMS, type PlatformKey } from "@/server/platforms";
import { agreeWindow, completeIntake, sampleCompanies } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, testConfig, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const support = () => callerAs(t.database, p.support);
const customer = () => callerAs(t.database, p.customerA);
const flow = () => ({ db: t.database, config: testConfig(), support: p.support, customer: p.customerA });
const open = async (platformKey: PlatformKey = "qhyg") => (await support().engagements.create({ organizationId: p.orgA, platformKey })).id;

describe("what the customer is shown", () => {
  it.each(MANAGED_PLATFORMS.map((pl) => [pl.key, pl.name, pl.callbackUrl, pl.refreshTokenRotates] as const))(
    "%s (%s): the callback URL with instructions, and whether refresh tokens rotate",
    async (key, name, callbackUrl, rotates) => {
      const engagementId = await open(key);
      const view = await customer().confirmations.get({ engagementId });
      expect(view.callback.url).toBe(callbackUrl);
      expect(view.callback.instructions.length).toBeGreaterThanOrEqual(2);
      // The panel shows the URL above its instructions, so they point up at it.
      expect(view.callback.instructions.join(" ")).toMatch(/the callback URL above/);
      expect(view.callback.instructions.join(" ")).not.toMatch(/below/);
      expect(view.risk).toMatchObject({ platformName: name, refreshTokensRotate: rotates, level: rotates ? "high" : "standard", fileSubmittedAt: null, companies: 0 });
      expect(view.risk.why).toContain(name);
    },
  );

  it("counts the file's access tokens that have expired since, and those without an expiry", async () => {
    const engagementId = await open("qhyg");
    const companies = sampleCompanies("qhyg", 4).map((c, i) => {
      const { expiresAt: _, ...rest } = c.credentials;
      if (i === 3) return { ...c, credentials: rest };
      return { ...c, credentials: { ...rest, expiresAt: i === 0 ? "2020-01-01T00:00:00Z" : "2099-01-01T00:00:00Z" } };
    });
    await completeIntake(flow(), { engagementId, companies });
    const { risk } = await customer().confirmations.get({ engagementId });
    expect(risk).toMatchObject({ companies: 4, expiredAccessTokens: 1, withoutExpiry: 1, hoursSinceSubmission: 0, refreshTokensRotate: true });
    expect(risk.fileSubmittedAt).toBeInstanceOf(Date);
    expect(risk.why).toContain("rotates refresh tokens");
  });

  it("flags access tokens issued after syncing was confirmed off: the old app still refreshes (issued = expiry less the platform's lifetime)", async () => {
    const engagementId = await open("qhyg");
    // Exported half an hour ago: QuickBooks access tokens live an hour.
    const soon = new Date(Date.now() + 30 * 60_000).toISOString();
    await completeIntake(flow(), { engagementId, companies: sampleCompanies("qhyg", 3).map((c) => ({ ...c, credentials: { ...c.credentials, expiresAt: soon } })) });
    expect((await customer().confirmations.get({ engagementId })).risk.issuedAfterConfirmation).toBeNull();
    await customer().confirmations.syncingDisabled({ engagementId });
    expect((await customer().confirmations.get({ engagementId })).risk.issuedAfterConfirmation).toBeNull();

    // The tokens Ferry holds now (a file accepted since) include two the old app refreshed after the
    // confirmation: one 20 minutes after, one 2 minutes after (within the clocks' tolerance: not counted).
    const confirmedAt = (await support().engagements.get({ engagementId })).steps[3]!.completedAt!;
    const items = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, engagementId)).orderBy(migrationItems.position);
    const issuedAt = (minutes: number) => new Date(confirmedAt.getTime() + minutes * 60_000 + 3_600_000);
    await t.db.update(migrationItems).set({ accessTokenExpiresAt: issuedAt(20) }).where(eq(migrationItems.id, items[0]!.id));
    await t.db.update(migrationItems).set({ accessTokenExpiresAt: issuedAt(2) }).where(eq(migrationItems.id, items[1]!.id));
    const { risk } = await support().confirmations.get({ engagementId });
    expect(risk.issuedAfterConfirmation).toEqual({ companies: 1, confirmedAt, lastIssuedAt: new Date(confirmedAt.getTime() + 20 * 60_000) });
    expect(risk.level).toBe("high");
    // Shopify's access tokens never expire: there is nothing to tell from them.
    const shop = await open("fztf");
    expect((await support().confirmations.get({ engagementId: shop })).risk.issuedAfterConfirmation).toBeNull();
  });
});

describe("confirming", () => {
  it("the callback URL can be confirmed from the start (it depends only on the platform); syncing off waits for step 1", async () => {
    const engagementId = await open();
    const refused = await trpcError(customer().confirmations.syncingDisabled({ engagementId }));
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("step 1 (Details gathered)") });
    await customer().confirmations.callbackUrl({ engagementId });
    const eng = await customer().engagements.get({ engagementId });
    expect(eng.steps.map((s) => s.displayState)).toEqual(["pending", "locked", "done", "locked", "locked", "locked"]);
    // Step 1 is still the customer's move: the token file.
    expect(eng.waiting).toMatchObject({ party: "customer", moves: { customer: { action: "submit_file", step: 1 } } });
  });

  it("the customer confirms both, each step done with its evidence; support is told once it is their move", async () => {
    const engagementId = await open("pbtz");
    await completeIntake(flow(), { engagementId, companies: sampleCompanies("pbtz", 2) });
    await agreeWindow(flow(), { engagementId });
    const before = (await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, "support@test"))).length;
    await customer().confirmations.callbackUrl({ engagementId });
    expect(await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, "support@test"))).toHaveLength(before);
    await customer().confirmations.syncingDisabled({ engagementId });
    const eng = await support().engagements.get({ engagementId });
    expect(eng.steps[2]).toMatchObject({ state: "done", completedBy: { name: "Customer A" }, evidence: { flow: { kind: "callback_confirmed", callbackUrl: "https://wave.codat.io/oauth/callback" } } });
    expect(eng.steps[3]).toMatchObject({
      state: "done",
      completedBy: { name: "Customer A" },
      evidence: { flow: { kind: "syncing_disabled", expiredAccessTokens: 0, refreshTokensRotate: true, fileSubmittedAt: expect.any(Date) } },
    });
    expect(eng.steps[3]!.evidence?.onBehalfOfCustomer).toBeUndefined();
    expect(eng.waiting).toMatchObject({ party: "support", next: "Run the single-company test." });
    const mail = (await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, "support@test")).orderBy(mailOutbox.createdAt)).at(-1)!;
    expect(mail.subject).toMatch(/It is your move$/);
    expect(mail.text).toContain("Run the single-company test.");
  });

  it("staff confirm on the customer's behalf only with a note, recording the same evidence with it", async () => {
    const engagementId = await open("qhyg");
    await completeIntake(flow(), { engagementId });
    const noNote = await trpcError(support().confirmations.syncingDisabled({ engagementId }));
    expect(noNote.cause).toMatchObject({ fields: { note: expect.stringContaining("Say how the customer confirmed step 4") } });
    await support().confirmations.syncingDisabled({ engagementId, note: "Carol confirmed on the call of 3 May." });
    // The generic Complete action records the same evidence.
    await support().engagements.step({ engagementId, step: 3, action: "complete", note: "Carol sent a screenshot." });
    const eng = await support().engagements.get({ engagementId });
    expect(eng.steps[3]!.evidence).toMatchObject({ note: "Carol confirmed on the call of 3 May.", onBehalfOfCustomer: true, flow: { kind: "syncing_disabled", refreshTokensRotate: true } });
    expect(eng.steps[2]!.evidence).toMatchObject({ note: "Carol sent a screenshot.", onBehalfOfCustomer: true, flow: { kind: "callback_confirmed", callbackUrl: "https://quickbooksonline.codat.io/oauth2/callback" } });
  });
});
