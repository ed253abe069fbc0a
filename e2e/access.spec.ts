import { DEMO, expect, signIn, test } from "./fixtures";

test.describe("a customer", () => {
  test("opening another organisation's engagement sees the forbidden page", async ({ page, factory }) => {
    const org = await factory.organization("Not Dans Org");
    const engagement = await factory.engagement({ organizationId: org.id, platformKey: "rwuv" });
    await signIn(page, DEMO.dan);
    await page.goto(`/portal/engagements/${engagement.id}`);
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(page.getByRole("heading", { name: "You don't have access to this page" })).toBeVisible();
    await expect(page.getByText(engagement.reference)).toHaveCount(0);
    await expect(page.getByText(org.name)).toHaveCount(0);
  });

  test("opening an unknown engagement id sees the not-found page", async ({ page }) => {
    await signIn(page, DEMO.dan);
    await page.goto("/portal/engagements/does-not-exist-123");
    await expect(page.getByText("404 · Not found")).toBeVisible();
    await expect(page.getByRole("heading", { name: "No engagement with that id" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to your engagements" })).toBeVisible();
  });

  test("is kept out of the staff console", async ({ page }) => {
    await signIn(page, DEMO.carol);
    await page.goto("/engagements");
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(page.getByRole("table")).toHaveCount(0);
  });

  test("sees their own organisation's engagements only", async ({ page, factory }) => {
    const org = await factory.organization("Portal Org");
    const mine = await factory.engagement({ organizationId: org.id, platformKey: "vxvy" });
    const user = await factory.customerUser(org);
    await signIn(page, user);
    await page.goto("/");
    await expect(page).toHaveURL(/\/portal$/);
    const rows = page.getByRole("table", { name: "Your engagements" }).getByRole("row");
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(1)).toContainText(mine.reference);
    await expect(rows.nth(1)).toContainText("FreshBooks");
  });
});

test.describe("staff", () => {
  test("an unknown engagement id shows the not-found page in the console", async ({ page }) => {
    await signIn(page, DEMO.sam);
    await page.goto("/engagements/does-not-exist-123");
    await expect(page.getByText("404 · Not found")).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to engagements" })).toBeVisible();
    // The console's navigation is still there.
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  });

  test("support cannot open admin pages", async ({ page }) => {
    await signIn(page, DEMO.sam);
    await page.goto("/admin/users");
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" })).toHaveCount(0);
  });

  test("staff are kept out of the customer portal", async ({ page }) => {
    await signIn(page, DEMO.admin);
    await page.goto("/portal");
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
  });
});

test("signed-out visitors are sent to sign in", async ({ page }) => {
  for (const path of ["/", "/engagements", "/admin/outbox", "/portal"]) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/login$/);
  }
  await expect(page.getByRole("heading", { name: "Sign in to Ferry" })).toBeVisible();
});
