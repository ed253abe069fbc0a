import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { DEMO, signInWithApi, test as appTest, TrpcApi } from "./fixtures";

test.describe("security headers", () => {
  test("pages carry a nonce-based CSP that forbids framing, and the static headers", async ({ page }) => {
    const response = await page.goto("/login");
    const headers = response!.headers();
    const csp = headers["content-security-policy"] ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(csp).toContain("object-src 'none'");
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("no-referrer");
    // Served over plain http here: HSTS would be ignored, and is not sent.
    expect(headers["strict-transport-security"]).toBeUndefined();

    // A fresh nonce per request.
    const again = (await page.request.get("/login")).headers()["content-security-policy"];
    expect(again).not.toBe(csp);
  });

  test("API answers and static files carry the static headers", async ({ request }) => {
    const api = await request.get("/api/auth/csrf");
    expect(api.headers()).toMatchObject({ "x-frame-options": "DENY", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" });
    expect(api.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  test("the console works under the policy: nothing is blocked on its pages", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    await page.goto("/login");
    await page.getByLabel("Email").fill(DEMO.admin.email);
    await page.getByLabel("Password").fill(DEMO.admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/portfolio");
    for (const path of ["/portfolio", "/engagements", "/engagements/new", "/admin/users", "/admin/outbox", "/admin/targets"]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    }
    // Client-side navigation works (the scripts ran).
    await page.getByRole("link", { name: "Engagements", exact: true }).click();
    await expect(page).toHaveURL(/\/engagements$/);
    expect(violations).toEqual([]);
  });

  test("a page on another site cannot show the console in a frame", async ({ page, baseURL }) => {
    // Another origin (its own port) on this machine, so the browser's local-network rules play
    // no part: only Ferry's headers can stop the frame.
    const html = `<!doctype html><title>framing</title><iframe src="${baseURL}/login" onload="document.title='framed'"></iframe>`;
    const other = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(html));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      await expect(page).toHaveTitle("framed");
      const framed = page.frameLocator("iframe");
      await expect(framed.getByRole("heading", { name: "Sign in to Ferry" })).toHaveCount(0);
      await expect(framed.getByLabel("Password")).toHaveCount(0);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

appTest.describe("sessions", () => {
  appTest("a cookie copied before sign-out no longer works after it", async ({ factory, baseURL }) => {
    const org = await factory.organization("Session Org");
    const user = await factory.customerUser(org);

    const browser = await playwrightRequest.newContext({ baseURL });
    await signInWithApi(browser, user);
    const copied = await browser.storageState();
    const thief = await playwrightRequest.newContext({ baseURL, storageState: copied });
    expect(await new TrpcApi(thief).query("me.get")).toMatchObject({ email: user.email });

    // The person signs out in their browser.
    const { csrfToken } = (await (await browser.get("/api/auth/csrf")).json()) as { csrfToken: string };
    expect((await browser.post("/api/auth/signout", { form: { csrfToken, json: "true" } })).ok()).toBe(true);

    const refused = await thief.get("/api/trpc/me.get");
    expect(refused.status()).toBe(401);
    expect(((await refused.json()) as { error: { json: { data: { code: string } } } }).error.json.data.code).toBe("UNAUTHORIZED");
    expect(await (await thief.get("/api/auth/session")).json()).toEqual({});
    await browser.dispose();
    await thief.dispose();
  });
});

appTest.describe("sign out everywhere", () => {
  appTest("from a person's own menu ends their other sessions too", async ({ page, factory, baseURL }) => {
    const org = await factory.organization("Everywhere Org");
    const user = await factory.customerUser(org);
    const elsewhere = await playwrightRequest.newContext({ baseURL });
    await signInWithApi(elsewhere, user);
    expect((await elsewhere.get("/api/trpc/me.get")).status()).toBe(200);

    await signInWithApi(page.request, user);
    await page.goto("/portal");
    await page.getByRole("button", { name: /^Account:/ }).click();
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.waitForURL("**/login");
    expect((await elsewhere.get("/api/trpc/me.get")).status()).toBe(401);
    await elsewhere.dispose();
  });

  appTest("by an admin, on the users page, ends that person's sessions", async ({ page, factory, baseURL }) => {
    const org = await factory.organization("Signed Out Org");
    const user = await factory.customerUser(org);
    const theirs = await playwrightRequest.newContext({ baseURL });
    await signInWithApi(theirs, user);
    expect((await theirs.get("/api/trpc/me.get")).status()).toBe(200);

    await signInWithApi(page.request, DEMO.admin);
    await page.goto("/admin/users");
    const row = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: user.email });
    await row.getByRole("button", { name: `Sign out everywhere ${user.name}` }).click();
    await expect(page.getByText(`${user.name} is signed out everywhere.`)).toBeVisible();
    expect((await theirs.get("/api/trpc/me.get")).status()).toBe(401);
    await theirs.dispose();
  });
});

appTest.describe("request limits", () => {
  appTest("a mutation from another site is refused and changes nothing", async ({ adminApi }) => {
    const name = `Evil Org ${Date.now()}`;
    const response = await adminApi.request.post("/api/trpc/organizations.create", {
      data: { json: { name } },
      headers: { origin: "http://evil.test" },
    });
    expect(response.status()).toBe(403);
    const orgs = await adminApi.query<{ name: string }[]>("organizations.list");
    expect(orgs.map((o) => o.name)).not.toContain(name);
  });

  appTest("a body over 1 MB is refused with 413, and a batch of more than 20 calls with 400", async ({ adminApi }) => {
    const big = await adminApi.request.post("/api/trpc/organizations.create", { data: { json: { name: "x".repeat(2 * 1024 * 1024) } } });
    expect(big.status()).toBe(413);
    const paths = Array.from({ length: 21 }, () => "me.get").join(",");
    expect((await adminApi.request.get(`/api/trpc/${paths}?batch=1&input=%7B%7D`)).status()).toBe(400);
  });

  appTest("sign-in posts from another site are refused", async ({ request }) => {
    const { csrfToken } = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
    const response = await request.post("/api/auth/callback/credentials", {
      form: { csrfToken, email: DEMO.sam.email, password: DEMO.sam.password, json: "true" },
      headers: { origin: "http://evil.test" },
    });
    expect(response.status()).toBe(403);
  });
});
