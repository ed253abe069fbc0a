import { DEMO, expect, signIn, test } from "./fixtures";

test.describe("a customer", () => {
  test("opening another organisation's engagement gets the same 404 as an unknown id", async ({ page, factory }) => {
    const org = await factory.organization("Not Dans Org");
    const engagement = await factory.engagement({ organizationId: org.id, platformKey: "rwuv" });
    await signIn(page, DEMO.dan);
    const response = await page.goto(`/portal/engagements/${engagement.id}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByText("404 · Not found")).toBeVisible();
    await expect(page.getByRole("heading", { name: "No engagement with that id" })).toBeVisible();
    await expect(page.getByText(engagement.reference)).toHaveCount(0);
    await expect(page.getByText(org.name)).toHaveCount(0);
  });

  test("opening an unknown engagement id sees the not-found page", async ({ page }) => {
    await signIn(page, DEMO.dan);
    const response = await page.goto("/portal/engagements/does-not-exist-123");
    expect(response?.status()).toBe(404);
    await expect(page.getByText("404 · Not found")).toBeVisible();
    await expect(page.getByRole("heading", { name: "No engagement with that id" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to your engagements" })).toBeVisible();
  });

  test("is kept out of the staff console", async ({ page }) => {
    await signIn(page, DEMO.carol);
    const response = await page.goto("/engagements");
    expect(response?.status()).toBe(403);
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(page.getByRole("link", { name: "Go to your home page" })).toHaveAttribute("href", "/portal");
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
    const response = await page.goto("/engagements/does-not-exist-123");
    expect(response?.status()).toBe(404);
    await expect(page.getByText("404 · Not found")).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to engagements" })).toBeVisible();
    // The console's navigation is still there.
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  });

  test("support cannot open admin pages", async ({ page }) => {
    await signIn(page, DEMO.sam);
    for (const path of ["/admin/users", "/admin/outbox", "/admin/targets"]) {
      const response = await page.goto(path);
      expect([path, response?.status()]).toEqual([path, 403]);
    }
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(page.getByText("Only Ferry admins manage")).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" })).toHaveCount(0);
  });

  test("staff are kept out of the customer portal", async ({ page }) => {
    await signIn(page, DEMO.admin);
    const response = await page.goto("/portal");
    expect(response?.status()).toBe(403);
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(page.getByText("The portal is for customer users.")).toBeVisible();
  });
});

test("signed-out visitors are sent to sign in, remembering the page they asked for", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);
  for (const path of ["/engagements", "/admin/outbox", "/portal", "/engagements?q=acme&step=2"]) {
    await page.goto(path);
    await expect(page).toHaveURL(`/login?next=${encodeURIComponent(path)}`);
  }
  await expect(page.getByRole("heading", { name: "Sign in to Ferry" })).toBeVisible();
});

test("after signing in, a visitor comes back to the page they asked for", async ({ page }) => {
  await page.goto("/admin/outbox");
  await page.getByLabel("Email").fill(DEMO.admin.email);
  await page.getByLabel("Password").fill(DEMO.admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/admin/outbox");
  await expect(page.getByRole("heading", { name: "Outbox", level: 1 })).toBeVisible();
});

test("a sign-in link cannot send anyone to another site", async ({ page }) => {
  for (const next of ["//evil.test/", "https://evil.test/", "/\\evil.test", "/\t/evil.test", "/.//evil.test"]) {
    await page.context().clearCookies();
    await page.goto(`/login?next=${encodeURIComponent(next)}`);
    await page.getByLabel("Email").fill(DEMO.sam.email);
    await page.getByLabel("Password").fill(DEMO.sam.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/portfolio");
    expect(page.url()).not.toContain("evil.test");
  }
});
