import { DEMO, expect, signIn, test } from "./fixtures";

test("an admin deactivates a user, who can then no longer sign in, and reactivates them", async ({ page, browser, factory }) => {
  const org = await factory.organization("Deactivation Org");
  const user = await factory.customerUser(org);

  await signIn(page, DEMO.admin);
  await page.goto("/admin/users");
  const row = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: user.email });
  await row.getByRole("button", { name: `Deactivate ${user.name}` }).click();
  await expect(row).toContainText("Deactivated");
  await expect(page.getByText(`${user.name} is deactivated.`)).toBeVisible();

  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await otherPage.goto("/login");
  await otherPage.getByLabel("Email").fill(user.email);
  await otherPage.getByLabel("Password").fill(user.password);
  await otherPage.getByRole("button", { name: "Sign in" }).click();
  await expect(otherPage.getByRole("alert").filter({ hasText: "This account is deactivated." })).toBeVisible();

  await row.getByRole("button", { name: `Reactivate ${user.name}` }).click();
  await expect(row).toContainText("Active");
  await otherPage.getByRole("button", { name: "Sign in" }).click();
  await otherPage.waitForURL("**/portal");
  await other.close();
});

test("an admin creates an organisation and it is offered when opening an engagement", async ({ page }) => {
  const name = `Fresh Org ${Date.now().toString(36)}`;
  await signIn(page, DEMO.admin);
  await page.goto("/admin/organizations");
  const form = page.getByRole("form", { name: "New organisation" });
  await form.getByLabel("Name").fill(name);
  await form.getByRole("button", { name: "Create organisation" }).click();
  await expect(page.getByText(`Created ${name}.`)).toBeVisible();
  await expect(page.getByRole("table", { name: "Organisations" }).getByRole("row").filter({ hasText: name })).toBeVisible();
  await page.getByRole("link", { name: "Engagements", exact: true }).click();
  await page.getByRole("link", { name: "New engagement", exact: true }).click();
  await expect(page.getByLabel("Customer organisation").getByRole("option", { name })).toHaveCount(1);
});
