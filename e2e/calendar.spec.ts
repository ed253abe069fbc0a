/**
 * The window calendar (issue 30, item 3) over the demo's windows: the first paint has them; week
 * and month, mine and everyone's, stay in the URL; a window opens its details; the secret .ics
 * feed is made, read by a calendar program (no session) and reset. (Its fit at 1366 and 390 and
 * axe are checked with the console's other pages in engagement-page.spec.ts; overlap flags and the
 * warning before proposing are proven through the procedures in calendar.test.ts.)
 */
import { DEMO, expect, signIn, test, uniqueSuffix, type Engagement } from "./fixtures";

type Calendar = { windows: { reference: string; organizationName: string; platformName: string; ownerName: string; startsAt: string | Date; status: string }[] };

test("the calendar shows the team's windows by week or month, and each person's feed follows them", async ({ page, supportApi }) => {
  // Acme's agreed QuickBooks window (Sam's) and Bluebird's proposed Shopify windows (Priya's) fall on the same weekend.
  const today = new Date().toISOString().slice(0, 10);
  const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  const seen = [
    ...(await supportApi.query<Calendar>("calendar.get", { view: "month", scope: "everyone", day: today })).windows,
    ...(await supportApi.query<Calendar>("calendar.get", { view: "month", scope: "everyone", day: nextMonth })).windows,
  ];
  const qbo = seen.find((w) => w.organizationName === "Acme Lending" && w.platformName === "QuickBooks Online")!;
  const shopify = seen.find((w) => w.platformName === "Shopify")!;
  const wave = seen.find((w) => w.platformName === "Wave")!;
  const day = new Date(qbo.startsAt).toISOString().slice(0, 10);

  await signIn(page, DEMO.sam);
  // The first paint: the server's HTML already holds the week's windows.
  const html = await (await page.request.get(`/calendar?day=${day}&scope=everyone`)).text();
  expect(html).toContain(qbo.reference);
  expect(html).toContain(shopify.reference);

  await page.goto("/portfolio");
  await page.getByRole("link", { name: "Window calendar" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Window calendar" })).toBeVisible();
  await page.goto(`/calendar?day=${day}`);
  const list = page.getByRole("table", { name: /^Windows, / });
  // Mine: Sam's agreed QuickBooks window, not Priya's Shopify ones. Sam's Wave window, on Bluebird's
  // account like Shopify's, is flagged: together they overfill its daily quota.
  const rowOf = (reference: string) => list.getByRole("row").filter({ has: page.getByRole("link", { name: reference, exact: true }) });
  await expect(rowOf(qbo.reference)).toContainText("Agreed");
  await expect(rowOf(shopify.reference)).toHaveCount(0);
  await expect(rowOf(wave.reference)).toContainText("Overlap: daily quota");
  await expect(rowOf(wave.reference)).toContainText(`With ${shopify.reference} (Bluebird Commerce) on Bluebird rehearsal account`);
  await page.getByRole("group", { name: "Whose windows" }).getByRole("button", { name: "Everyone's" }).click();
  await expect(page).toHaveURL(/[?&]scope=everyone/);
  await expect(page.getByRole("button", { name: "Everyone's", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(list.getByRole("row").filter({ hasText: shopify.reference }).first()).toContainText("Proposed");
  await expect(list.getByRole("row").filter({ hasText: shopify.reference }).first()).toContainText("Priya Support");

  // A window in the grid opens its details: target, estimate and requests.
  await page.locator(".rbc-event", { hasText: qbo.reference }).first().click();
  const detail = page.getByRole("region", { name: `Window of ${qbo.reference}` });
  await expect(detail).toContainText(/requests, \d+ companies/);
  await expect(detail).toContainText("Owner Sam Support");

  await page.getByRole("group", { name: "View" }).getByRole("button", { name: "Month" }).click();
  await expect(page).toHaveURL(/[?&]view=month/);
  await page.reload();
  await expect(page.getByRole("button", { name: "Month", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(list.getByRole("row").filter({ hasText: qbo.reference })).toBeVisible();
  await page.getByRole("button", { name: "Next month" }).click();
  await expect(page).toHaveURL(/[?&]day=\d{4}-\d{2}-01/);

  // The feed: made, read without a session, reset (the old address then opens nothing).
  await page.getByRole("button", { name: "Make my feed URL" }).click();
  const feed = page.getByRole("region", { name: "Subscribe in your calendar" });
  const url = (await feed.locator("code").textContent())!;
  expect(url).toMatch(/\/api\/calendar\/[A-Za-z0-9_-]+\.ics$/);
  const path = new URL(url).pathname;
  const anonymous = await page.context().browser()!.newContext({ baseURL: new URL(page.url()).origin });
  try {
    const ics = await anonymous.request.get(path);
    expect(ics.status()).toBe(200);
    expect(ics.headers()["content-type"]).toContain("text/calendar");
    const text = (await ics.text()).replace(/\r\n /g, "");
    expect(text).toContain(`${qbo.reference} migration window`);
    // Sam's windows only (Shopify is named in the Wave window's overlap, not as a window of its own).
    expect(text).not.toMatch(new RegExp(`SUMMARY:[^\\r\\n]*${shopify.reference}`));
    expect(text).toMatch(new RegExp(`SUMMARY:⚠ Overlap · ${wave.reference} proposed window`));

    await feed.getByRole("button", { name: "Reset URL" }).click();
    await page.getByRole("dialog", { name: "Reset your calendar feed URL?" }).getByRole("button", { name: "Reset URL" }).click();
    await expect(feed.locator("code")).not.toHaveText(url);
    expect((await anonymous.request.get(path)).status()).toBe(404);
    expect((await anonymous.request.get(new URL((await feed.locator("code").textContent())!).pathname)).status()).toBe(200);
  } finally {
    await anonymous.close();
  }
});

test("proposing a window that would overfill the target with another engagement's warns with the numbers first", async ({ page, factory, adminApi, supportApi }) => {
  // One request a minute on the organisation's target: an hour allows 60; each migration of four companies needs 48.
  const org = await factory.organization("Overlap Org");
  const customer = await factory.customerUser(org);
  const target = await adminApi.mutation<{ id: string }>("targets.create", {
    name: `Overlap production ${uniqueSuffix()}`,
    baseUrl: "https://api.codat.io",
    apiKey: `overlap-key-${uniqueSuffix()}`,
    kind: "service",
    organizationId: org.id,
    requestsPerMinute: 1,
  });
  const made: Engagement[] = [];
  for (const platformKey of ["qhyg", "fbrh"] as const) {
    const engagement = await factory.engagement({ organizationId: org.id, platformKey });
    await supportApi.mutation("targets.assign", { engagementId: engagement.id, serviceTargetId: target.id });
    await factory.detailsAccepted({ engagement, customer, platformKey, companies: 4 });
    made.push(engagement);
  }
  const [first, second] = made as [Engagement, Engagement];
  const day = new Date(Date.now() + 10 * 86_400_000);
  const startsAt = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 9));
  await supportApi.mutation("windows.propose", { engagementId: first.id, windows: [{ startsAt, endsAt: new Date(startsAt.getTime() + 3_600_000) }] });

  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${second.id}?step=2`);
  const form = page.getByRole("form", { name: "Propose migration windows" });
  const field = (d: Date) => `${d.getUTCDate()} ${d.toLocaleString("en-GB", { month: "short", timeZone: "UTC" })} ${d.getUTCFullYear()}, ${String(d.getUTCHours()).padStart(2, "0")}:00`;
  // The form is ready once it shows Ferry's suggestion (a Saturday night).
  await expect(form.getByLabel("Window 1 start (UTC)")).toHaveValue(/^\d{1,2} \w{3} \d{4}, 22:00$/);
  await form.getByLabel("Window 1 start (UTC)").fill(field(startsAt));
  await form.getByLabel("Window 1 end (UTC)").fill(field(new Date(startsAt.getTime() + 3_600_000)));
  await form.getByRole("button", { name: "Propose to the customer" }).click();
  const warning = form.getByRole("status").filter({ hasText: "would overfill the service target" });
  await expect(warning).toContainText(`Window 1: With ${first.reference}`);
  await expect(warning).toContainText("96 requests are needed");
  await expect(warning).toContainText("the per-address limit allows 60 in that time");
  // Nothing was sent yet; a second press sends it.
  expect((await supportApi.query<{ windows: unknown[] }>("windows.plan", { engagementId: second.id })).windows).toEqual([]);
  await form.getByRole("button", { name: "Propose anyway" }).click();
  await expect(page.getByText(/Proposed the window; the customer is mailed to accept one\./)).toBeVisible();
  // The calendar flags both.
  await page.goto(`/calendar?scope=everyone&day=${startsAt.toISOString().slice(0, 10)}`);
  const list = page.getByRole("table", { name: /^Windows, / });
  const row = (reference: string) => list.getByRole("row").filter({ has: page.getByRole("link", { name: reference, exact: true }) });
  await expect(row(second.reference)).toContainText("Overlap: rate limit");
  await expect(row(first.reference)).toContainText(`With ${second.reference}`);
});
