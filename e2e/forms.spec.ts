import { DEMO, expect, invitationLinkFor, signIn, test } from "./fixtures";

test.describe("new engagement form", () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page, DEMO.sam);
    await page.goto("/engagements/new");
  });

  test("empty submit shows an error on each required field", async ({ page }) => {
    await page.getByRole("button", { name: "Create engagement" }).click();
    await expect(page.getByLabel("Customer organisation")).toHaveAccessibleDescription("Choose the customer organisation.");
    await expect(page.getByLabel("Platform")).toHaveAccessibleDescription(/^Choose the platform\./);
    await expect(page).toHaveURL(/\/engagements\/new$/);
  });

  test("an unmanaged platform shows the reason and the server refuses it on the platform field", async ({ page, factory }) => {
    const org = await factory.organization("Xero Org");
    await page.reload();
    await page.getByLabel("Customer organisation").selectOption({ label: org.name });
    await page.getByLabel("Platform").selectOption({ label: "Xero" });
    await expect(page.getByText("Xero has no managed migration")).toBeVisible();
    await expect(page.getByText(/Xero \(gbol\) has no standard managed migration process/)).toBeVisible();
    await page.getByRole("button", { name: "Create engagement" }).click();
    const platform = page.getByLabel("Platform");
    await expect(platform).toHaveAttribute("aria-invalid", "true");
    await expect(platform).toHaveAccessibleDescription(/Xero \(gbol\) has no standard managed migration process\. Managed migrations are offered only for/);
    await expect(page).toHaveURL(/\/engagements\/new$/);
  });

  test("a second open engagement for the same organisation and platform is refused", async ({ page, factory }) => {
    const org = await factory.organization("Twice Org");
    const first = await factory.engagement({ organizationId: org.id, platformKey: "qhyg" });
    await page.reload();
    await page.getByLabel("Customer organisation").selectOption({ label: org.name });
    await page.getByLabel("Platform").selectOption({ label: "QuickBooks Online" });
    await page.getByRole("button", { name: "Create engagement" }).click();
    await expect(page.getByLabel("Platform")).toHaveAccessibleDescription(new RegExp(`already has an open QuickBooks Online engagement \\(${first.reference}\\)`));
  });
});

test("the new organisation form shows field errors for an empty and a duplicate name", async ({ page, factory }) => {
  const existing = await factory.organization("Dup Org");
  await signIn(page, DEMO.admin);
  await page.goto("/admin/organizations");
  const form = page.getByRole("form", { name: "New organisation" });
  await form.getByRole("button", { name: "Create organisation" }).click();
  await expect(form.getByLabel("Name")).toHaveAccessibleDescription("Enter the organisation's name.");
  await form.getByLabel("Name").fill(existing.name.toUpperCase());
  await form.getByRole("button", { name: "Create organisation" }).click();
  await expect(form.getByLabel("Name")).toHaveAccessibleDescription(`An organisation named "${existing.name.toUpperCase()}" already exists.`);
});

test("setting a password that is too short is refused on the password field", async ({ page, adminApi }) => {
  const email = `short-pw-${Date.now()}@e2e.test`;
  await adminApi.mutation("invitations.create", { email, name: "Short Password", role: "support" });
  const link = await invitationLinkFor(adminApi, email);
  await page.goto(link);
  await page.getByRole("button", { name: "Set password" }).click();
  await expect(page.getByLabel("Password", { exact: true })).toHaveAccessibleDescription(/Choose a password\./);
  await page.getByLabel("Password", { exact: true }).fill("short");
  await page.getByLabel("Repeat the password").fill("short");
  await page.getByRole("button", { name: "Set password" }).click();
  await expect(page.getByLabel("Password", { exact: true })).toHaveAccessibleDescription(/Password must be at least 10 characters\./);
});
