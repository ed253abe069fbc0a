/**
 * The Link flow behind a company's `redirect` and a connection's `linkUrl`, over real HTTP: the
 * page shows the company, each connection's platform and status; Connect (the end customer's
 * consent) issues new tokens for the connection's account and links it, so a sync completes with
 * that account's data; the controls do the same without a browser; a drop (now or on the sandbox
 * clock) leaves the connection Deauthorized in the platform's words until Link restores it.
 */
import { decodeHtml as decode, linkBrowser } from "@/server/testing/link-browser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGED_PLATFORMS, tokenRefusalFamily, type PlatformKey } from "../../platforms";
import { call, createCompany, createConnection, str, syncAndFinish, UUID } from "@/server/testing/raw-http";
import { startTestSandbox, type ConnectionJson, type TestSandbox } from "@/server/testing/test-sandbox";
import { LINK_NONCE_LIFETIME_MS, makeLinkNonce } from "./link-nonce";

let sb: TestSandbox;
let apiKey: string;

beforeAll(async () => {
  sb = await startTestSandbox({ basePath: "/codat" });
  ({ apiKey } = await sb.control.createClient({ plan: "paid" }));
});

afterAll(async () => {
  await sb.close();
});

const origin = () => new URL(sb.url).origin;

const { open, submit } = linkBrowser(origin);

/** The page's forms: action and hidden nonce, in page order. */
function forms(html: string): { action: string; nonce: string; button: string }[] {
  return [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*><input type="hidden" name="nonce" value="([^"]+)">[\s\S]*?<button type="submit">([^<]+)<\/button><\/form>/g)].map(
    (m) => ({ action: decode(m[1] ?? ""), nonce: decode(m[2] ?? ""), button: m[3] ?? "" }),
  );
}

async function connectionJson(companyId: string, connectionId: string): Promise<ConnectionJson> {
  const got = await call(sb, { path: `/companies/${companyId}/connections/${connectionId}`, apiKey });
  expect(got.status).toBe(200);
  return got.json as ConnectionJson;
}

async function companyRedirect(companyId: string): Promise<string> {
  const got = await call(sb, { path: `/companies/${companyId}`, apiKey });
  return str(got.json, "redirect");
}

async function linkUrlOf(companyId: string, connectionId: string): Promise<string> {
  return (await connectionJson(companyId, connectionId)).linkUrl;
}

/** Syncs everything and reads the accounting company info: whose data the connection now brings. */
async function syncedAccount(companyId: string): Promise<string> {
  const queued = await call(sb, { method: "POST", path: `/companies/${companyId}/data/all`, apiKey });
  expect(queued.status).toBe(204);
  await sb.control.advanceClock({ seconds: 600 });
  const statuses = await call(sb, { path: `/companies/${companyId}/dataStatus`, apiKey });
  const current = Object.values(statuses.json as Record<string, { currentStatus: string }>).map((s) => s.currentStatus);
  expect(new Set(current.filter((s) => s !== "NotSupported"))).toEqual(new Set(["Complete"]));
  const info = await call(sb, { path: `/companies/${companyId}/data/info`, apiKey });
  expect(info.status).toBe(200);
  return str(info.json, "accountingPlatformRef");
}

/** A company whose migration failed: its tenant's old app refreshed after the export. */
async function rotatedCompany(platformKey: PlatformKey, name = "Harbour Books") {
  const tenant = await sb.control.createTenant(platformKey, { name, records: 7 });
  await sb.control.rotate(platformKey, tenant.tenantId);
  const companyId = await createCompany(sb, apiKey, name);
  const connectionId = await createConnection(sb, apiKey, companyId, platformKey);
  const refused = await call(sb, {
    method: "PUT",
    path: `/companies/${companyId}/connections/${connectionId}/authorization`,
    apiKey,
    body: tenant.credentials,
  });
  expect(refused.json).toMatchObject({ status: "Deauthorized" });
  return { tenant, companyId, connectionId };
}

describe("the company's Link page", () => {
  it("is the company's redirect: its name, each connection's platform and status, in an accessible page", async () => {
    const { companyId, connectionId } = await rotatedCompany("qhyg", "Smith & Jones's Books");
    const redirect = await companyRedirect(companyId);
    expect(redirect).toBe(`${sb.url}/link/company/${companyId}`);
    const page = await open(redirect);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.html).toMatch(/^<!doctype html><html lang="en">/);
    expect(page.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page.html).toMatch(/<main>[\s\S]*<\/main>/);
    // The name is escaped, never markup.
    expect(page.html).toContain("<h1>Connect Smith &amp; Jones&#39;s Books</h1>");
    expect(page.html).toContain("<h3 id=\"connection-" + connectionId + "\">QuickBooks Online</h3>");
    expect(page.html).toContain('Status: <span class="status s-Deauthorized">Deauthorized</span>');
    expect(page.html).toContain("QuickBooks Online no longer gives access. Connect again to restore it.");
    // The platform's words, for the curious.
    expect(page.html).toContain("<summary>What QuickBooks Online said</summary>");
    expect(page.html).toContain("invalid_grant: the refresh token was already used.");
    expect(forms(page.html)).toEqual([
      { action: `/codat/link/company/${companyId}/connections/${connectionId}/connect`, nonce: expect.any(String), button: "Connect QuickBooks Online" },
    ]);
    expect(page.html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it("carries headers that keep the company id private: not cached, not indexed, not framed, no referrer", async () => {
    const companyId = await createCompany(sb, apiKey, "Private Ltd");
    const page = await open(`/codat/link/company/${companyId}`);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self'");
    expect(page.headers.get("x-correlation-id")).toMatch(UUID);
  });

  it("answers an unknown company, connection or address with a 404 page in words", async () => {
    const unknown = await open("/codat/link/company/6f0e7c1e-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(unknown.html).toContain("<h1>No company at this address</h1>");
    expect(unknown.html).toContain("There is no company with the ID 6f0e7c1e-0000-4000-8000-000000000000 here, so there is nothing to connect.");

    const companyId = await createCompany(sb, apiKey, "Lonely Ltd");
    const noConnection = await open(`/codat/link/companies/${companyId}/connections/6f0e7c1e-0000-4000-8000-000000000001/start`);
    expect(noConnection.status).toBe(404);
    expect(noConnection.html).toContain("<h1>No such connection</h1>");

    const nowhere = await open("/codat/link/elsewhere");
    expect(nowhere.status).toBe(404);
    expect(nowhere.html).toContain("<h1>Nothing here</h1>");

    const injected = await open(`/codat/link/company/${encodeURIComponent("<b>x</b>")}`);
    expect(injected.status).toBe(404);
    expect(injected.html).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(injected.html).not.toContain("<b>x</b>");

    const wrongMethod = await fetch(`${origin()}/codat/link/company/${companyId}`, { method: "PUT" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
  });

  it("a connection's linkUrl opens the consent for that one connection", async () => {
    const { companyId, connectionId, tenant } = await rotatedCompany("pbtz", "Wave Single");
    const page = await open(await linkUrlOf(companyId, connectionId));
    expect(page.status).toBe(200);
    expect(page.html).toContain("<h1>Connect Wave for Wave Single</h1>");
    expect(page.html).toContain(`<a href="/codat/link/company/${companyId}">All of Wave Single's connections</a>`);
    const [form] = forms(page.html);
    expect(form?.action).toBe(`/codat/link/company/${companyId}/connections/${connectionId}/connect`);
    const done = await submit(form?.action ?? "", { nonce: form?.nonce ?? "" });
    expect(done.status).toBe(303);
    expect((await connectionJson(companyId, connectionId)).status).toBe("Linked");
    expect(await syncedAccount(companyId)).toBe(tenant.tenantId);
  });
});

describe("Connect: the end customer's consent", () => {
  it.each(MANAGED_PLATFORMS.map((p) => [p.key, p.name] as const))(
    "%s (%s): links the connection with new tokens for its account; the page confirms; a sync completes with that account's data",
    async (platformKey, platformName) => {
      const { tenant, companyId, connectionId } = await rotatedCompany(platformKey, `${platformName} Customer`);
      const page = await open(await companyRedirect(companyId));
      const [form] = forms(page.html);
      expect(form?.button).toBe(`Connect ${platformName}`);

      const done = await submit(form?.action ?? "", { nonce: form?.nonce ?? "" });
      expect(done.status).toBe(303);
      const location = done.headers.get("location") ?? "";
      expect(location).toBe(`/codat/link/company/${companyId}?connected=${connectionId}`);

      const confirmed = await open(location);
      expect(confirmed.html).toContain('<section class="done" role="status" aria-labelledby="done-heading"><h2 id="done-heading">Connected</h2>');
      expect(confirmed.html).toContain(`Your ${platformName} account is connected to`);
      expect(confirmed.html).toContain('Status: <span class="status s-Linked">Linked</span>');
      expect(forms(confirmed.html)).toEqual([]);

      const connection = await connectionJson(companyId, connectionId);
      expect(connection.status).toBe("Linked");
      // The refusal stays on record, resolved, as after any successful authorization.
      expect(connection.dataConnectionErrors).toEqual([expect.objectContaining({ status: "Resolved", resolvedOnUtc: expect.any(String) })]);
      const state = (await sb.control.state()) as { tenants: { tenantId: string; identity: Record<string, string> }[] };
      expect(connection.connectionInfo ?? {}).toEqual(state.tenants.find((t) => t.tenantId === tenant.tenantId)?.identity);
      if (platformKey === "fztf") {
        const queued = await call(sb, { method: "POST", path: `/companies/${companyId}/data/all`, apiKey });
        expect(queued.status).toBe(204);
        await sb.control.advanceClock({ seconds: 600 });
        const info = await call(sb, { path: `/companies/${companyId}/connections/${connectionId}/data/commerce-info`, apiKey });
        expect(str(info.json, "commercePlatformRef")).toBe(tenant.tenantId);
      } else {
        expect(await syncedAccount(companyId)).toBe(tenant.tenantId);
      }
      // Only the service got new tokens: the customer's own rotated credentials stay refused.
      const elsewhere = await createCompany(sb, apiKey, "Elsewhere");
      const elsewhereConnection = await createConnection(sb, apiKey, elsewhere, platformKey);
      const reused = await call(sb, {
        method: "PUT",
        path: `/companies/${elsewhere}/connections/${elsewhereConnection}/authorization`,
        apiKey,
        body: tenant.credentials,
      });
      expect(reused.json).toMatchObject({ status: "Deauthorized" });
    },
  );

  it("refuses a Connect without this page's nonce, and changes nothing", async () => {
    const { companyId, connectionId } = await rotatedCompany("fbrh", "Forged Ltd");
    const other = await createCompany(sb, apiKey, "Other Ltd");
    const action = `/codat/link/company/${companyId}/connections/${connectionId}/connect`;
    const stale = makeLinkNonce({ secret: "not-this-sandbox", companyId });
    const attempts: Record<string, string>[] = [{}, { nonce: "" }, { nonce: "123.abc" }, { nonce: stale }];
    for (const fields of attempts) {
      const refused = await submit(action, fields);
      expect(refused.status).toBe(403);
      expect(refused.html).toContain("<h1>This page has expired</h1>");
      expect(refused.html).toContain("nothing was changed");
    }
    // Another company's page nonce does not connect this one.
    const otherPage = await open(`/codat/link/company/${other}`);
    const otherFormNonce = /name="nonce" value="([^"]+)"/.exec(otherPage.html)?.[1] ?? "";
    expect((await submit(action, { nonce: decode(otherFormNonce) })).status).toBe(403);
    expect((await connectionJson(companyId, connectionId)).status).toBe("Deauthorized");
  });

  it("a page's nonce works once: a replayed Connect changes nothing", async () => {
    const companyId = await createCompany(sb, apiKey, "Replayed Ltd");
    const page = await open(`/codat/link/company/${companyId}`);
    const nonce = decode(/name="nonce" value="([^"]+)"/.exec(page.html)?.[1] ?? "");
    const action = `/codat/link/company/${companyId}/connect`;
    expect((await submit(action, { nonce, platformKey: "fztf" })).status).toBe(303);
    // The same post again (commerce allows several connections: a second one would be made).
    const replayed = await submit(action, { nonce, platformKey: "fztf" });
    expect(replayed.status).toBe(403);
    expect(replayed.html).toContain("<h1>This page has expired</h1>");
    expect(replayed.html).toContain("already used");
    const connections = await call(sb, { path: `/companies/${companyId}/connections`, apiKey });
    expect((connections.json as { results: ConnectionJson[] }).results).toHaveLength(1);
  });

  it("refuses a Connect from another site by its Origin or Sec-Fetch-Site, as Ferry's own forms do", async () => {
    const companyId = await createCompany(sb, apiKey, "Cross Site Ltd");
    const action = `/codat/link/company/${companyId}/connect`;
    const freshNonce = async () => decode(/name="nonce" value="([^"]+)"/.exec((await open(`/codat/link/company/${companyId}`)).html)?.[1] ?? "");
    for (const headers of [{ Origin: "https://evil.example" }, { Origin: "null" }, { "Sec-Fetch-Site": "cross-site" }, { "Sec-Fetch-Site": "same-site", Origin: "http://other.localhost:4010" }] as Record<string, string>[]) {
      const refused = await submit(action, { nonce: await freshNonce(), platformKey: "fztf" }, headers);
      expect([headers, refused.status]).toEqual([headers, 403]);
      expect(refused.html).toContain("did not come from this site");
    }
    expect(((await call(sb, { path: `/companies/${companyId}/connections`, apiKey })).json as { results: ConnectionJson[] }).results).toHaveLength(0);
    // The sandbox's own pages: its origin, or a browser's same-origin (a company each: a Linked one shows no form).
    expect((await submit(action, { nonce: await freshNonce(), platformKey: "fztf" }, { Origin: origin() })).status).toBe(303);
    const second = await createCompany(sb, apiKey, "Same Origin Ltd");
    const page = await open(`/codat/link/company/${second}`);
    const nonce = decode(/name="nonce" value="([^"]+)"/.exec(page.html)?.[1] ?? "");
    expect((await submit(`/codat/link/company/${second}/connect`, { nonce, platformKey: "fztf" }, { "Sec-Fetch-Site": "same-origin" })).status).toBe(303);
  });

  it("a nonce is good for two hours of real time, whatever the sandbox clock does", async () => {
    const { companyId, connectionId } = await rotatedCompany("rwuv", "Slow Reader");
    const [form] = forms((await open(`/codat/link/company/${companyId}`)).html);
    await sb.control.advanceClock({ days: 30 });
    expect((await submit(form?.action ?? "", { nonce: form?.nonce ?? "" })).status).toBe(303);
    const old = await open(`/codat/link/company/${companyId}`);
    expect(old.status).toBe(200);
    const expiredNonce = (form?.nonce ?? "").replace(/^\d+/, String(Date.now() - LINK_NONCE_LIFETIME_MS - 1000));
    expect((await submit(form?.action ?? "", { nonce: expiredNonce })).status).toBe(403);
    expect((await connectionJson(companyId, connectionId)).status).toBe("Linked");
  });

  it("a company with no connection shows the six platforms; choosing one creates a Linked connection on a new account", async () => {
    const companyId = await createCompany(sb, apiKey, "Fresh Start Ltd");
    const page = await open(`/codat/link/company/${companyId}`);
    expect(page.html).toContain("<h2>Choose your platform</h2>");
    expect(page.html).toContain("<legend>Which platform holds Fresh Start Ltd's books?</legend>");
    for (const p of MANAGED_PLATFORMS) {
      expect(page.html).toContain(`<input type="radio" id="platform-${p.key}" name="platformKey" value="${p.key}" required><label for="platform-${p.key}">${p.name}</label>`);
    }
    const nonce = decode(/name="nonce" value="([^"]+)"/.exec(page.html)?.[1] ?? "");
    const action = `/codat/link/company/${companyId}/connect`;
    expect(page.html).toContain(`action="${action}"`);

    const none = await submit(action, { nonce });
    expect(none.status).toBe(400);
    expect(none.html).toContain('<fieldset aria-describedby="choice-problem">');
    expect(none.html).toContain('<p class="problem" id="choice-problem">Choose the platform that holds your books, then press Connect.</p>');
    // Each page's nonce works once: the page shown again carries a new one.
    const nonceOf = (html: string) => decode(/name="nonce" value="([^"]+)"/.exec(html)?.[1] ?? "");
    const unknown = await submit(action, { nonce: nonceOf(none.html), platformKey: "gbol" });
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain("The sandbox does not simulate the platform &quot;gbol&quot;");

    const chosen = await submit(action, { nonce: nonceOf(unknown.html), platformKey: "vxvy" });
    expect(chosen.status).toBe(303);
    const connections = await call(sb, { path: `/companies/${companyId}/connections`, apiKey });
    const [connection] = (connections.json as { results: ConnectionJson[] }).results;
    expect(connection).toMatchObject({ status: "Linked", integrationKey: "vxvy", platformName: "FreshBooks", connectionInfo: { accountId: expect.any(String) } });
    expect(chosen.headers.get("location")).toBe(`/codat/link/company/${companyId}?connected=${connection?.id}`);
    const state = (await sb.control.state()) as { tenants: { tenantId: string; name: string; platformKey: string }[] };
    const account = await syncedAccount(companyId);
    expect(state.tenants.find((t) => t.tenantId === account)).toMatchObject({ name: "Fresh Start Ltd", platformKey: "vxvy" });
  });

  it("keeps the one-accounting-connection rule, saying so on a page", async () => {
    const companyId = await createCompany(sb, apiKey, "Two Books Ltd");
    const qbo = await createConnection(sb, apiKey, companyId, "qhyg");
    const qboTenant = await sb.control.createTenant("qhyg", { name: "Two Books Ltd" });
    await call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${qbo}/authorization`, apiKey, body: qboTenant.credentials });
    expect((await call(sb, { method: "PATCH", path: `/companies/${companyId}/connections/${qbo}`, apiKey, body: { status: "Unlinked" } })).status).toBe(200);
    const freeAgent = await createConnection(sb, apiKey, companyId, "fbrh");
    expect((await sb.control.link(companyId, freeAgent)).connection.status).toBe("Linked");

    const page = await open(`/codat/link/company/${companyId}`);
    expect(page.html).toContain('Status: <span class="status s-Unlinked">Unlinked</span>');
    const qboForm = forms(page.html).find((f) => f.button === "Connect QuickBooks Online");
    const refused = await submit(qboForm?.action ?? "", { nonce: qboForm?.nonce ?? "" });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain("<h1>QuickBooks Online cannot be connected</h1>");
    expect(refused.html).toContain(`Company ${companyId} already has an active accounting connection (${freeAgent}, FreeAgent, Linked)`);
    expect((await connectionJson(companyId, qbo)).status).toBe("Unlinked");
  });
});

describe("the link controls", () => {
  it("link: the same consent without a browser — Linked with new tokens for the connection's account, and a sync completes", async () => {
    const { tenant, companyId, connectionId } = await rotatedCompany("vxvy", "Control Linked");
    const result = await sb.control.link(companyId, connectionId);
    expect(result).toMatchObject({ companyId, tenantId: tenant.tenantId, connection: { id: connectionId, status: "Linked" } });
    expect(result.connection.linkUrl).toBe(`${sb.url}/link/companies/${companyId}/connections/${connectionId}/start`);
    expect(await syncedAccount(companyId)).toBe(tenant.tenantId);
  });

  it("link on a connection that never knew its account (PendingAuth) connects a new one named after the company", async () => {
    const companyId = await createCompany(sb, apiKey, "Pending Partners");
    const connectionId = await createConnection(sb, apiKey, companyId, "rwuv");
    const result = await sb.control.link(companyId, connectionId);
    expect(result.connection).toMatchObject({ status: "Linked", connectionInfo: { organizationId: expect.stringMatching(/^\d+$/) } });
    const state = (await sb.control.state()) as { tenants: { tenantId: string; name: string }[] };
    expect(state.tenants.find((t) => t.tenantId === result.tenantId)?.name).toBe("Pending Partners");
  });

  it("linkNewConnection: a company without a connection gets a Linked one on a new account", async () => {
    const companyId = await createCompany(sb, apiKey, "New Shop");
    const result = await sb.control.linkNewConnection(companyId, "fztf");
    expect(result.connection).toMatchObject({ status: "Linked", integrationKey: "fztf", connectionInfo: { shopDomain: expect.stringMatching(/^new-shop-[0-9a-f]{4}\.myshopify\.com$/) } });
    // The connection is the company's client's, as any other: its key sees it, another client's does not.
    const path = `/companies/${companyId}/connections/${result.connection.id}`;
    expect((await call(sb, { path, apiKey })).json).toMatchObject({ status: "Linked" });
    const other = await sb.control.createClient({ plan: "paid" });
    expect((await call(sb, { path, apiKey: other.apiKey })).status).toBe(403);
  });

  it("answers 404 for an unknown company or a connection of another company, 409 for the accounting rule, 400 for a bad platform", async () => {
    const a = await createCompany(sb, apiKey, "A Ltd");
    const b = await createCompany(sb, apiKey, "B Ltd");
    const bConnection = await createConnection(sb, apiKey, b, "qhyg");
    await expect(sb.control.link("6f0e7c1e-0000-4000-8000-000000000000", bConnection)).rejects.toMatchObject({ status: 404 });
    await expect(sb.control.link(a, bConnection)).rejects.toMatchObject({ status: 404, body: expect.stringContaining(`No connection was found with ID ${bConnection} on company ${a}`) });
    await expect(sb.control.linkNewConnection(b, "fbrh")).rejects.toMatchObject({ status: 409, body: expect.stringContaining("already has an active accounting connection") });
    await expect(sb.control.linkNewConnection(a, "gbol" as PlatformKey)).rejects.toMatchObject({ status: 400 });
  });
});

describe("drops: a Linked connection loses its authorization at the platform", () => {
  it.each(MANAGED_PLATFORMS.map((p) => [p.key, p.name] as const))(
    "%s (%s): deauthorize → Deauthorized in the platform's words; a sync fails AuthError; Link → Connect restores it",
    async (platformKey, platformName) => {
      const tenant = await sb.control.createTenant(platformKey, { name: `${platformName} Dropper`, records: 6 });
      const companyId = await createCompany(sb, apiKey, `${platformName} Dropper`);
      const connectionId = await createConnection(sb, apiKey, companyId, platformKey);
      await call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey, body: tenant.credentials });

      const dropped = await sb.control.deauthorize(companyId, connectionId);
      expect(dropped).toMatchObject({ companyId, connectionId, reason: "revoked", applied: true, connection: { status: "Deauthorized" } });
      const connection = await connectionJson(companyId, connectionId);
      expect(connection.status).toBe("Deauthorized");
      const error = connection.dataConnectionErrors?.at(-1);
      expect(error).toMatchObject({ status: "Active", erroredOnUtc: dropped.at });
      expect(error?.errorMessage).toMatch(new RegExp(`^${platformName} rejected the credentials: .*was revoked: the end customer disconnected the app`));
      expect(tokenRefusalFamily(error?.errorMessage ?? "")).toBe("revoked");

      await syncAndFinish(sb, apiKey, companyId);
      const statuses = await call(sb, { path: `/companies/${companyId}/dataStatus`, apiKey });
      const current = new Set(Object.values(statuses.json as Record<string, { currentStatus: string }>).map((s) => s.currentStatus));
      current.delete("NotSupported");
      expect(current).toEqual(new Set(["AuthError"]));

      const page = await open(await companyRedirect(companyId));
      expect(page.html).toContain('Status: <span class="status s-Deauthorized">Deauthorized</span>');
      const [form] = forms(page.html);
      expect((await submit(form?.action ?? "", { nonce: form?.nonce ?? "" })).status).toBe(303);
      expect((await connectionJson(companyId, connectionId)).status).toBe("Linked");
      if (platformKey !== "fztf") expect(await syncedAccount(companyId)).toBe(tenant.tenantId);
    },
  );

  it("uninstalled: the platform's words say so", async () => {
    const tenant = await sb.control.createTenant("fztf", { name: "Uninstalled Shop" });
    const companyId = await createCompany(sb, apiKey, "Uninstalled Shop");
    const connectionId = await createConnection(sb, apiKey, companyId, "fztf");
    await call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey, body: tenant.credentials });
    const dropped = await sb.control.deauthorize(companyId, connectionId, { reason: "uninstalled" });
    expect(dropped.connection.dataConnectionErrors?.at(-1)).toMatchObject({
      statusCode: "401",
      statusText: "Unauthorized",
      errorMessage:
        "Shopify rejected the credentials: [API] Invalid API key or access token (unrecognized login or wrong password). The access token was revoked: the end customer uninstalled the app from their shop. Reauthorization is required.",
    });
  });

  it("at a later sandbox time: Linked until the clock gets there, then Deauthorized at that time; a sync running across it ends AuthError", async () => {
    const tenant = await sb.control.createTenant("qhyg", { name: "Scheduled Drop", records: 50_000 });
    const companyId = await createCompany(sb, apiKey, "Scheduled Drop");
    const connectionId = await createConnection(sb, apiKey, companyId, "qhyg");
    await call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey, body: tenant.credentials });
    const clock = await sb.control.advanceClock({});
    const at = new Date(Date.parse(clock.now) + 2 * 86_400_000).toISOString();

    const scheduled = await sb.control.deauthorize(companyId, connectionId, { at });
    expect(scheduled).toMatchObject({ applied: false, at, dropId: expect.stringMatching(UUID), connection: { status: "Linked" } });
    expect(((await sb.control.state()) as { drops: unknown[] }).drops).toContainEqual({ dropId: scheduled.dropId, companyId, connectionId, at, reason: "revoked", applied: false });

    await sb.control.advanceClock({ days: 1 });
    expect((await connectionJson(companyId, connectionId)).status).toBe("Linked");
    // A big sync (26 types × 50,000 records ≈ 100 s each) queued shortly before the drop runs across it.
    await sb.control.advanceClock({ seconds: 86_400 - 30 });
    expect((await call(sb, { method: "POST", path: `/companies/${companyId}/data/all`, apiKey })).status).toBe(204);
    await sb.control.advanceClock({ seconds: 3600 });

    const connection = await connectionJson(companyId, connectionId);
    expect(connection.status).toBe("Deauthorized");
    expect(connection.dataConnectionErrors?.at(-1)).toMatchObject({ status: "Active", erroredOnUtc: at });
    const invoices = await call(sb, { path: `/companies/${companyId}/dataStatus`, apiKey });
    expect((invoices.json as Record<string, { currentStatus: string }>).invoices?.currentStatus).toBe("AuthError");
    expect(((await sb.control.state()) as { drops: { dropId: string; applied: boolean }[] }).drops.find((d) => d.dropId === scheduled.dropId)?.applied).toBe(true);
  });

  it("a scheduled drop shows on the Link page once the clock passes it, without any API call", async () => {
    const linked = await sb.control.linkNewConnection(await createCompany(sb, apiKey, "Page Watcher"), "rwuv");
    const clock = await sb.control.advanceClock({});
    await sb.control.deauthorize(linked.companyId, linked.connection.id, { at: new Date(Date.parse(clock.now) + 3_600_000).toISOString() });
    expect((await open(`/codat/link/company/${linked.companyId}`)).html).toContain('Status: <span class="status s-Linked">Linked</span>');
    await sb.control.advanceClock({ seconds: 3601 });
    expect((await open(`/codat/link/company/${linked.companyId}`)).html).toContain('Status: <span class="status s-Deauthorized">Deauthorized</span>');
  });

  it("a drop takes every connection on the same account (the grant is revoked), not others", async () => {
    const tenant = await sb.control.createTenant("fbrh", { name: "Shared Account" });
    const companies: { companyId: string; connectionId: string }[] = [];
    for (const name of ["Shared One", "Shared Two"]) {
      const companyId = await createCompany(sb, apiKey, name);
      const connectionId = await createConnection(sb, apiKey, companyId, "fbrh");
      await call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey, body: tenant.credentials });
      companies.push({ companyId, connectionId });
    }
    const bystander = await sb.control.linkNewConnection(await createCompany(sb, apiKey, "Bystander"), "fbrh");
    const [one, two] = companies;
    await sb.control.deauthorize(one?.companyId ?? "", one?.connectionId ?? "");
    expect((await connectionJson(two?.companyId ?? "", two?.connectionId ?? "")).status).toBe("Deauthorized");
    expect((await connectionJson(bystander.companyId, bystander.connection.id)).status).toBe("Linked");
  });

  it("refuses a time in the past (400), a connection that is not Linked (409), unknown ones (404)", async () => {
    const { companyId, connectionId } = await rotatedCompany("qhyg", "Not Linked");
    await expect(sb.control.deauthorize(companyId, connectionId)).rejects.toMatchObject({ status: 409, body: expect.stringContaining("only a Linked connection can lose its authorization") });
    const linked = await sb.control.link(companyId, connectionId);
    await expect(sb.control.deauthorize(companyId, linked.connection.id, { at: "2000-01-01T00:00:00Z" })).rejects.toMatchObject({ status: 400, body: expect.stringContaining("a drop cannot happen in the past") });
    await expect(sb.control.deauthorize(companyId, connectionId, { reason: "bored" as "revoked" })).rejects.toMatchObject({ status: 400 });
    await expect(sb.control.deauthorize("6f0e7c1e-0000-4000-8000-000000000000", connectionId)).rejects.toMatchObject({ status: 404 });
    expect((await connectionJson(companyId, connectionId)).status).toBe("Linked");
  });
});
