import { expect, test, uniqueSuffix } from "./fixtures";

test("empty sign-in shows field errors", async ({ page }) => {
  await page.goto("/login");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByLabel("Email")).toHaveAccessibleDescription("Enter your email address.");
  await expect(page.getByLabel("Password")).toHaveAccessibleDescription("Enter your password.");
});

test("support signs in through the form, lands in the console and signs out", async ({ page, factory }) => {
  const staff = await factory.supportUser();
  await page.goto("/login");
  await page.getByLabel("Email").fill(staff.email);
  await page.getByLabel("Password").fill(staff.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Support's home is the portfolio.
  await page.waitForURL("**/portfolio");
  await expect(page.getByRole("heading", { name: "Portfolio", level: 1 })).toBeVisible();
  await expect(page.getByRole("link", { name: "Portfolio", exact: true })).toHaveAttribute("aria-current", "page");
  // Signing out is in the account's menu, at the end of the header.
  const account = page.getByRole("button", { name: new RegExp(`^Account: ${staff.name}`) });
  await expect(account).toHaveAttribute("aria-expanded", "false");
  await account.click();
  await expect(account).toHaveAttribute("aria-expanded", "true");
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.waitForURL("**/login");
  await page.goto("/engagements");
  await expect(page).toHaveURL(/\/login\?next=%2Fengagements$/);
});

test("every page has Ferry's icon, and asks the server for nothing that is not there", async ({ page, factory }) => {
  const missing: string[] = [];
  page.on("response", (response) => {
    if (response.status() === 404) missing.push(response.url());
  });
  await page.goto("/login");
  const icon = page.locator('head link[rel="icon"]');
  await expect(icon).toHaveAttribute("type", "image/svg+xml");
  const answer = await page.request.get((await icon.getAttribute("href"))!);
  expect(answer.status()).toBe(200);
  expect(answer.headers()["content-type"]).toMatch(/^image\/svg\+xml/);
  // Signed in too: the console's list, with everything it loads (the browser asks for the icon itself).
  const staff = await factory.supportUser();
  await page.getByLabel("Email").fill(staff.email);
  await page.getByLabel("Password").fill(staff.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/portfolio");
  await expect(page.locator('head link[rel="icon"]')).toHaveCount(1);
  expect(missing).toEqual([]);
});

test("repeated wrong passwords end in the throttling message", async ({ page }) => {
  // A throwaway email, so no demo user is locked. (The 127.0.0.1 address all tests share counts
  // these five of its 30; a made-up X-Forwarded-For no longer changes the address.)
  const email = `throttle-${uniqueSuffix()}@e2e.test`;
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  const submit = page.getByRole("button", { name: "Sign in" });
  for (let attempt = 1; attempt <= 5; attempt++) {
    await page.getByLabel("Password").fill(`wrong-${attempt}`);
    const answered = page.waitForResponse((r) => r.url().includes("/api/auth/callback/credentials"));
    await submit.click();
    await answered;
    await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
  }
  await page.getByLabel("Password").fill("wrong-6");
  await submit.click();
  await expect(page.getByRole("alert").filter({ hasText: /Too many failed sign-ins\. Try again in \d+ minutes?\./ })).toBeVisible();
});
