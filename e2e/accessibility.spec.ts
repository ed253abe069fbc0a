/**
 * Every page of the console and the portal through axe (e2e/axe.ts), failing on serious or
 * critical violations: the sign-in and invitation pages, every console page (the engagement page
 * at each step's flow, admin pages), every portal page (the engagement at each step, with a
 * checked token file's problems showing, step 6 with a bulk run), and the not-found and forbidden
 * pages.
 */
import type { Page } from "@playwright/test";
import { expectAccessible } from "./axe";
import { DEMO, e2eCredentials, expect, openStep6Part, signIn, test, tokenCsv, type TrpcApi } from "./fixtures";

/** The page has drawn its heading and its data: nothing is loading any more. */
async function settled(page: Page) {
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: /^Loading/ })).toHaveCount(0);
}

type Listed = { items: { id: string; reference: string; organizationName: string; platformName: string }[] };

async function demoEngagements(api: TrpcApi) {
  const list = await api.query<Listed>("engagements.list", { page: 1, pageSize: 100, search: "" });
  const find = (org: string, platform: string) => list.items.find((e) => e.organizationName === org && e.platformName === platform)!;
  return {
    qbo: find("Acme Lending", "QuickBooks Online"),
    freeagent: find("Acme Lending", "FreeAgent"),
    shopify: find("Bluebird Commerce", "Shopify"),
    wave: find("Bluebird Commerce", "Wave"),
  };
}

test("signed-out pages", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/login");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectAccessible(page, "the sign-in page");
  await page.goto("/invite/not-a-real-token-0123456789");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectAccessible(page, "an invitation page");
});

const CONSOLE_PAGES: { what: string; path: (demo: Awaited<ReturnType<typeof demoEngagements>>) => string }[] = [
  { what: "the engagement list", path: () => "/engagements" },
  { what: "the engagement list filtered by whose move", path: () => "/engagements?waiting=support" },
  { what: "the new engagement form", path: () => "/engagements/new" },
  { what: "an engagement at step 5 (steps 1–4 done through their flows)", path: (d) => `/engagements/${d.qbo.id}` },
  { what: "an engagement with a submission to review", path: (d) => `/engagements/${d.freeagent.id}` },
  { what: "an engagement with proposed windows", path: (d) => `/engagements/${d.shopify.id}` },
  { what: "an engagement on hold", path: (d) => `/engagements/${d.wave.id}` },
  { what: "users", path: () => "/admin/users" },
  { what: "organisations", path: () => "/admin/organizations" },
  { what: "invitations", path: () => "/admin/invitations" },
  { what: "the outbox", path: () => "/admin/outbox" },
  { what: "service targets", path: () => "/admin/targets" },
  { what: "the console's not-found page", path: () => "/engagements/no-such-engagement" },
];

test.describe("console pages", () => {
  for (const { what, path } of CONSOLE_PAGES) {
    test(what, async ({ page, supportApi }) => {
      test.setTimeout(120_000);
      const target = path(await demoEngagements(supportApi));
      await signIn(page, DEMO.admin);
      await page.goto(target);
      await settled(page);
      await expectAccessible(page, what);
    });
  }

  test("support's review with every company listed, and the send-back dialog", async ({ page, supportApi }) => {
    test.setTimeout(120_000);
    const demo = await demoEngagements(supportApi);
    await signIn(page, DEMO.sam);
    await page.goto(`/engagements/${demo.freeagent.id}`);
    await settled(page);
    await page.getByText("All companies, as stored (masked)").click();
    await expect(page.getByRole("table", { name: "Companies in the submission" })).toBeVisible();
    await expectAccessible(page, "support's review with the companies listed");
    await page.getByRole("button", { name: "Send back" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await expectAccessible(page, "the send-back dialog");
  });

  test("the propose form with two windows and the estimate's formula", async ({ page, supportApi }) => {
    test.setTimeout(120_000);
    const demo = await demoEngagements(supportApi);
    await signIn(page, DEMO.sam);
    await page.goto(`/engagements/${demo.shopify.id}`);
    await settled(page);
    await page.getByRole("button", { name: "Add another window" }).click();
    await page.getByText("How this is estimated").first().click();
    await expectAccessible(page, "the propose form with two windows and the estimate's formula");
  });
});

test("portal pages", async ({ page, factory }) => {
  test.setTimeout(240_000);
  const org = await factory.organization("Axe Portal Org");
  const engagement = await factory.engagement({ organizationId: org.id, platformKey: "qhyg" });
  const customer = await factory.customerUser(org);

  await signIn(page, DEMO.carol);
  await page.goto("/portal");
  await expect(page.getByRole("table", { name: "Your engagements" })).toBeVisible();
  await expectAccessible(page, "the portal's list");
  const carol = await page.request.get("/api/trpc/engagements.list?input=" + encodeURIComponent(JSON.stringify({ json: { page: 1, pageSize: 50 } })));
  const items = ((await carol.json()) as { result: { data: { json: Listed } } }).result.data.json.items;
  for (const e of items) {
    await page.goto(`/portal/engagements/${e.id}`);
    await settled(page);
    await expectAccessible(page, `the portal engagement ${e.reference} (${e.platformName})`);
  }
  await page.goto("/portal/engagements/no-such-engagement");
  await expectAccessible(page, "the portal's not-found page");
  await page.goto("/engagements");
  await expectAccessible(page, "the forbidden page");

  // A new engagement: the submission form, with a checked file's problems and preview showing.
  const fresh = await page.context().browser()!.newContext();
  const p = await fresh.newPage();
  await signIn(p, customer);
  await p.goto(`/portal/engagements/${engagement.id}`);
  await settled(p);
  await expectAccessible(p, "an engagement waiting for the customer's details");
  const step1 = p.getByRole("region", { name: "Step 1: Details gathered" });
  const good = e2eCredentials("qhyg", 1);
  const csv = tokenCsv([
    { name: "Café Olé", credentials: good },
    { name: "Bad Realm Ltd", credentials: { ...e2eCredentials("qhyg", 2), realmId: "x" } },
  ]);
  await step1.getByLabel("Token file").setInputFiles({ name: "companies.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await expect(step1.getByRole("table", { name: "Problems in the file, by line" })).toBeVisible();
  await p.getByText("The columns").click();
  await expectAccessible(p, "the submission form with a checked file's problems");
  await fresh.close();
});

test("step 6 with a bulk run, in the console and in the portal", async ({ page, browser, factory, supportApi }) => {
  test.setTimeout(240_000);
  const org = await factory.organization("Axe Bulk Org");
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    companies: [
      { name: "Axe Tiny Ltd", records: 3, externalRef: "AX-1" },
      { name: "Axe Medium Ltd", records: 6, externalRef: "AX-2" },
      { name: "Axe Refreshed Ltd", records: 8, externalRef: "AX-3", rotatedAfterExport: true },
    ],
  });
  // Step 5 through its procedure (its screens have their own journey): Ferry picks the smallest company, a good one.
  const { runId } = await supportApi.mutation<{ runId: string }>("tests.start", { engagementId: eng.id, kind: "pilot", itemId: null });
  await expect
    .poll(async () => (await supportApi.query<{ status: string }>("tests.get", { engagementId: eng.id, runId })).status, { timeout: 120_000 })
    .toBe("passed");

  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${eng.id}`);
  await settled(page);
  const bulk = page.getByRole("region", { name: "Step 6: Bulk migration and handover" }).getByRole("region", { name: "Bulk migration", exact: true });
  // The agreed window is a week on: the start dialog asks why the run starts before it.
  await bulk.getByRole("button", { name: "Start bulk migration", exact: true }).click();
  const startDialog = page.getByRole("dialog", { name: /Start the bulk migration of/ });
  await expect(startDialog.getByLabel("Why start outside the agreed window?")).toBeVisible();
  await expectAccessible(page, "the start dialog outside the agreed window");
  await startDialog.getByRole("button", { name: "Not yet" }).click();
  await supportApi.mutation("bulk.start", { engagementId: eng.id, reason: "Checking the screens ahead of the window." });
  await page.reload();
  await settled(page);
  // The run may already have ended, and step 6 then opens on the next move (the report): the run is its first part.
  await openStep6Part(page, "Bulk migration");
  await expect(bulk.getByRole("progressbar", { name: "Companies finished" })).toBeVisible();
  await expect(bulk.getByRole("table", { name: "Companies of the bulk migration" })).toBeVisible();
  await expectAccessible(page, "the console's step 6 with a bulk run");

  const portal = await browser.newContext();
  const p = await portal.newPage();
  await signIn(p, eng.customer);
  await p.goto(`/portal/engagements/${eng.id}`);
  await settled(p);
  await openStep6Part(p, "Bulk migration");
  const portalBulk = p.getByRole("region", { name: "Step 6: Bulk migration and handover" }).getByRole("region", { name: "Bulk migration", exact: true });
  await expect(portalBulk.getByRole("table", { name: "Companies of the bulk migration" })).toBeVisible();
  await expectAccessible(p, "the portal's step 6 with a bulk run");
  await portal.close();
});
