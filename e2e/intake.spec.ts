import fs from "node:fs";
import type { Page } from "@playwright/test";
import { DEMO, e2eCredentials, expect, openStep, signIn, test, tokenCsv } from "./fixtures";
import { screenshots } from "./screenshots";

/** Fills the details form of step 1 in the portal. */
async function fillDetails(step1: ReturnType<Page["getByRole"]>) {
  await step1.getByLabel("Client id").fill("acme-qbo-oauth-app");
  await step1.getByLabel("Client secret").fill("cs_e2e_9f8e7d6c5b4a3210");
  await step1.getByLabel("Contact 1 name").fill("Erin Engineer");
  await step1.getByLabel("Contact 1 email").fill("erin@e2e.test");
}

test("a customer submits details and a token file, support sends it back once and then accepts, a window is agreed with its invite, steps 3 and 4 are confirmed in the portal, and another organisation sees none of it", async ({
  page,
  browser,
  factory,
}) => {
  test.setTimeout(180_000);
  const org = await factory.organization("Intake Org");
  const engagement = await factory.engagement({ organizationId: org.id, platformKey: "qhyg" });
  const customer = await factory.customerUser(org);
  await signIn(page, customer);
  await page.goto(`/portal/engagements/${engagement.id}`);
  const step = (n: number, title: string) => page.getByRole("region", { name: `Step ${n}: ${title}` });
  const step1 = step(1, "Details gathered");
  // The first screen says it is the customer's move, with its button.
  const move = page.getByRole("region", { name: "Your move" });
  await expect(move).toBeInViewport();
  await expect(move.getByRole("link")).toBeVisible();

  // The template: a header row and one example row, in the platform's columns.
  const [template] = await Promise.all([page.waitForEvent("download"), step1.getByRole("link", { name: "CSV template" }).click()]);
  expect(template.suggestedFilename()).toBe("ferry-token-file-quickbooks-online.csv");
  const templateLines = fs.readFileSync(await template.path(), "utf8").replace(/^\uFEFF/, "").trim().split("\r\n");
  expect(templateLines[0]).toBe("companyName,accessToken,refreshToken,expiresAt,realmId,externalRef,records");
  expect(templateLines).toHaveLength(2);

  // A file with errors: each shown by line, nothing can be submitted.
  const companies = [0, 1, 2].map((i) => ({ name: `Harbour Co ${i + 1}`, credentials: e2eCredentials("qhyg", i) }));
  const broken = [companies[0]!, { ...companies[1]!, credentials: { ...companies[1]!.credentials, realmId: "12ab" } }, companies[0]!];
  await fillDetails(step1);
  await step1.getByLabel("Token file").setInputFiles({ name: "companies.csv", mimeType: "text/csv", buffer: Buffer.from(tokenCsv(broken)) });
  await expect(step1.getByText("companies.csv cannot be submitted yet")).toBeVisible();
  const problems = step1.getByRole("table", { name: "Problems in the file, by line" });
  await expect(problems.getByRole("row").filter({ hasText: "Line 3" }).filter({ hasText: "realmId" })).toContainText("Malformed value");
  await expect(problems.getByRole("row").filter({ hasText: "Line 4" }).filter({ hasText: /Same (token|company) twice/ }).first()).toBeVisible();
  await expect(step1.getByRole("button", { name: "Submit details and token file" })).toBeDisabled();

  // Fixed and chosen again: ready, with a masked preview; then submitted.
  await step1.getByLabel("Token file").setInputFiles({ name: "companies.csv", mimeType: "text/csv", buffer: Buffer.from(tokenCsv(companies)) });
  await expect(step1.getByText("companies.csv: 3 companies, ready to submit")).toBeVisible();
  const preview = step1.getByRole("table", { name: "Preview of the first rows (secrets masked)" });
  await expect(preview).toContainText("Harbour Co 1");
  await expect(preview).not.toContainText(companies[0]!.credentials.accessToken!);
  await step1.getByRole("button", { name: "Submit details and token file" }).click();
  await expect(page.getByText("Submitted companies.csv: 3 companies. Ferry support will review it.")).toBeVisible();
  await expect(step1.getByText("Submitted: Ferry support is reviewing it")).toBeVisible();
  await expect(page.getByText("Ferry support's move")).toBeVisible();

  // Support sends it back once, with a note.
  const supportContext = await browser.newContext();
  const support = await supportContext.newPage();
  await signIn(support, DEMO.sam);
  await support.goto(`/engagements/${engagement.id}`);
  const review = support.getByRole("region", { name: "Step 1: Details gathered" });
  await expect(review.getByText("Awaiting review")).toBeVisible();
  await expect(review).toContainText("••••3210");
  await review.getByRole("button", { name: "Send back" }).click();
  const sendBack = support.getByRole("dialog", { name: "Send back companies.csv" });
  await sendBack.getByLabel(/What should the customer fix/).fill("Please add the records column so we can estimate the window.");
  await sendBack.getByRole("button", { name: "Send back" }).click();
  await expect(sendBack).toBeHidden();
  await expect(review.getByText("Sent back", { exact: true })).toBeVisible();

  // The customer sees the note, fixes the file and submits again.
  await page.reload();
  await expect(step1.getByText(/Sent back by Sam Support/)).toBeVisible();
  await expect(step1).toContainText("Please add the records column so we can estimate the window.");
  await step1.getByLabel("Client secret").fill("cs_e2e_9f8e7d6c5b4a3210");
  await step1.getByLabel("Token file").setInputFiles({
    name: "companies-v2.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(tokenCsv(companies.map((c) => ({ ...c, records: 120 })))),
  });
  await expect(step1.getByText("companies-v2.csv: 3 companies, ready to submit")).toBeVisible();
  await step1.getByRole("button", { name: "Submit details and token file" }).click();
  await expect(step1.getByText("Submitted: Ferry support is reviewing it")).toBeVisible();

  // Support accepts; step 1 is done.
  await support.reload();
  await expect(review.getByText("companies-v2.csv")).toBeVisible();
  // Accepting asks first: "Not yet" changes nothing.
  await review.getByRole("button", { name: "Accept submission" }).click();
  let confirm = support.getByRole("dialog", { name: "Accept companies-v2.csv?" });
  await expect(confirm).toContainText("3 companies");
  await confirm.getByRole("button", { name: "Not yet" }).click();
  await expect(confirm).toBeHidden();
  await expect(review).toContainText("Awaiting review");
  await review.getByRole("button", { name: "Accept submission" }).click();
  confirm = support.getByRole("dialog", { name: "Accept companies-v2.csv?" });
  await screenshots(support, null, "console-accept-submission");
  await confirm.getByRole("button", { name: "Accept submission" }).click();
  await expect(support.getByText("Accepted companies-v2.csv. Step 1 is done.")).toBeVisible();
  await expect(review).toContainText("Done");

  // Support proposes a window, with the estimate beside it.
  const windows = await openStep(support, 2);
  await expect(windows.getByText(/Estimated duration:/)).toBeVisible();
  await windows.getByRole("button", { name: "Propose to the customer" }).click();
  await expect(support.getByText("Proposed the window; the customer is mailed to accept one.")).toBeVisible();
  await expect(windows.getByRole("table", { name: "Migration windows" })).toContainText("Proposed");

  // The customer accepts it and downloads the invite.
  await page.reload();
  const step2 = await openStep(page, 2);
  await expect(step2.getByText(/Estimated duration:/)).toBeVisible();
  // Accepting asks first, naming the window; "Not yet" leaves it proposed.
  await step2.getByRole("button", { name: /Accept this window/ }).click();
  let acceptWindow = page.getByRole("dialog", { name: "Accept this migration window?" });
  await acceptWindow.getByRole("button", { name: "Not yet" }).click();
  await expect(acceptWindow).toBeHidden();
  await expect(step2.getByText("Agreed window")).toHaveCount(0);
  await step2.getByRole("button", { name: /Accept this window/ }).click();
  acceptWindow = page.getByRole("dialog", { name: "Accept this migration window?" });
  await expect(acceptWindow).toContainText("Sam Support");
  await screenshots(page, null, "portal-accept-window");
  await acceptWindow.getByRole("button", { name: "Accept this window" }).click();
  await expect(page.getByText("You accepted the migration window. Step 2 is done.")).toBeVisible();
  await expect(step2.getByText("Agreed window")).toBeVisible();
  const [invite] = await Promise.all([page.waitForEvent("download"), step2.getByRole("link", { name: /^Calendar invite \(\.ics\) for the window starting / }).click()]);
  expect(invite.suggestedFilename()).toMatch(new RegExp(`^${engagement.reference}-window-\\d{4}-\\d{2}-\\d{2}\\.ics$`));
  const ics = fs.readFileSync(await invite.path(), "utf8");
  expect(ics).toContain("BEGIN:VCALENDAR");
  expect(ics).toContain(`SUMMARY:${engagement.reference} migration window (QuickBooks Online)`);
  expect(ics).toMatch(/ORGANIZER;CN="?Sam Support"?:mailto:sam@ferry\.test/i);

  // Steps 3 and 4 in the portal.
  const step3 = await openStep(page, 3);
  await expect(step3.getByTestId("callback-url")).toHaveText("https://quickbooksonline.codat.io/oauth2/callback");
  await expect(step3.getByRole("button", { name: "Copy callback URL" })).toBeVisible();
  await step3.getByLabel(/The callback URL is on our registered QuickBooks Online OAuth app/).check();
  await step3.getByRole("button", { name: "Confirm the callback URL is added" }).click();
  await expect(page.getByText("Confirmed step 3 (Callback URL added).")).toBeVisible();
  await expect(step3).toContainText("Done");
  const step4 = await openStep(page, 4);
  await expect(step4.getByText("QuickBooks Online rotates refresh tokens", { exact: true })).toBeVisible();
  await expect(step4.getByRole("definition").filter({ hasText: "0 of 3" })).toBeVisible();
  const confirm4 = step4.getByRole("button", { name: "Confirm syncing is off" });
  await expect(confirm4).toBeDisabled();
  await step4.getByLabel(/Syncing in our old app is off for every company/).check();
  await confirm4.click();
  await expect(step4).toContainText("Done");
  await expect(page.getByText("Ferry support's move")).toBeVisible();
  await supportContext.close();

  // Another organisation's customer sees none of it.
  const otherContext = await browser.newContext();
  const other = await otherContext.newPage();
  await signIn(other, DEMO.dan);
  await other.goto("/portal");
  await expect(other.getByRole("table", { name: "Your engagements" })).not.toContainText(engagement.reference);
  const response = await other.goto(`/portal/engagements/${engagement.id}`);
  expect(response?.status()).toBe(404);
  await expect(other.getByText(engagement.reference)).toHaveCount(0);
  const probe = await other.request.get(`/api/engagements/${engagement.id}/windows/x/invite`);
  expect(probe.status()).toBe(404);
  await otherContext.close();
});
