/**
 * The engagement page as people work in it, in the console and in the portal, at 1366×900 and on a
 * 390×844 phone, over the demo's engagements (steps 1, 2 and 5, on hold, handed over) and
 * engagements brought to step 3, to a bulk run under way and to the handover of 25 companies.
 * For every view — each step, each part of step 6, the activity — reached through the steps'
 * navigation: nothing wider than the window, no table that hides columns outside its box without
 * scrolling in it, no view taller than four screens at 1366×900, axe without a serious or critical
 * violation; the first screen shows the viewer's next move when it is theirs; the links are
 * URLs the back button walks through. Each view is loaded once and measured at both sizes by
 * resizing the window (Ferry's layouts change by CSS alone), and axe runs once per distinct markup;
 * a screenshot of each view is taken when SCREENSHOTS
 * names a folder (`SCREENSHOTS=/tmp/shots npx playwright test e2e/engagement-page.spec.ts`).
 */
import path from "node:path";
import type { Browser, Page, Request, TestInfo } from "@playwright/test";
import { expectAccessibleOnce } from "./axe";
import { DEMO, e2eSandbox, expect, signIn, test, type Credentials, type TrpcApi } from "./fixtures";

const SIZES = [
  { width: 1366, height: 900 },
  { width: 390, height: 844 },
] as const;

/** The tallest a view may be at 1366×900: four screens. */
const MAX_SCREENS = 4;

type Viewer = { role: "console" | "portal"; who: Credentials; label: string };
type Case = { engagementId: string; label: string; viewers: (Viewer & { yourMove: boolean })[] };

type Listed = { items: { id: string; organizationName: string; platformName: string }[] };

async function demoEngagement(api: TrpcApi, org: string, platform: string): Promise<string> {
  const list = await api.query<Listed>("engagements.list", { page: 1, pageSize: 100, search: "" });
  const found = list.items.find((e) => e.organizationName === org && e.platformName === platform);
  if (!found) throw new Error(`No demo engagement of ${org} on ${platform}`);
  return found.id;
}

/** The page has drawn its data: nothing is loading any more. */
async function settled(page: Page): Promise<void> {
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: /^Loading/ })).toHaveCount(0);
}

/** What the window shows of the page: its width and height against the window's, and every table that does not fit its box. */
async function measure(page: Page) {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const problems: string[] = [];
    for (const table of document.querySelectorAll("table")) {
      if (!table.getClientRects().length) continue; // not displayed (the other layout of a responsive table)
      const name = table.caption?.textContent?.trim() || "a table";
      let box = table.parentElement;
      while (box && box !== document.body && getComputedStyle(box).overflowX === "visible") box = box.parentElement;
      const rect = table.getBoundingClientRect();
      if (!box || box === document.body) {
        if (rect.right > width + 1) problems.push(`${name}: wider than the window, with no box of its own`);
        continue;
      }
      const overflow = getComputedStyle(box).overflowX;
      if (box.getBoundingClientRect().right > width + 1) problems.push(`${name}: its box runs off the window`);
      if (rect.width > box.clientWidth + 1 && overflow !== "auto" && overflow !== "scroll") problems.push(`${name}: columns hidden outside its box (overflow ${overflow})`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, width, height: document.documentElement.scrollHeight, problems };
  });
}

/** A screenshot of the whole page into the folder SCREENSHOTS names, when it names one. */
async function screenshot(page: Page, what: string, size: (typeof SIZES)[number]) {
  const dir = process.env.SCREENSHOTS;
  if (!dir) return;
  await page.screenshot({ path: path.join(dir, `${what.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}-${size.width}.png`), fullPage: true });
}

/**
 * One view as shown: checked, screenshotted when asked, and through axe unless its markup was
 * checked before (and but for a step still locked, which is its title and what it waits for: axe
 * has been over the same parts of the page in the other views).
 */
async function checkView(page: Page, testInfo: TestInfo, what: string, size: (typeof SIZES)[number], axe = true) {
  await settled(page);
  const m = await measure(page);
  await screenshot(page, what, size);
  expect.soft(m.scrollWidth, `${what} at ${size.width}: page wider than the window`).toBeLessThanOrEqual(m.width);
  expect.soft(m.problems, `${what} at ${size.width}: tables`).toEqual([]);
  if (size.width === 1366) expect.soft(m.height, `${what} at 1366×900: taller than ${MAX_SCREENS} screens`).toBeLessThanOrEqual(MAX_SCREENS * size.height);
  if (axe) await expectAccessibleOnce(page, `${what} at ${size.width}`);
}

/** The view as shown now, checked at each size in turn (the same document resized: layouts change by CSS alone), ending at `end`'s size. */
async function checkAtBothSizes(page: Page, testInfo: TestInfo, what: string, axe = true, end: (typeof SIZES)[number] = SIZES[1]) {
  for (const size of [...SIZES.filter((s) => s !== end), end]) {
    await page.setViewportSize(size);
    await checkView(page, testInfo, what, size, axe);
  }
}

/** The viewer's move, when it is theirs, on the first screen at this size (before any scrolling). */
async function expectMoveOnFirstScreen(page: Page, label: string, viewer: Case["viewers"][number], size: (typeof SIZES)[number]) {
  const move = page.getByRole("region", { name: "Your move" });
  if (!viewer.yourMove) {
    await expect(move).toHaveCount(0);
    return;
  }
  const box = await move.boundingBox();
  expect(box, `${label}: the viewer's move is shown`).not.toBeNull();
  expect(box!.y + box!.height, `${label} at ${size.width}: the viewer's move on the first screen`).toBeLessThanOrEqual(size.height);
  await expect(move.getByRole("link")).toBeVisible();
}

/**
 * Every view of one engagement for one viewer, at 1366×900 and on a phone: the page as it opens
 * (the viewer's move on the first screen when it is theirs), then each step, each part of step 6
 * and the activity through the navigation as a phone shows it, and back. Each view is measured at
 * both sizes in the same document, resized (a second walk at the other size loaded every view
 * again for the same markup).
 */
async function walk(browser: Browser, testInfo: TestInfo, c: Case, viewer: Case["viewers"][number]) {
  const [laptop, phone] = SIZES;
  const context = await browser.newContext({ viewport: laptop, baseURL: testInfo.project.use.baseURL });
  const page = await context.newPage();
  try {
    await signIn(page, viewer.who);
    const base = viewer.role === "console" ? `/engagements/${c.engagementId}` : `/portal/engagements/${c.engagementId}`;
    await page.goto(base);
    await settled(page);
    const label = `${c.label} (${viewer.label})`;
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await expectMoveOnFirstScreen(page, label, viewer, size);
      await checkView(page, testInfo, `${label} as it opens`, size);
    }

    // Moving between sections asks the server for no page: the URL changes in place.
    const pageRequests: string[] = [];
    const onRequest = (request: Request) => {
      if (new URL(request.url()).pathname === base && (request.resourceType() === "document" || request.headers()["rsc"])) pageRequests.push(request.url());
    };
    page.on("request", onRequest);
    // The walk goes through the navigation as a phone shows it (a laptop's is used by every journey).
    const nav = page.getByRole("navigation", { name: "Engagement steps" });
    for (let n = 1; n <= 6; n++) {
      await nav.getByRole("link", { name: new RegExp(`^Step ${n}:`) }).click();
      await expect(page).toHaveURL(new RegExp(`\\?step=${n}$`));
      const region = page.getByRole("region", { name: new RegExp(`^Step ${n}: `) });
      await expect(region).toBeVisible();
      // Step 6 as it opens is one of its parts, each checked below.
      if (n < 6) await checkAtBothSizes(page, testInfo, `${label} step ${n}`, (await region.getAttribute("data-state")) !== "locked", phone);
    }
    const parts = page.getByRole("navigation", { name: "Parts of step 6" });
    const step6Locked = (await page.getByRole("region", { name: /^Step 6: / }).getAttribute("data-state")) === "locked";
    for (const part of ["Bulk migration", "Reconnections", "Fresh tokens", "Handover report"]) {
      await parts.getByRole("link", { name: new RegExp(`^${part}`) }).click();
      await expect(parts.getByRole("link", { name: new RegExp(`^${part}`) })).toHaveAttribute("aria-current", "page");
      await checkAtBothSizes(page, testInfo, `${label} step 6, ${part}`, !step6Locked, phone);
    }
    await nav.getByRole("link", { name: "Activity" }).click();
    await expect(page).toHaveURL(/\?tab=activity$/);
    await expect(page.getByRole("list", { name: "Audit events, newest first" }).or(page.getByText("No activity yet"))).toBeVisible();
    await checkAtBothSizes(page, testInfo, `${label} activity`, true, phone);
    page.off("request", onRequest);
    expect(pageRequests, `${label}: moving between sections asked the server for the page`).toEqual([]);

    // Links are URLs: back walks through the views, and a view's URL opens it again.
    await page.goBack();
    await expect(page).toHaveURL(/\?step=6&part=handover$/);
    await expect(parts.getByRole("link", { name: /^Handover report/ })).toHaveAttribute("aria-current", "page");
    await page.goto(`${base}?step=2`);
    await expect(page.getByRole("region", { name: /^Step 2: / })).toBeVisible();
    await expect(nav.getByRole("link", { name: /^Step 2:/ })).toHaveAttribute("aria-current", "page");
  } finally {
    await context.close();
  }
}

async function walkAll(browser: Browser, testInfo: TestInfo, c: Case) {
  for (const viewer of c.viewers) await walk(browser, testInfo, c, viewer);
}

const sam = (yourMove: boolean) => ({ role: "console" as const, who: DEMO.sam, label: "support", yourMove });
const customer = (who: Credentials, yourMove: boolean) => ({ role: "portal" as const, who, label: "customer", yourMove });

test.describe("the demo's engagements", () => {
  test.describe.configure({ timeout: 600_000 });

  test("Acme Lending on QuickBooks Online, at step 5 (support runs the single-company test)", async ({ browser, supportApi }, testInfo) => {
    const engagementId = await demoEngagement(supportApi, "Acme Lending", "QuickBooks Online");
    await walkAll(browser, testInfo, { engagementId, label: "QuickBooks Online at step 5", viewers: [sam(true), customer(DEMO.carol, false)] });
  });

  test("Acme Lending on FreeAgent, a submission waiting for support's review", async ({ browser, supportApi }, testInfo) => {
    const engagementId = await demoEngagement(supportApi, "Acme Lending", "FreeAgent");
    await walkAll(browser, testInfo, { engagementId, label: "FreeAgent at step 1", viewers: [sam(true), customer(DEMO.carol, false)] });
  });

  test("Bluebird Commerce on Shopify, windows waiting for the customer", async ({ browser, supportApi }, testInfo) => {
    const engagementId = await demoEngagement(supportApi, "Bluebird Commerce", "Shopify");
    await walkAll(browser, testInfo, { engagementId, label: "Shopify at step 2", viewers: [sam(false), customer(DEMO.dan, true)] });
  });

  test("Bluebird Commerce on Wave, on hold", async ({ browser, supportApi }, testInfo) => {
    const engagementId = await demoEngagement(supportApi, "Bluebird Commerce", "Wave");
    await walkAll(browser, testInfo, { engagementId, label: "Wave on hold", viewers: [sam(false), customer(DEMO.dan, false)] });
  });

  test("Bluebird Commerce on Zoho Books, handed over with a company waiting for its end customer", async ({ browser, supportApi }, testInfo) => {
    const engagementId = await demoEngagement(supportApi, "Bluebird Commerce", "Zoho Books");
    await walkAll(browser, testInfo, { engagementId, label: "Zoho Books handed over", viewers: [sam(false), customer(DEMO.dan, true)] });
  });
});

test("an engagement at step 3: the customer confirms the callback URL", async ({ browser, factory }, testInfo) => {
  test.setTimeout(600_000);
  const org = await factory.organization("Page Step3 Org");
  const engagement = await factory.engagement({ organizationId: org.id, platformKey: "qhyg" });
  const who = await factory.customerUser(org);
  await factory.detailsAccepted({ engagement, customer: who, companies: 3, window: true });
  await walkAll(browser, testInfo, { engagementId: engagement.id, label: "QuickBooks Online at step 3", viewers: [sam(false), customer(who, true)] });
});

test("a bulk run under way", async ({ browser, factory, supportApi }, testInfo) => {
  test.setTimeout(600_000);
  const org = await factory.organization("Page Bulk Org");
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    companies: [{ name: "Page Pilot Ltd", records: 2 }, ...Array.from({ length: 8 }, (_, i) => ({ name: `Page Slow Co ${i + 1}`, records: 30_000, externalRef: `PS-${i + 1}` }))],
    syncs: "instant",
  });
  const { runId } = await supportApi.mutation<{ runId: string }>("tests.start", { engagementId: eng.id, kind: "pilot", itemId: null });
  await expect.poll(async () => (await supportApi.query<{ status: string }>("tests.get", { engagementId: eng.id, runId })).status, { timeout: 60_000 }).toBe("passed");
  // The run's syncs are held by the sandbox: it is under way for as long as the views are read.
  await e2eSandbox().control.setSyncs(eng.sandboxClientId, "held");
  await supportApi.mutation("bulk.start", { engagementId: eng.id, reason: "Reading the screens while a run goes." });
  await walkAll(browser, testInfo, { engagementId: eng.id, label: "a bulk run under way", viewers: [sam(true), customer(eng.customer, false)] });
});

test("the handover of 25 companies, three waiting for their end customers", async ({ browser, factory, supportApi }, testInfo) => {
  test.setTimeout(600_000);
  const org = await factory.organization("Page Handover Org");
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    companies: Array.from({ length: 25 }, (_, i) => ({
      name: `Page Company ${String(i + 1).padStart(2, "0")}`,
      records: 3 + (i % 5),
      externalRef: `PC-${i + 1}`,
      rotatedAfterExport: i === 5 || i === 12 || i === 19,
    })),
    syncs: "instant",
  });
  const { runId } = await supportApi.mutation<{ runId: string }>("tests.start", { engagementId: eng.id, kind: "pilot", itemId: null });
  await expect.poll(async () => (await supportApi.query<{ status: string }>("tests.get", { engagementId: eng.id, runId })).status, { timeout: 60_000 }).toBe("passed");
  await supportApi.mutation("bulk.start", { engagementId: eng.id, reason: "Reading the screens of a handover." });
  await expect.poll(async () => (await supportApi.query<{ run: { status: string } | null }>("bulk.overview", { engagementId: eng.id })).run?.status, { timeout: 120_000 }).toBe("completed");
  await supportApi.mutation("handover.confirm", { engagementId: eng.id });
  await walkAll(browser, testInfo, { engagementId: eng.id, label: "a handover of 25 companies", viewers: [sam(false), customer(eng.customer, true)] });
});

const OTHER_PAGES: { who: Credentials; label: string; paths: string[] }[] = [
  { who: DEMO.admin, label: "admin", paths: ["/portfolio", "/portfolio?group=owner", "/workload", "/calendar?scope=everyone", "/calendar?view=month&scope=everyone", "/engagements", "/engagements?waiting=support"] },
  { who: DEMO.admin, label: "admin", paths: ["/engagements/new", "/admin/users", "/admin/organizations", "/admin/invitations", "/admin/outbox", "/admin/targets"] },
  { who: DEMO.carol, label: "customer", paths: ["/portal"] },
];

for (const { who, label, paths } of OTHER_PAGES) {
  test(`the other pages (${label}: ${paths[0]} to ${paths.at(-1)}) fit the window at 1366 and on a phone`, async ({ browser }, testInfo) => {
    test.setTimeout(300_000);
    const context = await browser.newContext({ viewport: SIZES[0], baseURL: testInfo.project.use.baseURL });
    const page = await context.newPage();
    try {
      await signIn(page, who);
      for (const path of paths) {
        await page.setViewportSize(SIZES[0]);
        await page.goto(path);
        await settled(page);
        for (const size of SIZES) {
          await page.setViewportSize(size);
          const what = `${label} ${path}`;
          const m = await measure(page);
          await screenshot(page, what, size);
          expect.soft(m.scrollWidth, `${what} at ${size.width}: page wider than the window`).toBeLessThanOrEqual(m.width);
          expect.soft(m.problems, `${what} at ${size.width}: tables`).toEqual([]);
          await expectAccessibleOnce(page, `${what} at ${size.width}`);
        }
      }
    } finally {
      await context.close();
    }
  });
}

test("an admin's header keeps to one line at 1366", async ({ page }) => {
  await signIn(page, DEMO.admin);
  await page.setViewportSize(SIZES[0]);
  await page.goto("/portfolio");
  await settled(page);
  // One line: every section's link and the account's button are centred on the brand's line.
  const middle = async (locator: ReturnType<Page["getByRole"]>) => {
    const box = (await locator.boundingBox())!;
    return box.y + box.height / 2;
  };
  const banner = page.getByRole("banner");
  const line = await middle(banner.getByRole("link", { name: /^Ferry/ }));
  const links = await banner.getByRole("navigation", { name: "Main" }).getByRole("link").all();
  expect(links).toHaveLength(8);
  for (const link of links) expect(Math.abs((await middle(link)) - line), `${await link.textContent()} on the brand's line`).toBeLessThan(8);
  expect(Math.abs((await middle(banner.getByRole("button", { name: /^Account:/ }))) - line), "the account on the brand's line").toBeLessThan(8);
});
