import { DEMO, expect, invitationLinkFor, signIn, test, uniqueSuffix } from "./fixtures";

test.describe("invitations", () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page, DEMO.admin);
    await page.goto("/admin/invitations");
  });

  test("an email that already belongs to a user is refused on the email field", async ({ page }) => {
    const form = page.getByRole("form", { name: "Invite someone" });
    await form.getByLabel("Email").fill("carol@acme.test");
    await form.getByLabel("Name").fill("Carol Again");
    await form.getByLabel("Organisation").selectOption({ label: "Acme Lending" });
    await form.getByRole("button", { name: "Send invitation" }).click();
    const email = form.getByLabel("Email");
    await expect(email).toHaveAttribute("aria-invalid", "true");
    await expect(email).toHaveAccessibleDescription(/A user with the email carol@acme\.test already exists\./);
  });

  test("an empty invitation shows an error on each field", async ({ page }) => {
    const form = page.getByRole("form", { name: "Invite someone" });
    await form.getByRole("button", { name: "Send invitation" }).click();
    await expect(form.getByLabel("Email")).toHaveAccessibleDescription("Enter an email address.");
    await expect(form.getByLabel("Name")).toHaveAccessibleDescription("Enter the person's name.");
  });

  test("a customer invitation needs an organisation", async ({ page }) => {
    const form = page.getByRole("form", { name: "Invite someone" });
    await form.getByLabel("Email").fill(`no-org-${uniqueSuffix()}@e2e.test`);
    await form.getByLabel("Name").fill("No Org");
    await form.getByRole("button", { name: "Send invitation" }).click();
    await expect(form.getByLabel("Organisation")).toHaveAccessibleDescription("Choose the customer's organisation.");
  });

  test("a revoked invitation's link says so and offers nothing else", async ({ page, browser, adminApi }) => {
    const email = `revoked-${uniqueSuffix()}@e2e.test`;
    await adminApi.mutation("invitations.create", { email, name: "Revoked Person", role: "support" });
    const href = await invitationLinkFor(adminApi, email);
    await page.reload();
    const row = page.getByRole("table", { name: "Invitations" }).getByRole("row").filter({ hasText: email });
    await row.getByRole("button", { name: `Revoke invitation for ${email}` }).click();
    await expect(row).toContainText("Revoked");

    // The outbox no longer offers the link.
    await page.goto("/admin/outbox");
    const message = page.getByRole("article", { name: new RegExp(`Email to ${email}`) });
    await expect(message).toContainText("The link is not kept");
    await expect(message.getByRole("button", { name: "Show invitation link" })).toHaveCount(0);
    await expect(message.getByRole("link")).toHaveCount(0);

    const visitor = await browser.newContext();
    const visitorPage = await visitor.newPage();
    await visitorPage.goto(href);
    await expect(visitorPage.getByText("This invitation was withdrawn.")).toBeVisible();
    await expect(visitorPage.getByRole("textbox")).toHaveCount(0);
    await expect(visitorPage.getByRole("button")).toHaveCount(0);
    await visitor.close();
  });
});

test("an unknown or expired invitation link says only that", async ({ page }) => {
  await page.goto(`/invite/not-a-real-token-${uniqueSuffix()}`);
  await expect(page.getByRole("heading", { name: "This invitation can't be used" })).toBeVisible();
  await expect(page.getByText("This invitation link is not valid.")).toBeVisible();
  await expect(page.getByRole("textbox")).toHaveCount(0);
  await expect(page.getByRole("button")).toHaveCount(0);
  await page.getByRole("link", { name: "Go to sign in" }).click();
  await expect(page).toHaveURL(/\/login$/);
});
