/**
 * Support's home, the portfolio (issue 30, item 2), over the demo's engagements: the rows are in
 * the first paint, the most urgent first; the counts filter; filters and grouping live in the URL;
 * the reasons for holds are counted. (Its fit at 1366 and 390 and axe are checked with the
 * console's other pages in engagement-page.spec.ts.)
 */
import { DEMO, expect, signIn, test } from "./fixtures";

type Portfolio = { options: { customers: { id: string; name: string }[] }; rows: { reference: string; platformName: string }[] };

test("the portfolio opens with its rows, the late first; the counts, filters and grouping stay in the URL", async ({ page, supportApi }) => {
  const all = await supportApi.query<Portfolio>("portfolio.get", {});
  const acme = all.options.customers.find((c) => c.name === "Acme Lending")!.id;
  const bluebird = all.options.customers.find((c) => c.name === "Bluebird Commerce")!.id;
  const mine = await supportApi.query<Portfolio>("portfolio.get", { organizationId: acme });
  const freeagent = mine.rows.find((r) => r.platformName === "FreeAgent")!.reference;

  await signIn(page, DEMO.priya);
  // The first paint: the server's HTML already holds the rows.
  const html = await (await page.request.get(`/portfolio?customer=${acme}`)).text();
  expect(html).toContain(freeagent);

  await page.goto(`/portfolio?customer=${acme}`);
  const rows = page.getByRole("table", { name: "Open engagements" }).locator("tbody tr");
  // Priya's review of the FreeAgent submission is a day past support's one-day target.
  await expect(rows.first()).toContainText(freeagent);
  await expect(rows.first()).toContainText("Late");
  await expect(page.getByLabel("Customer", { exact: true })).toHaveValue(acme);

  const counts = page.getByRole("region", { name: "Counts" });
  await counts.getByRole("button", { name: /Late$/ }).click();
  await expect(page).toHaveURL(/[?&]risk=late/);
  await expect(counts.getByRole("button", { name: /Late$/ })).toHaveAttribute("aria-pressed", "true");
  await expect(rows).toHaveCount(1);

  await page.getByLabel("Group by").selectOption({ label: "Owner" });
  await expect(page).toHaveURL(/[?&]group=owner/);
  await expect(page.getByRole("heading", { level: 2, name: /^Priya Support · 1 open, 1 late$/ })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Group by")).toHaveValue("owner");
  await expect(page.getByRole("table", { name: /^Priya Support/ }).locator("tbody tr")).toHaveCount(1);

  // Bluebird's Wave engagement is on hold, its reason counted and its clock paused.
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/portfolio\?group=owner$/);
  await page.getByLabel("Customer", { exact: true }).selectOption(bluebird);
  await expect(page.getByText("Why on hold")).toBeVisible();
  await expect(page.getByText("Customer's IT or app changes: 1")).toBeVisible();
  await expect(page.getByText("Paused").first()).toBeVisible();
});

test("the workload lists each person's load, and an engagement is handed on from there", async ({ page, factory }) => {
  const org = await factory.organization("Workload Org");
  const engagement = await factory.engagement({ organizationId: org.id, platformKey: "rwuv" });
  await signIn(page, DEMO.sam);
  await page.goto("/portfolio");
  await page.getByRole("link", { name: "Workload by person" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Workload" })).toBeVisible();
  const people = page.getByRole("table", { name: "Workload by person" });
  await expect(people.getByRole("row").filter({ hasText: "Priya Support" })).toBeVisible();
  const samRow = people.getByRole("row").filter({ hasText: "Sam Support" });
  await samRow.getByRole("button", { name: "Show Sam Support's engagements" }).click();
  await expect(samRow.getByRole("button", { name: "Hide Sam Support's engagements" })).toHaveAttribute("aria-expanded", "true");
  const mine = page.getByRole("table", { name: "Sam Support's open engagements" });
  await mine.getByLabel(`Hand ${engagement.reference} to`).selectOption({ label: "Priya Support" });
  await expect(page.getByText(`${engagement.reference} is now Priya Support's.`)).toBeVisible();
  await expect(mine.getByRole("row").filter({ hasText: engagement.reference })).toHaveCount(0);
  // The engagement's page names its new owner.
  await page.goto(`/engagements/${engagement.id}`);
  await expect(page.getByRole("button", { name: "Change owner (now Priya Support)" })).toBeVisible();
});
