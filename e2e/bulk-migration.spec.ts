/**
 * The whole journey of the bulk migration and handover across both roles on the e2e sandbox: support creates an
 * engagement, the customer does steps 1–4 in the portal with a file of 25 companies (three of
 * whose tenants the old app refreshes after the export), support passes step 5 on a good company,
 * the bulk run migrates the rest and the three rotated ones go to their end customers (`reconnect_pending`) with the reason shown, the
 * handover report is produced and downloads, the customer acknowledges it, the credentials are
 * purged and the engagement completes.
 */
import fs from "node:fs";
import { parse } from "csv-parse/sync";
import type { Tenant } from "@/server/sandbox/controls/control-client";
import { DEMO, e2eSandbox, expect, openActivity, openStep, openStep6Part, SANDBOX_CLIENT_REQUESTS_PER_MINUTE, signIn, test, tokenCsv, uniqueSuffix } from "./fixtures";

/** A run's completion on the sandbox: generous, and bounded. */
const RUN_TIMEOUT = { timeout: 120_000 };

const COMPANIES = Array.from({ length: 25 }, (_, i) => {
  const n = String(i + 1).padStart(2, "0");
  return { name: `Bulk Co ${n}`, externalRef: `BC-${n}`, records: 3 + (i % 5) };
});
/** The tenants the customer's old app refreshes after the file is exported. */
const ROTATED = new Set(["Bulk Co 06", "Bulk Co 13", "Bulk Co 20"]);
/** Step 5's company, picked explicitly: one whose tokens still work. */
const PILOT = COMPANIES[0]!;

test("support creates an engagement, the customer does steps 1–4 in the portal, step 5 passes, the bulk run migrates the rest (three wait for their end customers), the handover report downloads, the customer acknowledges, credentials are purged and the engagement completes", async ({
  page,
  browser,
  adminApi,
  factory,
}) => {
  test.setTimeout(600_000);
  const sandbox = e2eSandbox();
  const suffix = uniqueSuffix();

  // The admin adds the organisation's own sandbox client as its service target (admin work, through the API).
  const org = await factory.organization("Bulk Org");
  const customer = await factory.customerUser(org);
  const { apiKey } = await sandbox.control.createClient({ plan: "paid", name: `Bulk client ${suffix}` });
  const targetName = `Bulk sandbox ${suffix}`;
  const target = await adminApi.mutation<{ id: string }>("targets.create", {
    name: targetName,
    baseUrl: sandbox.url,
    apiKey,
    kind: "sandbox",
    organizationId: org.id,
    requestsPerMinute: SANDBOX_CLIENT_REQUESTS_PER_MINUTE,
  });

  // Support creates the engagement and points it at the target, in the console.
  const supportContext = await browser.newContext();
  const support = await supportContext.newPage();
  await signIn(support, DEMO.sam);
  await support.goto("/engagements/new");
  await support.getByLabel("Customer organisation").selectOption({ label: org.name });
  await support.getByLabel("Platform").selectOption({ label: "QuickBooks Online" });
  await support.getByRole("button", { name: "Create engagement" }).click();
  await support.waitForURL(/\/engagements\/(?!new)[^/]+$/);
  const engagementId = new URL(support.url()).pathname.split("/").pop()!;
  await support.getByRole("button", { name: /Change service target/ }).click();
  const targetDialog = support.getByRole("dialog", { name: "Change service target" });
  await targetDialog.getByLabel("Service target").selectOption(target.id);
  await targetDialog.getByRole("button", { name: "Save target" }).click();
  await expect(targetDialog).toBeHidden();
  await expect(support.getByText(`${targetName} (sandbox)`)).toBeVisible();

  // The customer's 25 companies are real tenants on the sandbox; the old app exports their tokens.
  const tenants = new Map<string, Tenant>();
  for (const c of COMPANIES) tenants.set(c.name, await sandbox.control.createTenant("qhyg", { name: c.name, records: c.records }));
  const csv = tokenCsv(COMPANIES.map((c) => ({ ...c, credentials: tenants.get(c.name)!.credentials })));

  // Steps 1–4 in the portal: details and the token file, then (after support accepts) the window and the two confirmations.
  await signIn(page, customer);
  await page.goto(`/portal/engagements/${engagementId}`);
  const portalStep = (n: number, title: string) => page.getByRole("region", { name: `Step ${n}: ${title}` });
  const step1 = portalStep(1, "Details gathered");
  await step1.getByLabel("Client id").fill("bulk-qbo-oauth-app");
  await step1.getByLabel("Client secret").fill(`cs_bulk_${suffix}`);
  await step1.getByLabel("Contact 1 name").fill("Erin Engineer");
  await step1.getByLabel("Contact 1 email").fill("erin@e2e.test");
  await step1.getByLabel("Token file").setInputFiles({ name: "companies.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await expect(step1.getByText("companies.csv: 25 companies, ready to submit")).toBeVisible();
  await step1.getByRole("button", { name: "Submit details and token file" }).click();
  await expect(step1.getByText("Submitted: Ferry support is reviewing it")).toBeVisible();

  // The old app keeps running for a while and refreshes three companies' tokens: those in the file are dead now.
  for (const name of ROTATED) await sandbox.control.rotate("qhyg", tenants.get(name)!.tenantId);

  await support.reload();
  const review = support.getByRole("region", { name: "Step 1: Details gathered" });
  await review.getByRole("button", { name: "Accept submission" }).click();
  await support.getByRole("dialog", { name: "Accept companies.csv?" }).getByRole("button", { name: "Accept submission" }).click();
  await expect(support.getByText("Accepted companies.csv. Step 1 is done.")).toBeVisible();
  await (await openStep(support, 2)).getByRole("button", { name: "Propose to the customer" }).click();
  await expect(support.getByText("Proposed the window; the customer is mailed to accept one.")).toBeVisible();

  await page.reload();
  await (await openStep(page, 2)).getByRole("button", { name: /Accept this window/ }).click();
  await page.getByRole("dialog", { name: "Accept this migration window?" }).getByRole("button", { name: "Accept this window" }).click();
  await expect(page.getByText("You accepted the migration window. Step 2 is done.")).toBeVisible();
  const step3 = await openStep(page, 3);
  await step3.getByLabel(/The callback URL is on our registered QuickBooks Online OAuth app/).check();
  await step3.getByRole("button", { name: "Confirm the callback URL is added" }).click();
  await expect(page.getByText("Confirmed step 3 (Callback URL added).")).toBeVisible();
  const step4 = await openStep(page, 4);
  await step4.getByLabel(/Syncing in our old app is off for every company/).check();
  await step4.getByRole("button", { name: "Confirm syncing is off" }).click();
  await expect(step4).toContainText("Done");

  // Step 5 on a company whose tokens still work, picked explicitly.
  await support.reload();
  const step5 = await openStep(support, 5);
  await step5.getByLabel("Find a company").fill(PILOT.externalRef);
  await step5.getByLabel("Company to test").selectOption({ label: `${PILOT.name} (${PILOT.externalRef}) · ${PILOT.records} records` });
  await step5.getByRole("button", { name: "Run the single-company test" }).click();
  await expect(step5.getByRole("article", { name: `Single-company test on ${PILOT.name}` }).getByRole("status").filter({ hasText: "Passed" })).toBeVisible(RUN_TIMEOUT);
  await expect(step5).toHaveAttribute("data-state", "done");

  // Step 6: the bulk run migrates the other 24. The page stayed on step 5 when it passed; the next move leads on.
  await support.getByRole("region", { name: "Your move" }).getByRole("link", { name: "Go to the bulk migration" }).click();
  await expect(support).toHaveURL(/\?step=6&part=run$/);
  const step6 = support.getByRole("region", { name: "Step 6: Bulk migration and handover" });
  const bulk = step6.getByRole("region", { name: "Bulk migration", exact: true });
  await bulk.getByRole("button", { name: "Start bulk migration" }).click();
  const startDialog = support.getByRole("dialog", { name: /Start the bulk migration of/ });
  await expect(startDialog).toContainText("24 companies not yet migrated");
  // The window the customer accepted starts later: starting now needs a reason, which the customer is told.
  await expect(startDialog.getByRole("status").filter({ hasText: "Outside the agreed window" })).toContainText(/The agreed window \(.+ UTC\) starts in .+: say why the bulk migration starts before it/);
  await startDialog.getByRole("button", { name: "Start bulk migration" }).click();
  const why = startDialog.getByLabel("Why start outside the agreed window?");
  await expect(why).toHaveAttribute("aria-invalid", "true");
  await expect(startDialog).toContainText(/Say why the bulk migration starts .+ before the agreed window: the reason is recorded and the customer is told\./);
  await expect(bulk.getByRole("progressbar", { name: "Companies finished" })).toHaveCount(0);
  await why.fill("Erin asked to start today: their finance team is ready early.");
  await startDialog.getByRole("button", { name: "Start bulk migration" }).click();
  await expect(support.getByText("The bulk migration is started outside the agreed window: the customer is told why, and a worker takes it up now.")).toBeVisible();
  // The bar and the counts cover all 25 companies, step 5's included, as the handover card and the report do.
  const progress = bulk.getByRole("progressbar", { name: "Companies finished" });
  await expect(progress).toHaveAttribute("aria-valuemax", "25");
  await expect(progress).toHaveAttribute("aria-valuenow", "25", RUN_TIMEOUT);
  const reconciled = `25 companies supplied: 25 created on the service, 22 linked, 22 synced; 22 verified, 3 reconnection pending (the single-company test's company, ${PILOT.name}, included)`;
  await expect(support.getByText(`The bulk migration has finished: ${reconciled}.`)).toBeVisible();
  const verifiedIn = (region: ReturnType<typeof bulk.getByRole>) => region.getByRole("region", { name: "Reconciliation" }).getByText("Verified", { exact: true }).locator("xpath=following-sibling::dd");
  await expect(verifiedIn(bulk)).toHaveText("22");
  await expect(bulk.getByRole("article", { name: "Bulk run" })).toContainText("Requests made");

  // The table: every company, the pilot marked; the three rotated ones wait for their end customers, with the reason shown.
  const table = bulk.getByRole("table", { name: "Companies of the bulk migration" });
  await expect(bulk.getByText("Showing 1–25 of 25 companies")).toBeVisible();
  await expect(table.getByRole("row").filter({ hasText: PILOT.name })).toContainText("Pilot");
  await bulk.getByLabel("Filter by state").selectOption({ label: "Reconnection pending" });
  await expect(bulk.getByText("Showing 1–3 of 3 companies")).toBeVisible();
  for (const name of ROTATED) {
    const row = table.getByRole("row").filter({ hasText: name });
    await expect(row).toContainText("Reconnection pending");
    await expect(row).toContainText("invalid_grant");
  }
  await bulk.getByLabel("Filter by state").selectOption({ label: "Verified" });
  await expect(bulk.getByText("Showing 1–22 of 22 companies")).toBeVisible();
  await bulk.getByLabel("Search companies").fill("BC-17");
  await expect(table.getByRole("row")).toHaveCount(2);
  await expect(table.getByRole("button", { name: "Copy companyId of Bulk Co 17" })).toBeVisible();

  // Support produces the handover report, and it downloads as CSV with every company.
  await openStep6Part(support, "Handover report");
  const handover = step6.getByRole("region", { name: "Handover report", exact: true });
  await handover.getByRole("button", { name: "Produce handover report" }).click();
  await support.getByRole("dialog", { name: /Produce the handover report/ }).getByRole("button", { name: "Produce report" }).click();
  await expect(support.getByText("The handover report is produced and the customer has been mailed.")).toBeVisible();
  await expect(verifiedIn(handover)).toHaveText("22");
  await expect((await openActivity(support)).getByRole("listitem").filter({ hasText: `Produced the handover report: ${reconciled}` })).toHaveCount(1);
  await support.goBack();
  const [download] = await Promise.all([support.waitForEvent("download"), handover.getByRole("link", { name: "Download report (CSV)" }).click()]);
  // The reconciliation heads the file; the table starts after the first empty line.
  const [top, tableText] = fs.readFileSync(await download.path(), "utf8").replace(/^\uFEFF/, "").split("\r\n\r\n");
  expect(top!.split("\r\n")[0]).toContain(reconciled);
  const rows = parse(tableText!, { columns: true }) as Record<string, string>[];
  expect(rows).toHaveLength(25);
  for (const r of rows) {
    expect(r["Final state"], r["Company name"]).toBe(ROTATED.has(r["Company name"]!) ? "Reconnection pending" : "Verified");
    if (!ROTATED.has(r["Company name"]!)) expect(r["Connection ID"]).not.toBe("");
  }

  // The customer follows the run read-only, reads the report and acknowledges it.
  await page.reload();
  const portal6 = await openStep(page, 6);
  // The report waits for the customer: step 6 opens on it.
  await expect(page.getByRole("navigation", { name: "Parts of step 6" }).getByRole("link", { name: "Handover report" })).toHaveAttribute("aria-current", "page");
  await expect(verifiedIn(portal6.getByRole("region", { name: "Handover report", exact: true }))).toHaveText("22");
  await openStep6Part(page, "Bulk migration");
  const portalBulk = portal6.getByRole("region", { name: "Bulk migration", exact: true });
  await expect(portalBulk.getByRole("progressbar", { name: "Companies finished" })).toHaveAttribute("aria-valuenow", "25");
  await expect(verifiedIn(portalBulk)).toHaveText("22");
  await expect(portalBulk.getByRole("button", { name: "Start bulk migration" })).toHaveCount(0);
  await expect(portalBulk.getByRole("button", { name: /Set .* aside/ })).toHaveCount(0);
  // The customer is told the run started before the window they accepted, and why.
  await expect(await openActivity(page)).toContainText(
    /Started the bulk migration of 24 companies on .+, .+ before the agreed window .+ UTC: Erin asked to start today: their finance team is ready early/,
  );
  await page.getByRole("region", { name: "Your move" }).getByRole("link", { name: "Read and acknowledge the report" }).click();
  await portal6.getByRole("button", { name: "Acknowledge the handover report" }).click();
  await page.getByRole("dialog", { name: "Acknowledge the handover report" }).getByRole("button", { name: "Acknowledge and delete credentials" }).click();
  await expect(page.getByText(/the handover report is acknowledged, your tokens and client secret are deleted, and the engagement is completed/)).toBeVisible();
  await expect(portal6.getByRole("region", { name: "Handover report", exact: true })).toContainText("no token or client secret is kept");
  await expect(page.getByRole("region", { name: "Engagement details" })).toContainText("Completed");

  // Support sees the purge and the completed engagement.
  await support.reload();
  await expect(step6).toHaveAttribute("data-state", "done");
  await expect(step6.getByRole("region", { name: "Handover report", exact: true })).toContainText("no token or client secret is kept");
  await supportContext.close();
});
