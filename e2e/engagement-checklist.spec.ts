import { DEMO, expect, signIn, test } from "./fixtures";

test("support creates an engagement, completes steps in order, is stopped by a gate, reopens a step and sees the cascade and the timeline", async ({
  page,
  factory,
}) => {
  const org = await factory.organization("Checklist Org");
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

  const step = (n: number, title: string) => page.getByRole("region", { name: `Step ${n}: ${title}` });
  const step1 = step(1, "Details gathered");
  const step2 = step(2, "Time agreed");
  const step3 = step(3, "Callback URL added");
  const step4 = step(4, "Syncing disabled");
  const step5 = step(5, "Single-company test");

  // A gated step shows its Complete button, disabled, with the reason from the server.
  await expect(step5.getByRole("button", { name: "Complete step 5" })).toBeDisabled();
  await expect(step5.getByText(/cannot be completed before step 1 \(Details gathered\)/)).toBeVisible();
  await expect(step2).toContainText("Locked");

  // Step 1 (support accepts the details).
  await step1.getByRole("button", { name: "Complete step 1" }).click();
  let dialog = page.getByRole("dialog", { name: "Complete step 1: Details gathered" });
  await dialog.getByLabel("Evidence note").fill("Token file validated, no blocking errors.");
  await dialog.getByRole("button", { name: "Complete step 1" }).click();
  await expect(dialog).toBeHidden();
  await expect(step1).toContainText("Done");
  await expect(step1).toContainText("Sam Support");
  await expect(step1).toContainText("Token file validated, no blocking errors.");

  // Step 2 is the customer's too: completing it on their behalf needs a note.
  await step2.getByRole("button", { name: "Complete step 2" }).click();
  dialog = page.getByRole("dialog", { name: "Complete step 2: Time agreed" });
  await dialog.getByRole("button", { name: "Complete step 2" }).click();
  await expect(dialog.getByText(/Say how the customer confirmed step 2/)).toBeVisible();
  await expect(dialog.getByLabel(/How did the customer confirm/)).toHaveAttribute("aria-invalid", "true");
  await dialog.getByLabel(/How did the customer confirm/).fill("Accepted Saturday 02:00 UTC by email.");
  await dialog.getByRole("button", { name: "Complete step 2" }).click();
  await expect(dialog).toBeHidden();
  await expect(step2).toContainText("Done");
  await expect(step2).toContainText("recorded on the customer's behalf");

  // Step 5 is still gated, now on steps 3 and 4 only.
  await expect(step5.getByRole("button", { name: "Complete step 5" })).toBeDisabled();
  await expect(step5.getByText(/cannot be completed before step 3 \(Callback URL added\), step 4 \(Syncing disabled\) are done/)).toBeVisible();

  for (const [locator, n, title] of [
    [step3, 3, "Callback URL added"],
    [step4, 4, "Syncing disabled"],
  ] as const) {
    await locator.getByRole("button", { name: `Complete step ${n}` }).click();
    dialog = page.getByRole("dialog", { name: `Complete step ${n}: ${title}` });
    await dialog.getByLabel(/How did the customer confirm/).fill(`Customer confirmed step ${n} on a call.`);
    await dialog.getByRole("button", { name: `Complete step ${n}` }).click();
    await expect(dialog).toBeHidden();
    await expect(locator).toContainText("Done");
  }
  // Its gates are done, but step 5 completes only when a single-company test passes (e2e/single-company-test.spec.ts).
  await expect(step5.getByRole("button", { name: "Complete step 5" })).toBeDisabled();
  await expect(step5.getByText(/Step 5 completes when a single-company test passes/)).toBeVisible();

  // Reopen step 1: a reason is required, and the dialog names the steps that will reopen with it.
  await step1.getByRole("button", { name: "Reopen step 1" }).click();
  dialog = page.getByRole("dialog", { name: "Reopen step 1: Details gathered" });
  await expect(dialog.getByText("Dependent steps reopen too")).toBeVisible();
  for (const name of ["step 2 (Time agreed)", "step 3 (Callback URL added)", "step 4 (Syncing disabled)"]) {
    await expect(dialog.getByRole("listitem").filter({ hasText: name })).toBeVisible();
  }
  await dialog.getByRole("button", { name: "Reopen step 1" }).click();
  await expect(dialog.getByText("Give a reason for reopening the step.")).toBeVisible();
  await dialog.getByLabel(/Reason/).fill("The token file was for the wrong OAuth app.");
  await dialog.getByRole("button", { name: "Reopen step 1" }).click();
  await expect(dialog).toBeHidden();

  // The cascade: step 1 is pending again and 2–4 are locked behind it, each saying why.
  await expect(page.getByText(/Reopened step 1 \(Details gathered\)\. Also reopened step 2 \(Time agreed\), step 3 \(Callback URL added\), step 4 \(Syncing disabled\)\./)).toBeVisible();
  await expect(step1).toContainText("Pending");
  await expect(step1).toContainText("The token file was for the wrong OAuth app.");
  for (const s of [step2, step3, step4]) {
    await expect(s).toContainText("Locked");
    await expect(s).toContainText("Step 1 was reopened: The token file was for the wrong OAuth app.");
  }
  await expect(step5.getByRole("button", { name: "Complete step 5" })).toBeDisabled();

  // The audit timeline, newest first.
  const timeline = page.getByRole("list", { name: "Audit events, newest first" });
  const entries = timeline.getByRole("listitem");
  await expect(entries.first()).toContainText(
    "Reopened step 1 (Details gathered): The token file was for the wrong OAuth app; also reopened step 2 (Time agreed), step 3 (Callback URL added), step 4 (Syncing disabled)",
  );
  await expect(entries.first()).toContainText("Sam Support");
  await expect(entries.nth(1)).toContainText("Completed step 4 (Syncing disabled)");
  await expect(entries.last()).toContainText(`Created the engagement for ${org.name} on QuickBooks Online`);
  await expect(entries).toHaveCount(6);

  // And the list finds it by reference, back at step 1.
  await page.getByRole("link", { name: "Engagements", exact: true }).click();
  await page.getByRole("searchbox", { name: "Search" }).fill(reference!);
  await expect(page).toHaveURL(new RegExp(`q=${reference}`));
  const row = page.getByRole("row").filter({ hasText: reference! });
  await expect(row).toContainText(org.name);
  await expect(row).toContainText("Step 1");
  await expect(page.getByRole("table", { name: "Engagements" }).getByRole("row")).toHaveCount(2);
});
