/**
 * What people tripped over in a day of Ferry (issue 29), each as the behaviour that must not come
 * back: the engagement list and Admin → Users fit a laptop and stack into rows on a phone; steps 5
 * and 6 offer no bare Start; while a test runs the header offers no second one; fields speak in
 * sentences; a customer declines proposed windows and suggests times; step 3 is open before the
 * token file; an invitation's row copies its link; a customer asks for an engagement that support
 * accepts or declines; the bulk run's companies open their whole story; and the pages arrive with
 * their data in the server's HTML. Screenshots of each view at 1366×900 and 390×844 when
 * SCREENSHOTS names a folder; axe on each new view.
 */
import type { Locator, Page } from "@playwright/test";
import { expectAccessible } from "./axe";
import { screenshots } from "./screenshots";
import { DEMO, e2eSandbox, expect, invitationLinkFor, openStep, openStep6Part, signIn, test, tokenCsv, uniqueSuffix } from "./fixtures";

const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

const utcText = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "short", year: "numeric" });
/** A time `days` from now at `hour`:00 UTC, typed the way Ferry writes times ("5 Dec 2026, 09:00"). */
function typedTime(days: number, hour: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${utcText.format(d)}, ${String(hour).padStart(2, "0")}:00`;
}

/** Nothing on the page is wider than the window. */
async function fitsTheWindow(page: Page): Promise<void> {
  const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(scroll, "the page scrolls sideways").toBeLessThanOrEqual(inner);
}

/** The table is shown whole in its box: no column hidden past its right edge. */
async function fitsItsBox(table: Locator): Promise<void> {
  const { tableWidth, boxWidth } = await table.evaluate((t) => ({ tableWidth: t.scrollWidth, boxWidth: t.parentElement!.clientWidth }));
  expect(tableWidth, "the table is wider than its box").toBeLessThanOrEqual(boxWidth + 1);
}

test.describe("lists that fit", () => {
  test("the console's engagement list fits a laptop with every column in view, and stacks into rows on a phone", async ({ page }) => {
    await signIn(page, DEMO.sam);
    await page.setViewportSize(LAPTOP);
    await page.goto("/engagements");
    const table = page.getByRole("table", { name: "Engagements" });
    await expect(table).toBeVisible();
    await fitsItsBox(table);
    // The last column's header is in view, not clipped by the box.
    const updated = table.getByRole("columnheader", { name: "Updated" });
    await expect(updated).toBeInViewport({ ratio: 1 });
    await fitsTheWindow(page);
    await expectAccessible(page, "the engagement list at 1366");
    await screenshots(page, null, "console-engagement-list");

    await page.setViewportSize(PHONE);
    await expect(table).toBeHidden();
    const rows = page.getByRole("list", { name: "Engagements" });
    await expect(rows).toBeVisible();
    const first = rows.getByRole("listitem").first();
    // Every column is there as label and value, not only the reference and the organisation.
    for (const label of ["Organisation", "Platform", "Owner", "Status", "Current step", "Whose move", "Updated"]) await expect(first.getByText(label, { exact: true })).toBeVisible();
    await fitsTheWindow(page);
    await expectAccessible(page, "the engagement list at 390");
  });

  test("Admin → Users fits a laptop and stacks into rows on a phone", async ({ page }) => {
    await signIn(page, DEMO.admin);
    await page.setViewportSize(LAPTOP);
    await page.goto("/admin/users");
    const table = page.getByRole("table", { name: "Users" });
    await expect(table).toBeVisible();
    await fitsItsBox(table);
    await expect(table.getByRole("columnheader", { name: "Status" })).toBeInViewport({ ratio: 1 });
    await fitsTheWindow(page);
    await screenshots(page, null, "admin-users");

    await page.setViewportSize(PHONE);
    const rows = page.getByRole("list", { name: "Users" });
    await expect(rows).toBeVisible();
    const carol = rows.getByRole("listitem").filter({ hasText: "carol@acme.test" });
    for (const label of ["Email", "Role", "Organisation", "Last sign-in", "Status"]) await expect(carol.getByText(label, { exact: true })).toBeVisible();
    await expect(carol.getByRole("button", { name: /Deactivate/ })).toBeVisible();
    await fitsTheWindow(page);
    await expectAccessible(page, "Admin → Users at 390");
  });
});

test("a new engagement: step 3 is open before the token file, and the customer confirms the callback URL at once", async ({ page, factory }) => {
  const org = await factory.organization("Callback Early Org");
  const customer = await factory.customerUser(org);
  const engagement = await factory.engagement({ organizationId: org.id });
  await signIn(page, customer);
  await page.goto(`/portal/engagements/${engagement.id}`);

  // Beside the token file, the callback URL is the customer's own to-do already.
  const nextMove = page.getByRole("region", { name: "Your move" });
  await expect(nextMove).toContainText("Submit the OAuth app's details and the token file.");
  const steps = page.getByRole("navigation", { name: "Engagement steps" });
  await expect(steps.getByRole("link", { name: /^Step 3:/ })).not.toContainText("Locked");
  const step3 = await openStep(page, 3);
  await expect(step3).not.toContainText("Waits for step 1");
  await expect(step3.getByRole("button", { name: "Copy callback URL" }).first()).toBeVisible();
  await screenshots(page, step3, "portal-step3-before-file");
  await step3.getByLabel("The callback URL is on our registered QuickBooks Online OAuth app.").check();
  await step3.getByRole("button", { name: "Confirm the callback URL is added" }).click();
  await expect(page.getByText("Confirmed step 3 (Callback URL added).")).toBeVisible();
  await expect(step3).toHaveAttribute("data-state", "done");
  // Step 1 is still where the engagement is: the customer's token file.
  await expect(nextMove).toContainText("Submit the OAuth app's details and the token file.");
  await expect(steps.getByRole("link", { name: /^Step 1:/ })).toContainText("Pending");
  await expectAccessible(page, "step 3 confirmed before the token file");
});

test("the customer declines the proposed windows with a reason and a time that would suit; support proposes it back", async ({ browser, page, factory, supportApi }) => {
  test.setTimeout(90_000);
  const org = await factory.organization("Decline Org");
  const customer = await factory.customerUser(org);
  const engagement = await factory.engagement({ organizationId: org.id });
  await factory.detailsAccepted({ engagement, customer });
  const day = 86_400_000;
  const startsAt = new Date(Math.floor((Date.now() + 3 * day) / 3_600_000) * 3_600_000);
  await supportApi.mutation("windows.propose", { engagementId: engagement.id, windows: [{ startsAt, endsAt: new Date(startsAt.getTime() + 8 * 3_600_000) }] });

  await signIn(page, customer);
  await page.goto(`/portal/engagements/${engagement.id}?step=2`);
  const step2 = page.getByRole("region", { name: /^Step 2: / });
  await step2.getByRole("button", { name: "None of these suit us" }).click();
  const dialog = page.getByRole("dialog", { name: "Decline the proposed windows" });
  // Nothing typed: the reason asks for itself in a sentence; nothing is sent.
  await dialog.getByRole("button", { name: "Decline and send" }).click();
  await expect(dialog.getByLabel("Why do these windows not suit you?")).toHaveAccessibleDescription(/Say why these windows do not suit you/);
  await dialog.getByLabel("Why do these windows not suit you?").fill("Our finance team closes the month that week.");
  await dialog.getByRole("button", { name: "Suggest a time" }).click();
  const start = dialog.getByLabel("Time 1 could start (UTC)");
  const end = dialog.getByLabel("Time 1 could end (UTC)");
  // A time typed wrong gets a sentence saying how to write it.
  await start.fill("next tuesday");
  await dialog.getByRole("button", { name: "Decline and send" }).click();
  await expect(start).toHaveAccessibleDescription(/Write when it could start as a day and a 24-hour time in UTC, such as 28 Nov 2026, 22:00\./);
  await start.fill(typedTime(12, 9));
  await end.fill(typedTime(12, 15));
  // What was understood is said under the field, in Ferry's one format.
  await expect(dialog.getByText(/^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday) \d{1,2} \w{3} \d{4}, 09:00 UTC$/)).toBeVisible();
  await expectAccessible(page, "the decline dialog");
  await screenshots(page, dialog, "portal-decline-dialog");
  await dialog.getByRole("button", { name: "Decline and send" }).click();
  await expect(page.getByText("You declined the proposed windows. Ferry support is told why and proposes new ones.")).toBeVisible();
  await expect(step2.getByRole("status").filter({ hasText: "You declined the proposed window" })).toContainText("Our finance team closes the month that week.");
  await expect(step2.getByRole("button", { name: "None of these suit us" })).toHaveCount(0);
  // Support has the move now (the callback URL, open from the start, is the customer's own to-do beside it).
  await expect(page.getByRole("region", { name: "Also for you" })).toContainText("Ferry support: propose new windows: the customer declined the proposed ones");
  await screenshots(page, step2, "portal-step2-declined");

  // Support reads it in step 2 and proposes the suggested time back.
  const support = await (await browser.newContext()).newPage();
  await signIn(support, DEMO.sam);
  await support.goto(`/engagements/${engagement.id}?step=2`);
  const consoleStep2 = support.getByRole("region", { name: /^Step 2: / });
  const declined = consoleStep2.getByRole("status").filter({ hasText: "declined the proposed window" });
  await expect(declined).toContainText("Our finance team closes the month that week.");
  await expect(declined).toContainText("Times that would suit them (UTC):");
  await expectAccessible(support, "support's step 2 after a decline");
  await screenshots(support, consoleStep2, "console-step2-declined");
  await declined.getByRole("button", { name: "Propose this time" }).click();
  const form = consoleStep2.getByRole("form", { name: "Propose migration windows" });
  await expect(form.getByLabel("Window 1 start (UTC)")).toHaveValue(typedTime(12, 9));
  await expect(form.getByLabel("Window 1 end (UTC)")).toHaveValue(typedTime(12, 15));
  await form.getByRole("button", { name: "Propose to the customer" }).click();
  await expect(support.getByText(/Proposed the window; the customer is mailed to accept one\./)).toBeVisible();

  await page.reload();
  await expect(page.getByRole("region", { name: "Your move" })).toContainText("Accept one of the proposed migration windows");
  await expect(step2.getByRole("button", { name: /^Accept this window/ })).toBeVisible();
  await support.context().close();
});

test("the window form and the hypercare days speak in sentences", async ({ page, factory }) => {
  const org = await factory.organization("Sentences Org");
  const customer = await factory.customerUser(org);
  const engagement = await factory.engagement({ organizationId: org.id });
  await factory.detailsAccepted({ engagement, customer });
  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${engagement.id}?step=2`);
  const form = page.getByRole("form", { name: "Propose migration windows" });
  // The suggestion is written as Ferry writes times: "28 Nov 2026, 22:00", never "11/28/2026, 10:00 PM".
  await expect(form.getByLabel("Window 1 start (UTC)")).toHaveValue(/^\d{1,2} \w{3} \d{4}, 22:00$/);
  await form.getByLabel("Window 1 start (UTC)").fill("abc");
  await form.getByRole("button", { name: "Propose to the customer" }).click();
  await expect(form.getByLabel("Window 1 start (UTC)")).toHaveAccessibleDescription(/^Write the window's start as a day and a 24-hour time in UTC, such as 28 Nov 2026, 22:00\./);
  await expect(form).not.toContainText("Invalid input");
  await screenshots(page, form, "console-window-form-error");
});

test("steps 5 and 6 offer no bare Start; while a test runs the header offers no second one; the bulk run's companies open their whole story", async ({ browser, page, factory, supportApi }) => {
  test.setTimeout(240_000);
  const sandbox = e2eSandbox();
  const org = await factory.organization("Story Org");
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    companies: [
      { name: "Alder Accounts", externalRef: "ST-01", records: 2 },
      { name: "Birch Bakery", externalRef: "ST-02", records: 3, rotatedAfterExport: true },
      { name: "Cedar Cycles", externalRef: "ST-03", records: 3, rotatedAfterExport: true },
    ],
    syncs: "held",
  });
  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${eng.id}`);
  const header = page.getByRole("region", { name: "Your move" });
  await expect(header.getByRole("link", { name: "Run the single-company test" })).toBeVisible();
  const step5 = page.getByRole("region", { name: /^Step 5: / });
  await expect(step5.getByRole("button", { name: /^Start step 5$/ })).toHaveCount(0);
  const step6 = await openStep(page, 6);
  await expect(step6.getByRole("button", { name: /^Start step 6$/ })).toHaveCount(0);
  await openStep(page, 5);

  // The test runs (its syncs held): the panel's buttons are disabled and the header follows it instead.
  await step5.getByRole("button", { name: "Run the single-company test" }).click();
  await expect(step5.getByRole("button", { name: "Run the single-company test" })).toBeDisabled();
  await expect(header.getByRole("link", { name: "Run the single-company test" })).toHaveCount(0);
  await expect(header).toContainText("Follow the single-company test in step 5: it is");
  await expect(header.getByRole("link", { name: "Follow the test" })).toBeVisible();
  await expect(step5.getByRole("button", { name: /^Start step 5$/ })).toHaveCount(0);
  await screenshots(page, header, "console-header-during-test");
  await sandbox.control.setSyncs(eng.sandboxClientId, "instant");
  await sandbox.control.releaseSyncs(eng.sandboxClientId);
  await expect(page.getByText(/The single-company test on .+ passed: step 5 is done\./)).toBeVisible({ timeout: 45_000 });
  await expect(header.getByRole("link", { name: "Go to the bulk migration" })).toBeVisible();

  // The bulk run: the two rotated companies end with their end customers.
  await supportApi.mutation("bulk.start", { engagementId: eng.id, reason: "The customer asked to run before the agreed window." });
  await expect.poll(async () => (await supportApi.query<{ run: { status: string } | null }>("bulk.overview", { engagementId: eng.id })).run?.status, { timeout: 60_000 }).toBe("completed");
  await page.goto(`/engagements/${eng.id}?step=6&part=run`);
  const bulk = page.getByRole("region", { name: /^Step 6: / });
  const table = bulk.getByRole("table", { name: "Companies of the bulk migration" });
  await expect(table.getByRole("columnheader", { name: "Calls" })).toBeVisible();
  const pilot = table.getByRole("row").filter({ hasText: "Alder Accounts" });
  await expect(pilot).toContainText(/\d+ calls/);
  const birch = table.getByRole("row").filter({ hasText: "Birch Bakery" });
  await expect(birch).toContainText("Reconnection pending");
  // "Why" says why for a company waiting for its end customer (not "—").
  await expect(birch).toContainText("The platform refused the migrated tokens");
  await birch.getByRole("button", { name: "Details of Birch Bakery" }).click();
  const details = page.getByRole("dialog", { name: "Birch Bakery" });
  await expect(details.getByRole("heading", { name: "Last error" })).toBeVisible();
  // The call that failed, as the service answered it.
  await expect(details).toContainText("authorizeConnection");
  await expect(details.getByRole("heading", { name: "Why it ended there" })).toBeVisible();
  await expect(details.getByRole("heading", { name: "The platform's refusal" })).toBeVisible();
  await expect(details).toContainText("replaced by newer tokens");
  await expect(details.getByRole("heading", { name: "What to do" })).toBeVisible();
  await expect(details).toContainText("reconnect link");
  // Its timeline: each call in order with the service's answer, the refusal in the platform's words.
  const timeline = details.getByRole("list", { name: "Timeline of Birch Bakery, oldest first" });
  await expect(timeline.getByRole("listitem").filter({ hasText: "Created the company on the service" })).toContainText("POST /companies");
  await expect(timeline.getByRole("listitem").filter({ hasText: "Gave the connection the company's tokens" })).toContainText(/Connection (Deauthorized|Unlinked): /);
  await expect(timeline.getByRole("button", { name: /^Copy correlationId of Birch Bakery's call/ }).first()).toBeVisible();
  await expectAccessible(page, "a company's details in the bulk run");
  await screenshots(page, details, "console-bulk-item-details");
  await details.getByRole("button", { name: "Close dialog" }).click();

  // The reconnections say which company each link is for, by the end of the link.
  await openStep6Part(page, "Reconnections");
  const pending = bulk.getByRole("table", { name: "Companies waiting for their end customers" });
  const birchLink = pending.getByRole("row").filter({ hasText: "Birch Bakery" });
  await expect(birchLink.getByRole("button", { name: "Copy reconnect link of Birch Bakery" })).toBeVisible();
  // Shown by its end (the whole link is read out and copied): not the host every link starts with.
  await expect(birchLink.locator("code [aria-hidden=true]")).toHaveText(/^…\/reconnect\/[0-9a-f]{8}…[A-Za-z0-9_-]{4}$/);
  await expect(birchLink).toContainText("Not yet");
  // Its timeline is a click away from the reconnections too.
  await birchLink.getByRole("button", { name: "Details of Birch Bakery" }).click();
  const waitingDetails = page.getByRole("dialog", { name: "Birch Bakery" });
  await expect(waitingDetails.getByRole("list", { name: "Timeline of Birch Bakery, oldest first" }).getByRole("listitem").filter({ hasText: "Gave the connection the company's tokens" })).toBeVisible();
  await waitingDetails.getByRole("button", { name: "Close dialog" }).click();
  // Hypercare days typed wrong: a sentence, not zod's words.
  const days = bulk.getByRole("textbox", { name: "Hypercare days" });
  await days.fill("abc");
  await bulk.getByRole("button", { name: "Save days" }).click();
  await expect(days).toHaveAccessibleDescription(/^Enter the number of days as a whole number from 1 to 90, such as 7\./);
  await screenshots(page, bulk, "console-reconnections");

  // The customer sends fresh tokens for one of the two: the next move says that one is under review.
  const customer = await (await browser.newContext()).newPage();
  await signIn(customer, eng.customer);
  const fresh = (await sandbox.control.issueCredentials("qhyg", eng.tenants[1]!.tenantId, "valid")).credentials;
  const sent = await customer.request.post(`/api/engagements/${eng.id}/supplementary-file`, {
    multipart: { file: { name: "birch.csv", mimeType: "text/csv", buffer: Buffer.from(tokenCsv([{ name: "Birch Bakery", externalRef: "ST-02", credentials: fresh }])) } },
  });
  expect(sent.ok()).toBeTruthy();
  await customer.goto(`/portal/engagements/${eng.id}`);
  const move = customer.getByRole("region", { name: /Your move|Also for you/ });
  await expect(move).toContainText("Fresh tokens for 1 company are with Ferry support for review. One other company was not migrated");
  await screenshots(customer, move, "portal-next-move-fresh-tokens-in-review");
  await customer.context().close();
});

test("an invitation's row shows its link with a copy button", async ({ page, adminApi }) => {
  const email = `copy-${uniqueSuffix()}@e2e.test`;
  await adminApi.mutation("invitations.create", { email, name: "Copy Person", role: "support" });
  await signIn(page, DEMO.admin);
  await page.goto("/admin/invitations");
  const row = page.getByRole("table", { name: "Invitations" }).getByRole("row").filter({ hasText: email });
  await row.getByRole("button", { name: `Show link of the invitation for ${email}` }).click();
  const copy = row.getByRole("button", { name: `Copy invitation link for ${email}` });
  await expect(copy).toBeVisible();
  await expect(copy).toHaveAttribute("data-copy-value", await invitationLinkFor(adminApi, email));
  await expectAccessible(page, "the invitations with a link shown");
  await screenshots(page, null, "admin-invitation-link");
});

test("a new customer asks for an engagement; support accepts it into a real one, and declines another with a reason", async ({ browser, page, factory }) => {
  test.setTimeout(90_000);
  const org = await factory.organization("Asking Org");
  const customer = await factory.customerUser(org);
  await signIn(page, customer);
  await page.goto("/portal");
  await expect(page.getByText("No engagements yet")).toBeVisible();
  const form = page.getByRole("form", { name: "Ask for an engagement" });
  await expectAccessible(page, "a new customer's empty portal");
  await screenshots(page, null, "portal-empty-ask");

  // Bad input: each field says what to write; nothing is sent.
  await form.getByLabel("Roughly how many companies").fill("lots");
  await form.getByLabel("First day that would suit").fill("soon");
  await form.getByRole("button", { name: "Send the request" }).click();
  await expect(form.getByLabel("Platform")).toHaveAccessibleDescription(/Choose the platform your companies are on\./);
  await expect(form.getByLabel("Roughly how many companies")).toHaveAccessibleDescription(/Say roughly how many companies, as a whole number such as 25\./);
  await expect(form.getByLabel("First day that would suit")).toHaveAccessibleDescription(/Write the first day as a date, such as 1 Dec 2026\./);
  // A day in the past is refused by the server, on its field.
  await form.getByLabel("Platform").selectOption({ label: "QuickBooks Online" });
  await form.getByLabel("Roughly how many companies").fill("40");
  await form.getByLabel("First day that would suit").fill(utcText.format(new Date(Date.now() - 3 * 86_400_000)));
  await form.getByRole("button", { name: "Send the request" }).click();
  await expect(form.getByLabel("First day that would suit")).toHaveAccessibleDescription(/The first day that would suit must be today or later\./);
  await form.getByLabel("First day that would suit").fill(utcText.format(new Date(Date.now() + 14 * 86_400_000)));
  await form.getByLabel("Anything support should know").fill("Before our year end, please.");
  await form.getByRole("button", { name: "Send the request" }).click();
  await expect(page.getByText("Your request is with Ferry support. You are mailed when they answer.")).toBeVisible();
  const mine = page.getByRole("list", { name: "Your requests for engagements" });
  await expect(mine.getByRole("listitem").filter({ hasText: "QuickBooks Online" })).toContainText("With Ferry support");
  await screenshots(page, null, "portal-request-sent");

  // A second ask, for Wave, which support will decline.
  await form.getByLabel("Platform").selectOption({ label: "Wave" });
  await form.getByLabel("Roughly how many companies").fill("3");
  await form.getByLabel("First day that would suit").fill(utcText.format(new Date(Date.now() + 20 * 86_400_000)));
  await form.getByRole("button", { name: "Send the request" }).click();
  await expect(mine.getByRole("listitem")).toHaveCount(2);

  // Support sees both in the console, accepts the first into an engagement and declines the second.
  const support = await (await browser.newContext()).newPage();
  await signIn(support, DEMO.sam);
  await support.goto("/engagements");
  const requests = support.getByRole("region", { name: "Requests from customers" });
  const qbo = requests.getByRole("row").filter({ hasText: org.name }).filter({ hasText: "QuickBooks Online" });
  await expect(qbo).toContainText("about 40 companies");
  await expect(qbo).toContainText("Before our year end, please.");
  await expectAccessible(support, "the requests in the console");
  await screenshots(support, requests, "console-requests");
  const wave = requests.getByRole("row").filter({ hasText: org.name }).filter({ hasText: "Wave" });
  await wave.getByRole("button", { name: /^Decline/ }).click();
  const decline = support.getByRole("dialog", { name: `Decline ${org.name}'s request` });
  await decline.getByRole("button", { name: "Decline the request" }).click();
  await expect(decline.getByLabel(/Why\?/)).toHaveAccessibleDescription(/Say why, so the customer knows what to do next\./);
  await decline.getByLabel(/Why\?/).fill("Your Wave companies are on the new API; we migrate them next quarter.");
  await decline.getByRole("button", { name: "Decline the request" }).click();
  await expect(support.getByText(`Declined ${org.name}'s request; they are mailed why.`)).toBeVisible();
  await qbo.getByRole("button", { name: /^Accept/ }).click();
  const accept = support.getByRole("dialog", { name: `Accept ${org.name}'s request` });
  await accept.getByLabel("Owner").selectOption({ label: "Priya Support" });
  await accept.getByRole("button", { name: "Open the engagement" }).click();
  await support.waitForURL(/\/engagements\/[0-9a-f-]{36}$/);
  await expect(support.getByText(`${org.name} · QuickBooks Online`)).toBeVisible();
  const reference = (await support.getByRole("heading", { level: 1 }).textContent())!.trim();
  await support.context().close();

  // The customer sees the engagement and both answers.
  await page.reload();
  await expect(page.getByRole("table", { name: "Your engagements" })).toContainText(reference);
  await expect(mine.getByRole("listitem").filter({ hasText: "QuickBooks Online" })).toContainText(`Accepted by Sam Support: ${reference}`);
  await expect(mine.getByRole("listitem").filter({ hasText: "Wave" })).toContainText("Declined by Sam Support: Your Wave companies are on the new API");
  await expectAccessible(page, "the portal with answered requests");
  await screenshots(page, null, "portal-requests-answered");
});

test("the pages arrive with their data: the list, the engagement with its step, and the portal's next move are in the server's HTML", async ({ page, factory }) => {
  const org = await factory.organization("First Paint Org");
  const eng = await factory.readyForSingleCompanyTest({ organization: org, companies: [{ name: "Dogwood Dairy", records: 2 }], syncs: "instant" });
  await signIn(page, DEMO.sam);
  const text = async (path: string) => (await (await page.request.get(path)).text()).replace(/<script[\s\S]*?<\/script>/g, "").replace(/<[^>]+>/g, " ");

  const list = await text(`/engagements?q=${encodeURIComponent(eng.reference)}`);
  expect(list).toContain(eng.reference);
  expect(list).toContain(org.name);

  // The engagement opens at step 5: its header, next move and the step's own data (the company picker's count).
  const console = await text(`/engagements/${eng.id}`);
  expect(console).toContain(eng.reference);
  expect(console).toContain("Run the single-company test");
  expect(console).toContain("All 1 company listed, smallest first.");
  expect(console).not.toContain("Loading the");

  await page.context().clearCookies();
  await signIn(page, eng.customer);
  const portal = await text(`/portal/engagements/${eng.id}?step=2`);
  expect(portal).toContain(eng.reference);
  expect(portal).toContain("Waiting on Ferry support");
  expect(portal).toContain("Agreed window");
  const home = await text("/portal");
  expect(home).toContain(eng.reference);
});
