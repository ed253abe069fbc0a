/**
 * Refused pages over plain HTTP against the built app (no browser: the bytes of the answer are what
 * matters): a console page a customer asks for answers 403 and its body carries none of the page's
 * data, on every console route; so does an admin page support asks for; and a malformed
 * percent-escape in a path answers 400, signed in or not.
 */
import type { APIRequestContext } from "@playwright/test";
import { DEMO, expect, signInWithApi, test, TrpcApi, type Credentials } from "./fixtures";

type ListItem = { id: string; reference: string; organizationName: string; platformKey: string };

async function signedIn(playwright: { request: { newContext(options: { baseURL?: string }): Promise<APIRequestContext> } }, who: Credentials | null): Promise<APIRequestContext> {
  const context = await playwright.request.newContext({ baseURL: test.info().project.use.baseURL });
  if (who) await signInWithApi(context, who);
  return context;
}

test.describe("a refused console page", () => {
  test("answers a customer 403 on every console route, with none of the page's data in the body", async ({ playwright }) => {
    const admin = await signedIn(playwright, DEMO.admin);
    const dan = await signedIn(playwright, DEMO.dan);
    try {
      const all = await new TrpcApi(admin).query<{ items: ListItem[] }>("engagements.list", { page: 1, pageSize: 100 });
      const own = (await new TrpcApi(dan).query<{ items: ListItem[] }>("engagements.list", { page: 1, pageSize: 100 })).items.find((e) => e.platformKey === "rwuv");
      if (!own) throw new Error("The demo's Bluebird engagement on Zoho Books is missing.");
      // What the pages would show: engagement references (every organisation's on the list), the
      // handed-over companies, the people and organisations of the admin pages.
      const markers = [...all.items.map((e) => e.reference), "Bluebird Repairs", "Bluebird Home", "Acme Lending", "carol@acme.test", "sam@ferry.test", "Ferry sandbox"];
      const routes = [
        "/engagements",
        "/engagements?status=active",
        "/engagements/new",
        `/engagements/${own.id}`,
        `/engagements/${own.id}?tab=activity`,
        `/engagements/${own.id}?section=handover`,
        `/engagements/${own.id}/handover`,
        `/engagements/${own.id}/handover?part=1`,
        "/admin/users",
        "/admin/organizations",
        "/admin/invitations",
        "/admin/targets",
        "/admin/outbox",
      ];
      for (const route of routes) {
        const response = await dan.get(route, { maxRedirects: 0 });
        const body = await response.text();
        expect([route, response.status()]).toEqual([route, 403]);
        for (const marker of markers) expect(body.includes(marker), `${route} carries ${marker}`).toBe(false);
      }
    } finally {
      await admin.dispose();
      await dan.dispose();
    }
  });

  test("answers support 403 on every admin route, with none of the page's data in the body", async ({ playwright }) => {
    const sam = await signedIn(playwright, DEMO.sam);
    try {
      for (const route of ["/admin/users", "/admin/organizations", "/admin/invitations", "/admin/targets", "/admin/outbox"]) {
        const response = await sam.get(route, { maxRedirects: 0 });
        const body = await response.text();
        expect([route, response.status()]).toEqual([route, 403]);
        // Emails of the users list and the outbox's recipients; support sees neither.
        for (const marker of ["carol@acme.test", "dan@bluebird.test", "priya@ferry.test"]) expect(body.includes(marker), `${route} carries ${marker}`).toBe(false);
      }
    } finally {
      await sam.dispose();
    }
  });
});

test("a malformed percent-escape in a path answers 400, signed in or not", async ({ playwright }) => {
  const paths = ["/api/engagements/%ff/handover-report", "/api/trpc/%ff", "/engagements/%ff", "/portal/engagements/%ff"];
  for (const who of [null, DEMO.sam, DEMO.dan]) {
    const context = await signedIn(playwright, who);
    try {
      for (const path of paths) {
        const response = await context.get(path, { maxRedirects: 0 });
        expect([who?.email ?? "signed out", path, response.status()]).toEqual([who?.email ?? "signed out", path, 400]);
      }
    } finally {
      await context.dispose();
    }
  }
});
