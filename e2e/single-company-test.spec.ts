/**
 * Step 5 end to end: support runs the single-company test in the console, the worker process
 * carries it out against the sandbox, and the page follows it call by call to its result. A pass
 * completes step 5 (the customer sees the run in the portal); a tenant rotated after the export
 * fails with the advice and reopens step 4; a rehearsal runs on simulated companies.
 */
import { runAxe } from "./axe";
import { DEMO, expect, openActivity, openStep, signIn, test } from "./fixtures";

// A test's sync takes a few seconds on the sandbox; the worker polls it with backoff.
const RUN_TIMEOUT = { timeout: 90_000 };

test("support runs the single-company test, sees every call as it happens, and it passes, completing step 5; the customer sees it", async ({ page, browser, factory }) => {
  test.setTimeout(180_000);
  const org = await factory.organization("Pilot Org");
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    companies: [
      { name: "Large Holdings", records: 400, externalRef: "LH-1" },
      { name: "Tiny Traders", records: 5, externalRef: "TT-9" },
      { name: "Medium Makers", records: 60 },
    ],
  });
  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${eng.id}`);
  const step5 = page.getByRole("region", { name: "Step 5: Single-company test" });
  await expect(step5.getByLabel("Company to test")).toHaveValue("");
  await expect(step5.getByLabel("Company to test").locator("option")).toHaveCount(4);
  await step5.getByRole("button", { name: "Run the single-company test" }).click();
  await expect(page.getByText("Single-company test asked for: a worker takes it up now.")).toBeVisible();

  // The run as it happens, then its result.
  const run = step5.getByRole("article", { name: "Single-company test on Tiny Traders" });
  await expect(run).toBeVisible();
  await expect(run.getByText("(the smallest company)")).toBeVisible();
  await expect(run.getByRole("status").filter({ hasText: "Passed" })).toBeVisible(RUN_TIMEOUT);
  await expect(run).toContainText("Step 5 is done, with this test as its evidence.");
  await expect(page.getByText("The single-company test on Tiny Traders passed: step 5 is done.")).toBeVisible();

  const checks = run.getByRole("region", { name: "Checks" });
  await expect(checks.getByRole("listitem").filter({ hasText: "No reauthorization required" })).toContainText("Passed");
  await expect(checks.getByRole("listitem").filter({ hasText: "Data syncs complete correctly" })).toContainText("Passed");

  // Every call, each with its correlationId to copy.
  const calls = run.getByRole("table", { name: /Calls to the service/ });
  for (const operation of ["createCompany", "createConnection", "authorizeConnection", "refreshAllData", "getDataStatus", "listAccounts"]) {
    await expect(calls.locator(`tr[data-operation="${operation}"]`).first()).toBeVisible();
  }
  await expect(calls.getByRole("button", { name: "Copy correlationId of createCompany" })).toBeVisible();
  await expect(run.getByRole("button", { name: "Copy companyId" })).toBeVisible();
  await expect(run.getByRole("button", { name: "Copy connectionId" })).toBeVisible();
  // Every data type's sync status, folded once all synced as they should.
  await run.locator("summary", { hasText: /^Sync status of \d+ data types: \d+ Complete/ }).click();
  const dataTypes = run.getByRole("table", { name: /Data types of Tiny Traders/ });
  await expect(dataTypes.getByRole("row").filter({ hasText: "chartOfAccounts" })).toContainText("Complete");
  await expect(dataTypes.getByRole("row").filter({ hasText: "chartOfAccounts" })).toContainText("5");
  // Records for every data type the service lists, not only the one read as proof.
  for (const dataType of ["invoices", "customers", "bills"]) {
    await expect(dataTypes.getByRole("row").filter({ hasText: new RegExp(`^${dataType}`) }).getByRole("cell").last()).toHaveText("5");
  }

  // The step's card, with the run in it, has no accessibility violation axe can find.
  const axe = await runAxe(page, { include: '[data-step="5"]', tags: null });
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);

  // The checklist moved on, and the timeline says why.
  await expect(step5).toHaveAttribute("data-state", "done");
  await expect(step5.getByRole("button", { name: "Run the single-company test" })).toBeDisabled();
  const timeline = await openActivity(page);
  await expect(timeline).toContainText("Single-company test on Tiny Traders passed");
  await expect(timeline).toContainText("Completed step 5 (Single-company test)");

  // The customer reads the same run in the portal.
  const customer = eng.customer;
  const portal = await browser.newContext();
  const portalPage = await portal.newPage();
  await signIn(portalPage, customer);
  await portalPage.goto(`/portal/engagements/${eng.id}`);
  const portalRun = (await openStep(portalPage, 5)).getByRole("article", { name: "Single-company test on Tiny Traders" });
  await expect(portalRun.getByRole("status").filter({ hasText: "Passed" })).toBeVisible();
  await expect(portalRun.getByRole("table", { name: /Calls to the service/ }).locator('tr[data-operation="createCompany"]')).toBeVisible();
  await expect(portalPage.getByRole("button", { name: "Run the single-company test" })).toHaveCount(0);
  await portal.close();
});

test("a company whose tenant was rotated after the export fails with the advice, and step 4 is reopened", async ({ page, factory }) => {
  test.setTimeout(180_000);
  const org = await factory.organization("Rotated Org");
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    companies: [
      { name: "Fine Fabrics", records: 5 },
      { name: "Refreshed Ltd", records: 20, rotatedAfterExport: true },
    ],
  });
  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${eng.id}`);
  const step5 = page.getByRole("region", { name: "Step 5: Single-company test" });
  await step5.getByLabel("Find a company").fill("Refreshed");
  await expect(step5.getByLabel("Company to test").locator("option")).toHaveCount(2);
  await step5.getByLabel("Company to test").selectOption({ label: "Refreshed Ltd · 20 records" });
  await step5.getByRole("button", { name: "Run the single-company test" }).click();

  const run = step5.getByRole("article", { name: "Single-company test on Refreshed Ltd" });
  const advice =
    "The platform says this company's tokens were replaced (already used: the old app refreshed them after the export). Ask the customer to confirm syncing is off in the old app: while it runs, it replaces the tokens of every company in the file. This company can come back by its reconnect link or by fresh tokens in a supplementary file.";
  const failed = run.getByRole("alert").filter({ hasText: "Failed: what to do next" });
  await expect(failed).toBeVisible(RUN_TIMEOUT);
  await expect(failed).toContainText(advice);
  await expect(failed).toContainText("Step 4 (Syncing disabled) was reopened with this reason.");
  await expect(failed).toContainText("invalid_grant");
  await expect(run.getByRole("region", { name: "Checks" }).getByRole("listitem").filter({ hasText: "No reauthorization required" })).toContainText("Failed");
  await expect(run.getByRole("table", { name: /Calls to the service/ }).locator('tr[data-operation="authorizeConnection"]')).toContainText("200");

  await expect(step5).toHaveAttribute("data-state", "locked");
  const step4 = await openStep(page, 4);
  await expect(step4).toContainText("Pending");
  await expect(step4).toContainText(`Single-company test on Refreshed Ltd: ${advice}`);
  await expect(await openActivity(page)).toContainText("Reopened step 4 (Syncing disabled): Single-company test on Refreshed Ltd");
});

test("support rehearses on the sandbox: simulated companies, labelled as a rehearsal, the checklist untouched", async ({ page, factory }) => {
  test.setTimeout(180_000);
  const org = await factory.organization("Rehearsal Org");
  const eng = await factory.readyForSingleCompanyTest({ organization: org, companies: [{ name: "Rehearsed Retail", records: 5 }, { name: "Other Outfit", records: 8, rotatedAfterExport: true }] });
  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${eng.id}`);
  const step5 = page.getByRole("region", { name: "Step 5: Single-company test" });
  await step5.getByRole("button", { name: "Rehearse on the sandbox" }).click();
  const run = step5.getByRole("article", { name: "Rehearsal on Rehearsed Retail" });
  await expect(run.getByText("Rehearsal (sandbox)")).toBeVisible();
  await expect(run.getByRole("status").filter({ hasText: "Passed" })).toBeVisible(RUN_TIMEOUT);
  await expect(run).toContainText("A rehearsal never changes the checklist.");
  await expect(run).toContainText("never touches the real service target or the customer's tokens");
  await expect(step5).toHaveAttribute("data-state", "pending");
  await expect(await openActivity(page)).toContainText("Rehearsal on the sandbox with a simulated Rehearsed Retail passed");
});
