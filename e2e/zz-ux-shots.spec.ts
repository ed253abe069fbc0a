// Throwaway: full-page screenshots of changed views at both widths (not committed).
import { DEMO, expect, signIn, test, type Credentials } from "./fixtures";

const dir = "/tmp/ux-full";
async function shoot(page: import("@playwright/test").Page, name: string) {
  for (const [w, h] of [[1366, 900], [390, 844]] as const) {
    await page.setViewportSize({ width: w, height: h });
    await expect(page.getByRole("progressbar", { name: /^Loading/ })).toHaveCount(0);
    await page.screenshot({ path: `${dir}/${name}-${w}.png`, fullPage: true });
  }
}
type Listed = { items: { id: string; organizationName: string; platformName: string }[] };
const views: { who: Credentials; name: string; path: (ids: Record<string, string>) => string }[] = [
  { who: DEMO.sam, name: "list", path: () => "/engagements" },
  { who: DEMO.admin, name: "users", path: () => "/admin/users" },
  { who: DEMO.admin, name: "invitations", path: () => "/admin/invitations" },
  { who: DEMO.admin, name: "outbox", path: () => "/admin/outbox" },
  { who: DEMO.sam, name: "zoho-run", path: (i) => `/engagements/${i.zoho}?step=6&part=run` },
  { who: DEMO.sam, name: "zoho-reconnections", path: (i) => `/engagements/${i.zoho}?step=6&part=reconnections` },
  { who: DEMO.dan, name: "portal-zoho-fresh", path: (i) => `/portal/engagements/${i.zoho}?step=6&part=fresh-tokens` },
  { who: DEMO.dan, name: "portal-zoho-handover", path: (i) => `/portal/engagements/${i.zoho}?step=6&part=handover` },
  { who: DEMO.dan, name: "portal-shopify-step2", path: (i) => `/portal/engagements/${i.shopify}?step=2` },
  { who: DEMO.sam, name: "shopify-step2", path: (i) => `/engagements/${i.shopify}?step=2` },
  { who: DEMO.sam, name: "acme-step5", path: (i) => `/engagements/${i.acme}` },
  { who: DEMO.carol, name: "portal-home", path: () => "/portal" },
];
test("shots", async ({ browser, supportApi }) => {
  test.setTimeout(300_000);
  const list = await supportApi.query<Listed>("engagements.list", { page: 1, pageSize: 100 });
  const id = (org: string, platform: string) => list.items.find((e) => e.organizationName === org && e.platformName === platform)!.id;
  const ids = { zoho: id("Bluebird Commerce", "Zoho Books"), shopify: id("Bluebird Commerce", "Shopify"), acme: id("Acme Lending", "QuickBooks Online") };
  for (const v of views) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, v.who);
    await page.goto(v.path(ids));
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await shoot(page, v.name);
    await context.close();
  }
});
