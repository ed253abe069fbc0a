/**
 * Fresh tokens after the bulk run, across both roles on the e2e sandbox: a company whose tokens the
 * customer's old app rotated after the export goes to its end customer after the bulk run; the customer
 * sees it in the portal with why it failed, downloads the template, chooses a file naming a
 * verified company too (refused by line, nothing stored), then a file with the platform's fresh
 * tokens for it (matched by its externalRef) and sends it; support reviews the file in the console
 * (masked values, who and when) and accepts it; the bulk run retries just that company, which ends
 * verified, and its fresh tokens are deleted once used. axe on each new state.
 */
import { expectAccessible } from "./axe";
import { screenshots } from "./screenshots";
import { DEMO, e2eSandbox, expect, openActivity, openStep6Part, signIn, test, tokenCsv, type TrpcApi } from "./fixtures";

const COMPANIES = [
  { name: "Fresh Pilot Ltd", externalRef: "FP-01", records: 2 },
  { name: "Copperleaf Cafe", externalRef: "CC-02", records: 4, rotatedAfterExport: true },
  { name: "Fernhill Farm", externalRef: "FF-03", records: 3 },
];

/** Step 5 through its procedure (Ferry picks the smallest company), then the bulk run until it completes. */
async function bulkRunDone(api: TrpcApi, engagementId: string): Promise<void> {
  const { runId } = await api.mutation<{ runId: string }>("tests.start", { engagementId, kind: "pilot", itemId: null });
  await expect.poll(async () => (await api.query<{ status: string }>("tests.get", { engagementId, runId })).status, { timeout: 45_000 }).toBe("passed");
  await api.mutation("bulk.start", { engagementId, reason: "The customer asked to run before the agreed window." });
  await expect
    .poll(async () => (await api.query<{ run: { status: string } | null }>("bulk.overview", { engagementId })).run?.status, { timeout: 60_000 })
    .toBe("completed");
}

test("the customer sends fresh tokens for a company that failed on its tokens, support accepts, and the bulk run verifies it", async ({ page, browser, factory, supportApi }) => {
  test.setTimeout(240_000);
  const sandbox = e2eSandbox();
  const org = await factory.organization("Fresh Tokens Org");
  const eng = await factory.readyForSingleCompanyTest({ organization: org, companies: COMPANIES });
  await bulkRunDone(supportApi, eng.id);

  // The customer finds the company in step 6, with why it failed.
  await signIn(page, eng.customer);
  await page.goto(`/portal/engagements/${eng.id}`);
  const step6 = await openStep6Part(page, "Fresh tokens");
  const panel = step6.getByRole("region", { name: "Fresh tokens for companies that failed" });
  const waiting = panel.getByRole("table", { name: "Companies that need fresh tokens" });
  const copperleaf = waiting.getByRole("row").filter({ hasText: "Copperleaf Cafe" });
  await expect(copperleaf).toContainText("Reconnection pending");
  await expect(copperleaf).toContainText("invalid_grant");
  await expect(copperleaf.getByRole("button", { name: "Copy external ref of Copperleaf Cafe" })).toBeVisible();
  await expect(waiting.getByRole("row")).toHaveCount(2);
  await expect(panel.getByRole("link", { name: "CSV template" })).toHaveAttribute("href", "/api/templates/qhyg?format=csv");
  const template = await page.request.get("/api/templates/qhyg?format=csv");
  expect((await template.text()).replace(/^\uFEFF/, "").split(/\r?\n/)[0]).toContain("companyName");
  await expectAccessible(page, "the portal's fresh-token panel");
  await screenshots(page, panel, "portal-fresh-tokens-waiting");

  // A file that also names a verified company is refused by that line; nothing can be sent.
  const fresh = (await sandbox.control.issueCredentials("qhyg", eng.tenants[1]!.tenantId, "valid")).credentials;
  const wrong = (await sandbox.control.issueCredentials("qhyg", eng.tenants[2]!.tenantId, "valid")).credentials;
  const chooser = panel.getByLabel("File of fresh tokens");
  await chooser.setInputFiles({
    name: "fresh.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(
      tokenCsv([
        { name: "Copperleaf Cafe", externalRef: "CC-02", credentials: fresh },
        { name: "Fernhill Farm", externalRef: "FF-03", credentials: wrong },
      ]),
    ),
  });
  await expect(panel.getByText("fresh.csv cannot be submitted yet")).toBeVisible();
  const problems = panel.getByRole("table", { name: "Problems in the file, by line" });
  await expect(problems.getByRole("row").filter({ hasText: "Line 3" })).toContainText("Fernhill Farm is already verified");
  await expect(panel.getByRole("button", { name: "Send fresh tokens" })).toBeDisabled();
  await expectAccessible(page, "a refused file of fresh tokens");
  await screenshots(page, panel, "portal-fresh-tokens-refused");

  // The right file: checked, matched by its externalRef, sent.
  await chooser.setInputFiles({ name: "copperleaf.csv", mimeType: "text/csv", buffer: Buffer.from(tokenCsv([{ name: "Copperleaf Cafe", externalRef: "CC-02", credentials: fresh }])) });
  await expect(panel.getByText("copperleaf.csv: 1 company, ready to submit")).toBeVisible();
  await expect(panel.getByRole("table", { name: "Companies this file gives fresh tokens to" }).getByRole("row").filter({ hasText: "Copperleaf Cafe" })).toContainText("External ref");
  await panel.getByRole("button", { name: "Send fresh tokens" }).click();
  await expect(page.getByText("Sent copperleaf.csv: fresh tokens for 1 company. Ferry support will review them.")).toBeVisible();
  await expect(panel.getByText("Fresh tokens sent: Ferry support is reviewing them")).toBeVisible();

  // Support reviews it in the console: the company, masked values, who sent it; and accepts.
  const supportContext = await browser.newContext();
  const support = await supportContext.newPage();
  await signIn(support, DEMO.sam);
  await support.goto(`/engagements/${eng.id}`);
  // Step 6 opens where support's move is: the fresh tokens to review.
  await expect(support.getByRole("navigation", { name: "Parts of step 6" }).getByRole("link", { name: /^Fresh tokens/ })).toHaveAttribute("aria-current", "page");
  const review = support.getByRole("region", { name: "Step 6: Bulk migration and handover" }).getByRole("region", { name: "Fresh tokens for companies that failed" });
  const rows = review.getByRole("table", { name: "Companies in copperleaf.csv" });
  const row = rows.getByRole("row").filter({ hasText: "Copperleaf Cafe" });
  await expect(row).toContainText(`refreshToken••••${fresh.refreshToken!.slice(-4)}`);
  await expect(row).toContainText("Held, encrypted");
  await expect(review).toContainText(`by ${eng.customer.name}`);
  await expect(review).not.toContainText(fresh.refreshToken!);
  await expectAccessible(support, "support's review of fresh tokens");
  await screenshots(support, review, "console-fresh-tokens-review");
  await review.getByRole("button", { name: "Accept and retry" }).click();
  await support.getByRole("dialog", { name: "Accept copperleaf.csv?" }).getByRole("button", { name: "Accept and retry" }).click();
  await expect(support.getByText("Accepted copperleaf.csv: retrying 1 company in the bulk migration.")).toBeVisible();

  // The bulk run retries just that company: verified, its fresh tokens deleted once used.
  await expect(row).toContainText("Verified", { timeout: 60_000 });
  await expect(row).toContainText("Deleted");
  await expect(review.getByRole("table", { name: "Companies waiting for fresh tokens" })).toHaveCount(0);
  await expectAccessible(support, "an accepted file of fresh tokens");
  await screenshots(support, review, "console-fresh-tokens-accepted");
  await support.reload();
  const timeline = await openActivity(support);
  await expect(timeline).toContainText("Deleted the fresh tokens of Copperleaf Cafe once used (verified)");
  await expect(timeline).toContainText("Accepted the fresh tokens of copperleaf.csv: retrying 1 company in the bulk migration");

  // The customer sees it too.
  await page.reload();
  await expect(panel.getByText("Fresh tokens accepted: the companies are being retried")).toBeVisible();
  await panel.getByText(/The file you sent: copperleaf\.csv/).click();
  await expect(panel.getByRole("table", { name: "Companies in copperleaf.csv" }).getByRole("row").filter({ hasText: "Copperleaf Cafe" })).toContainText("Verified");
  await screenshots(page, panel, "portal-fresh-tokens-accepted");
  await openStep6Part(page, "Bulk migration");
  const bulkTable = step6.getByRole("region", { name: "Bulk migration", exact: true }).getByRole("table", { name: "Companies of the bulk migration" });
  await expect(bulkTable.getByRole("row").filter({ hasText: "Copperleaf Cafe" })).toContainText("Verified");
  await supportContext.close();
});
