/**
 * Step 3 proven by a round trip, as the customer does it in the portal against the e2e sandbox:
 * Ferry makes a test connection; the customer's OAuth app does not list the service's callback
 * URL, so the platform refuses the authorization in its own words and Ferry says what to fix; the
 * customer adds the URL in the sandbox's developer console, authorizes again through the same
 * link, and Ferry proves step 3 and deletes the test company. At 1366 and at 390, axe clean.
 */
import type { Page } from "@playwright/test";
import { expectAccessible } from "./axe";
import { screenshots } from "./screenshots";
import { e2eSandbox, expect, openStep, SANDBOX_CLIENT_DAILY_QUOTA, SANDBOX_CLIENT_REQUESTS_PER_MINUTE, signIn, test, uniqueSuffix, type Engagement } from "./fixtures";

const CALLBACK = "https://quickbooksonline.codat.io/oauth2/callback";

/** No part of the page is wider than the window. */
async function fitsTheWindow(page: Page, what: string) {
  const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(scroll, `${what}: page wider than the window`).toBeLessThanOrEqual(inner);
}

test("the customer proves the callback URL by a round trip: refused until the app lists it, then proven, and step 3 is done", async ({ browser, factory, adminApi, supportApi }) => {
  test.setTimeout(120_000);
  const sandbox = e2eSandbox();
  const suffix = uniqueSuffix();
  const org = await factory.organization("Round Trip Org");
  // The organisation's own sandbox account, with its OAuth app at QuickBooks listing only the old app's redirect.
  const { apiKey, clientId } = await sandbox.control.createClient({ plan: "paid", name: `E2E round trip ${suffix}` });
  const target = await adminApi.mutation<{ id: string }>("targets.create", {
    name: `E2E round trip ${suffix}`,
    baseUrl: sandbox.url,
    apiKey,
    kind: "sandbox",
    organizationId: org.id,
    requestsPerMinute: SANDBOX_CLIENT_REQUESTS_PER_MINUTE,
    dailyQuota: SANDBOX_CLIENT_DAILY_QUOTA,
  });
  const engagement = await supportApi.mutation<Engagement>("engagements.create", { organizationId: org.id, platformKey: "qhyg" });
  await supportApi.mutation("targets.assign", { engagementId: engagement.id, serviceTargetId: target.id });
  const customer = await factory.customerUser(org);
  await factory.detailsAccepted({ engagement, customer });
  await sandbox.control.setOAuthApp(clientId, "qhyg", { appClientId: "e2e-client-id", name: "Round Trip QuickBooks app", redirectUris: ["https://old-app.example/callback"] });

  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  await signIn(page, customer);
  await page.goto(`/portal/engagements/${engagement.id}`);
  const step3 = await openStep(page, 3);
  const roundTrip = step3.getByRole("region", { name: "Prove it with a round trip" });
  await expect(roundTrip).toContainText("Authorize it with any QuickBooks Online account of yours");
  await roundTrip.getByRole("button", { name: "Start the round trip" }).click();
  const testLink = roundTrip.getByRole("link", { name: "Open the test link and authorize on QuickBooks Online" });
  await expect(testLink).toBeVisible();
  await expect(roundTrip.getByText(/Waiting for the authorization/)).toBeVisible();

  // The platform refuses: its words on its page, and Ferry's page says what to fix.
  const linkUrl = (await testLink.getAttribute("href"))!;
  const platform = await context.newPage();
  await platform.goto(linkUrl);
  await platform.getByRole("button", { name: /Connect/ }).first().click();
  await expect(platform.getByRole("alert")).toContainText("The redirect_uri query parameter value is invalid");
  const refused = roundTrip.getByRole("alert");
  await expect(refused).toContainText("The platform refused to send the authorization to the callback URL", { timeout: 15_000 });
  await expect(refused).toContainText(`Add ${CALLBACK} to your app's redirect URIs exactly as written`);
  await expect(roundTrip.getByRole("link", { name: "Open the test link again" })).toBeVisible();
  await expectAccessible(page, "portal step 3, round trip refused at 1366");
  await screenshots(page, null, "round-trip-refused");
  await page.setViewportSize({ width: 390, height: 844 });
  await fitsTheWindow(page, "round trip refused at 390");
  await expectAccessible(page, "portal step 3, round trip refused at 390");
  await page.setViewportSize({ width: 1366, height: 900 });

  // The customer adds the callback URL to the app in the sandbox's developer console.
  const consoleHref = (await refused.getByRole("link", { name: "Open your app in the sandbox's developer console" }).getAttribute("href"))!;
  expect(consoleHref).toBe(`${sandbox.url}/developer/qhyg/apps/e2e-client-id`);
  await platform.goto(consoleHref);
  await platform.getByLabel("Redirect URI", { exact: true }).fill(CALLBACK);
  await platform.getByRole("button", { name: "Add redirect URI" }).click();
  await expect(platform.getByRole("listitem").filter({ hasText: CALLBACK })).toBeVisible();

  // The same test link again: it links, and Ferry proves step 3.
  await platform.goto(linkUrl);
  await platform.getByRole("button", { name: /Connect/ }).first().click();
  await expect(platform.getByText(/Connected/).first()).toBeVisible();
  const proven = roundTrip.getByRole("status").filter({ hasText: "Proven by a round trip" });
  await expect(proven).toBeVisible({ timeout: 15_000 });
  await expect(proven).toContainText("the platform sent the authorization to the callback URL");
  await expect(page.getByText("The round trip proved the callback URL: step 3 is done.")).toBeVisible();
  await expect(step3).toContainText("proven by a round trip");
  await expect(proven).toContainText("The test company was deleted.", { timeout: 15_000 });
  await expectAccessible(page, "portal step 3, proven at 1366");
  await page.setViewportSize({ width: 390, height: 844 });
  await fitsTheWindow(page, "round trip proven at 390");
  await expectAccessible(page, "portal step 3, proven at 390");
  await screenshots(page, null, "round-trip-proven");
  await context.close();
});
