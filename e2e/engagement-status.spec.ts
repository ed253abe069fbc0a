import type { Page } from "@playwright/test";
import { DEMO, expect, openActivity, openStep, signIn, test } from "./fixtures";

/** The newest entry of the engagement's activity, seen there; then back to the step that was shown. */
async function expectNewestActivity(page: Page, text: string): Promise<void> {
  const list = await openActivity(page);
  await expect(list.getByRole("listitem").first()).toContainText(text);
  await page.goBack();
  await expect(page.getByRole("list", { name: "Audit events, newest first" })).toHaveCount(0);
}

test("support puts an engagement on hold, resumes it, hands it over and cancels it with a reason", async ({ page, factory }) => {
  const org = await factory.organization("Status Org");
  const engagement = await factory.engagement({ organizationId: org.id, platformKey: "qhyg" });
  // Step 1 done, so step 3 offers its Complete while the engagement is active.
  await factory.detailsAccepted({ engagement, customer: await factory.customerUser(org) });
  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${engagement.id}`);
  const header = page.locator("header").filter({ has: page.getByRole("heading", { level: 1, name: engagement.reference }) });
  const step3 = await openStep(page, 3);
  await expect(step3.getByRole("button", { name: "Complete step 3" })).toBeVisible();

  // On hold: no step offers an action (the header says why).
  await page.getByRole("button", { name: "Put on hold" }).click();
  let dialog = page.getByRole("dialog", { name: `Put on hold: ${engagement.reference}` });
  // A reason from the list is needed.
  await dialog.getByRole("button", { name: "Put on hold" }).click();
  await expect(dialog.getByLabel(/Reason/)).toHaveAccessibleDescription(/Choose a reason/);
  await dialog.getByLabel(/Reason/).selectOption({ label: "Customer's IT or app changes" });
  await dialog.getByLabel("Details").fill("Customer is re-registering its OAuth app.");
  await dialog.getByRole("button", { name: "Put on hold" }).click();
  await expect(dialog).toBeHidden();
  await expect(header.getByText("On hold", { exact: true })).toBeVisible();
  // Every step, one at a time: none offers Start, Complete or Reopen.
  for (let n = 1; n <= 6; n++) {
    await openStep(page, n);
    await expect(page.getByRole("button", { name: /^(Start|Complete|Reopen) step \d/ })).toHaveCount(0);
  }
  await expectNewestActivity(page, "Changed status from active to on hold: Customer's IT or app changes — Customer is re-registering its OAuth app");
  await openStep(page, 3);

  // Resume.
  await page.getByRole("button", { name: "Resume" }).click();
  dialog = page.getByRole("dialog", { name: `Resume: ${engagement.reference}` });
  await dialog.getByRole("button", { name: "Resume" }).click();
  await expect(dialog).toBeHidden();
  await expect(header.getByText("Active", { exact: true })).toBeVisible();
  // Active again: step 3 offers its Complete again.
  await expect(step3.getByRole("button", { name: "Complete step 3" })).toBeVisible();

  // Hand over to Priya.
  await page.getByRole("button", { name: "Change owner (now Sam Support)" }).click();
  dialog = page.getByRole("dialog", { name: "Change owner" });
  await dialog.getByLabel("New owner").selectOption({ label: "Priya Support" });
  await dialog.getByRole("button", { name: "Save owner" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("button", { name: "Change owner (now Priya Support)" })).toBeVisible();
  await expectNewestActivity(page, "Handed the engagement from Sam Support to Priya Support");

  // Cancelling needs a reason, and is final.
  await page.getByRole("button", { name: "Cancel engagement" }).click();
  dialog = page.getByRole("dialog", { name: `Cancel engagement: ${engagement.reference}` });
  await dialog.getByLabel(/Reason/).selectOption({ label: "Other" });
  await dialog.getByRole("button", { name: "Cancel engagement" }).click();
  // "Other" needs words: the server's refusal lands on Details.
  await expect(dialog.getByLabel("Details")).toHaveAccessibleDescription(/Say in a few words why/);
  await expect(dialog.getByLabel("Details")).toBeFocused();
  await dialog.getByLabel("Details").fill("Customer chose to reconnect instead.");
  await dialog.getByRole("button", { name: "Cancel engagement" }).click();
  await expect(dialog).toBeHidden();
  await expect(header.getByText("Cancelled", { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel engagement" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Put on hold" })).toHaveCount(0);
  await expectNewestActivity(page, "Changed status from active to cancelled: Customer chose to reconnect instead");
});

test("a dialog closes with Escape and gives focus back to the button that opened it", async ({ page, factory }) => {
  const org = await factory.organization("Keyboard Org");
  const engagement = await factory.engagement({ organizationId: org.id, platformKey: "rwuv" });
  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${engagement.id}`);
  const hold = page.getByRole("button", { name: "Put on hold" });
  await expect(hold).toBeEnabled(); // buttons come alive once the page has hydrated
  await hold.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: `Put on hold: ${engagement.reference}` });
  await expect(dialog.getByLabel("Reason")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(hold).toBeFocused();
});
