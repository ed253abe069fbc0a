import { DEMO, expect, openActivity, openStep, signIn, test } from "./fixtures";
import { screenshots } from "./screenshots";

test("support creates an engagement, steps 1 and 2 move only through their flows, staff confirm 3 and 4 with a note, step 5 waits for its test, and a reopen shows on the step and the timeline", async ({
  page,
  factory,
}) => {
  test.setTimeout(90_000);
  const org = await factory.organization("Checklist Org");
  const customer = await factory.customerUser(org);
  await signIn(page, DEMO.sam);

  // Create the engagement through the form.
  await page.goto("/engagements/new");
  await page.getByLabel("Customer organisation").selectOption({ label: org.name });
  await page.getByLabel("Platform").selectOption({ label: "QuickBooks Online" });
  await expect(page.getByLabel("Owner")).toHaveValue(/.+/);
  await expect(page.getByLabel("Owner").locator("option:checked")).toHaveText(/Sam Support \(me\)/);
  await page.getByRole("button", { name: "Create engagement" }).click();
  await page.waitForURL(/\/engagements\/(?!new)[^/]+$/);
  await expect(page.getByText(`${org.name} · QuickBooks Online`)).toBeVisible();
  const reference = (await page.getByRole("heading", { level: 1 }).textContent())?.trim();
  expect(reference).toMatch(/^FER-\d+$/);
  const engagement = { id: page.url().split("/").pop()!, reference: reference! };

  const step = (n: number, title: string) => page.getByRole("region", { name: `Step ${n}: ${title}` });
  const step1 = step(1, "Details gathered");
  const step2 = step(2, "Time agreed");
  const step3 = step(3, "Callback URL added");
  const step4 = step(4, "Syncing disabled");
  const step5 = step(5, "Single-company test");

  // A new engagement opens at step 1. Steps 1 and 2 have no Complete button: their flows complete them.
  await expect(step1.getByText("Nothing submitted yet")).toBeVisible();
  await expect(step1.getByRole("button", { name: "Complete step 1" })).toHaveCount(0);
  await openStep(page, 5);
  // A step waiting on others offers no button the checklist would refuse, and names what it waits for.
  await expect(step5.getByRole("button", { name: /Start step 5|Complete step 5|Reopen step 5/ })).toHaveCount(0);
  await expect(step5.getByText("Waits for step 1 (Details gathered), step 2 (Time agreed), step 3 (Callback URL added) and step 4 (Syncing disabled).")).toBeVisible();
  await expect(page.getByText("Customer's move")).toBeVisible();

  // The customer submits and support accepts; support proposes a window and the customer accepts it.
  await factory.detailsAccepted({ engagement, customer, window: true });
  await page.reload();
  await openStep(page, 1);
  await expect(step1).toContainText("Done");
  await expect(step1).toContainText(/Token file of 2 companies \(0 warnings\), submitted by Customer/);
  await openStep(page, 2);
  await expect(step2).toContainText("Done");
  await expect(step2.getByRole("button", { name: "Complete step 2" })).toHaveCount(0);

  // Step 3 is the customer's: completing it on their behalf needs a note, and records the evidence.
  await openStep(page, 3);
  await step3.getByRole("button", { name: "Complete step 3" }).click();
  let dialog = page.getByRole("dialog", { name: "Complete step 3: Callback URL added" });
  await dialog.getByRole("button", { name: "Complete step 3" }).click();
  await expect(dialog.getByText(/Say how the customer confirmed step 3/)).toBeVisible();
  await expect(dialog.getByLabel(/How did the customer confirm/)).toHaveAttribute("aria-invalid", "true");
  await dialog.getByLabel(/How did the customer confirm/).fill("Confirmed on a call.");
  await dialog.getByRole("button", { name: "Complete step 3" }).click();
  await expect(dialog).toBeHidden();
  await expect(step3).toContainText("Done");
  await expect(step3).toContainText("recorded on the customer's behalf");
  await expect(step3).toContainText("Callback URL https://quickbooksonline.codat.io/oauth2/callback");

  // Step 5 is still gated, now on step 4 only, and names only that one.
  await openStep(page, 5);
  await expect(step5.getByText("Waits for step 4 (Syncing disabled).")).toBeVisible();
  await screenshots(page, step5, "console-step5-waits");
  await openStep(page, 4);
  await step4.getByRole("button", { name: "Complete step 4" }).click();
  dialog = page.getByRole("dialog", { name: "Complete step 4: Syncing disabled" });
  await dialog.getByLabel(/How did the customer confirm/).fill("Customer confirmed by email.");
  await dialog.getByRole("button", { name: "Complete step 4" }).click();
  await expect(dialog).toBeHidden();
  await expect(step4).toContainText(/refresh tokens rotate/);
  // Its gates are done, but step 5 completes only when a single-company test passes
  // (e2e/single-company-test.spec.ts): no Complete button, its panel runs the test.
  await openStep(page, 5);
  await expect(step5.getByRole("button", { name: "Complete step 5" })).toHaveCount(0);
  await expect(step5.getByRole("button", { name: "Run the single-company test" })).toBeEnabled();
  await expect(page.getByRole("main").getByText("Support's move")).toBeVisible();
  // Its test starts it (its flow): no bare Start beside the test's own button.
  await expect(step5.getByRole("button", { name: /Start step 5|Complete step 5|Reopen step 5/ })).toHaveCount(0);

  // Reopen step 3: a reason is required; step 5 has not started, so the dialog says only step 3 changes.
  await openStep(page, 3);
  await step3.getByRole("button", { name: "Reopen step 3" }).click();
  dialog = page.getByRole("dialog", { name: "Reopen step 3: Callback URL added" });
  await expect(dialog.getByText("No step that depends on this one has started, so only this step changes.")).toBeVisible();
  await dialog.getByRole("button", { name: "Reopen step 3" }).click();
  await expect(dialog.getByText("Give a reason for reopening the step.")).toBeVisible();
  await dialog.getByLabel(/Reason/).fill("The customer removed the callback URL from its app.");
  await dialog.getByRole("button", { name: "Reopen step 3" }).click();
  await expect(dialog).toBeHidden();

  // Step 3 is pending again, saying why; step 5 waits for it again.
  await expect(page.getByText("Reopened step 3 (Callback URL added).", { exact: true })).toBeVisible();
  await expect(step3).toContainText("Pending");
  await expect(step3).toContainText("The customer removed the callback URL from its app.");
  await openStep(page, 5);
  await expect(step5.getByText("Waits for step 3 (Callback URL added).")).toBeVisible();
  await expect(step5.getByRole("button", { name: "Run the single-company test" })).toBeDisabled();
  await expect(page.getByText("Customer's move")).toBeVisible();

  // The audit timeline, newest first, in the activity; the back button returns to step 5.
  const entries = (await openActivity(page)).getByRole("listitem");
  await expect(entries.first()).toContainText("Reopened step 3 (Callback URL added): The customer removed the callback URL from its app");
  await expect(entries.first()).toContainText("Sam Support");
  await expect(entries.nth(1)).toContainText("Completed step 4 (Syncing disabled): Customer confirmed by email");
  await expect(page.getByRole("list", { name: "Audit events, newest first" })).toContainText("Accepted the token file companies.csv (2 companies, 0 warnings)");
  await expect(entries.last()).toContainText(`Created the engagement for ${org.name} on QuickBooks Online`);
  // The people's moves alone, then every event on a line of its own (staff only).
  await page.getByLabel("Show").selectOption("people");
  await expect(entries.first()).toContainText("Reopened step 3 (Callback URL added)");
  await expect(entries.last()).toContainText(`Created the engagement for ${org.name}`);
  await page.getByLabel("Every event on its own line").check();
  await expect(entries.first()).toContainText("Reopened step 3 (Callback URL added)");
  await page.goBack();
  await expect(step5).toContainText("Waits for step 3 (Callback URL added).");
  await expect(page).toHaveURL(/\?step=5$/);

  // And the list finds it by reference, back at step 3, the customer's move.
  await page.getByRole("link", { name: "Engagements", exact: true }).click();
  await page.getByRole("searchbox", { name: "Search", exact: true }).fill(reference!);
  await expect(page).toHaveURL(new RegExp(`q=${reference}`));
  const row = page.getByRole("row").filter({ hasText: reference! });
  await expect(row).toContainText(org.name);
  await expect(row).toContainText("Step 3");
  await expect(row).toContainText("Customer's move");
  await expect(page.getByRole("table", { name: "Engagements" }).getByRole("row")).toHaveCount(2);
});
