import { DEMO, expect, signIn, test, uniqueSuffix } from "./fixtures";

test("an admin adds a real service target whose key is only ever shown masked, and support points an engagement at it", async ({
  page,
  browser,
  factory,
}) => {
  const name = `Production ${uniqueSuffix()}`;
  const apiKey = `live-key-${uniqueSuffix()}-WXYZ`;

  await signIn(page, DEMO.admin);
  await page.goto("/admin/targets");
  const form = page.getByRole("form", { name: "Add a service target" });
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(form.getByText("Name the target, e.g. Production")).toBeVisible();

  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Base URL").fill("ftp://not-http");
  await form.getByLabel("API key").fill(apiKey);
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(form.getByText("The base URL must be http(s).")).toBeVisible();

  await form.getByLabel("Base URL").fill("https://api.codat.io");
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(page.getByText(`Added ${name}.`)).toBeVisible();
  const row = page.getByRole("table", { name: "Service targets" }).getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("••••WXYZ");
  await expect(page.locator("body")).not.toContainText(apiKey);
  await expect(form.getByLabel("API key")).toHaveValue("");

  const org = await factory.organization("Target Org");
  const engagement = await factory.engagement({ organizationId: org.id });
  const support = await browser.newContext();
  const supportPage = await support.newPage();
  await signIn(supportPage, DEMO.sam);
  await supportPage.goto(`/engagements/${engagement.id}`);
  await supportPage.getByRole("button", { name: /Change service target/ }).click();
  const dialog = supportPage.getByRole("dialog", { name: "Change service target" });
  await dialog.getByLabel("Service target").selectOption({ label: `${name} — https://api.codat.io (key ••••WXYZ)` });
  await dialog.getByRole("button", { name: "Save target" }).click();
  await expect(dialog).toBeHidden();
  await expect(supportPage.getByRole("region", { name: "Engagement details" })).toContainText(`${name} (service)`);
  const timeline = supportPage.getByRole("list", { name: "Audit events, newest first" }).getByRole("listitem");
  await expect(timeline.first()).toContainText(`Pointed the engagement at ${name} (https://api.codat.io)`);
  await support.close();
});
