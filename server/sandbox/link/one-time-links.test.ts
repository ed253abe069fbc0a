/**
 * One-time Link URLs (the client setting), over real HTTP: with it on, every company `redirect`
 * and connection `linkUrl` the API gives carries a fresh token; a token opens the Link pages, works
 * for one Connect and expires a day later on the sandbox clock; a missing or forged one is refused
 * (403), an expired or spent one too (410), each with a page in words and nothing connected. With
 * it off the sandbox behaves as before. The controls set and report it; the demo client has it on.
 */
import { linkBrowser, onlyPostForm as onlyForm, postForms as forms, type LinkPage } from "@/server/testing/link-browser";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, createCompany, createConnection, str } from "@/server/testing/raw-http";
import { startTestSandbox, type ConnectionJson, type TestSandbox } from "@/server/testing/test-sandbox";
import { createControlClient } from "../controls/control-client";
import { createSandbox } from "../server";
import { LINK_TOKEN_LIFETIME_MS, makeLinkToken } from "./link-token";

let sb: TestSandbox;
/** A client with one-time Link URLs on, and one with the setting as it comes (off). */
let oneTime: { clientId: string; apiKey: string };
let plain: { clientId: string; apiKey: string };

beforeAll(async () => {
  sb = await startTestSandbox({ basePath: "/codat" });
  oneTime = await sb.control.createClient({ plan: "paid", oneTimeLinkUrls: true });
  plain = await sb.control.createClient({ plan: "paid" });
});

afterAll(async () => {
  await sb.close();
});

const origin = () => new URL(sb.url).origin;

const { open, submit } = linkBrowser(origin);

const TOKEN = /^\d{13,15}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/;

/** The token of a Link address, or null when it has none. */
function tokenOf(url: string): string | null {
  return new URL(url).searchParams.get("token");
}

async function redirectOf(apiKey: string, companyId: string): Promise<string> {
  const got = await call(sb, { path: `/companies/${companyId}`, apiKey });
  expect(got.status).toBe(200);
  return str(got.json, "redirect");
}

async function connectionsOf(apiKey: string, companyId: string): Promise<ConnectionJson[]> {
  const got = await call(sb, { path: `/companies/${companyId}/connections`, apiKey });
  return (got.json as { results: ConnectionJson[] }).results;
}

/** A company with a Deauthorized QuickBooks Online connection (its tenant's tokens rotated), so its page has a Connect button. */
async function deauthorizedCompany(apiKey: string, name: string) {
  const tenant = await sb.control.createTenant("qhyg", { name, records: 3 });
  await sb.control.rotate("qhyg", tenant.tenantId);
  const companyId = await createCompany(sb, apiKey, name);
  const connectionId = await createConnection(sb, apiKey, companyId, "qhyg");
  const refused = await call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey, body: tenant.credentials });
  expect(refused.json).toMatchObject({ status: "Deauthorized" });
  return { companyId, connectionId };
}

function expectRefused(page: LinkPage, status: 403 | 410, heading: string): void {
  expect(page.status).toBe(status);
  expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(page.headers.get("cache-control")).toBe("no-store");
  expect(page.html).toContain(`<h1>${heading}</h1>`);
  expect(page.html).toContain("Nothing was connected.");
  expect(page.html).toContain("Ask the business that sent you the link for a new one.");
  expect(forms(page.html)).toEqual([]);
}

describe("the control API", () => {
  it("creates a client with the setting (off unless asked), reports it, changes it and keeps the rest", async () => {
    expect(oneTime).toMatchObject({ oneTimeLinkUrls: true, syncs: "timed" });
    expect(plain).toMatchObject({ oneTimeLinkUrls: false });
    expect(await sb.control.getClientSettings(oneTime.clientId)).toEqual({ clientId: oneTime.clientId, oneTimeLinkUrls: true });
    expect(await sb.control.getClientSettings(plain.clientId)).toEqual({ clientId: plain.clientId, oneTimeLinkUrls: false });

    const client = await sb.control.createClient({ plan: "free", syncs: "instant" });
    expect(await sb.control.setClientSettings(client.clientId, { oneTimeLinkUrls: true })).toEqual({ clientId: client.clientId, oneTimeLinkUrls: true });
    // A setting left out stays as it is.
    expect(await sb.control.setClientSettings(client.clientId, {})).toEqual({ clientId: client.clientId, oneTimeLinkUrls: true });
    const state = (await sb.control.state()) as { clients: { clientId: string; oneTimeLinkUrls: boolean; syncs: string }[] };
    expect(state.clients.find((c) => c.clientId === client.clientId)).toMatchObject({ oneTimeLinkUrls: true, syncs: "instant" });
    expect(state.clients.find((c) => c.clientId === plain.clientId)).toMatchObject({ oneTimeLinkUrls: false });
    expect(await sb.control.setClientSettings(client.clientId, { oneTimeLinkUrls: false })).toEqual({ clientId: client.clientId, oneTimeLinkUrls: false });
  });

  it("refuses an unknown client (404) and a bad body (400)", async () => {
    const unknown = "6f0e7c1e-0000-4000-8000-000000000000";
    await expect(sb.control.setClientSettings(unknown, { oneTimeLinkUrls: true })).rejects.toMatchObject({ status: 404 });
    await expect(sb.control.getClientSettings(unknown)).rejects.toMatchObject({ status: 404 });
    const auth = `Bearer ${sb.adminToken}`;
    const notBoolean = await call(sb, { method: "PUT", path: `/_sandbox/clients/${plain.clientId}/settings`, auth, body: { oneTimeLinkUrls: "yes" } });
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.json).toMatchObject({ service: "SandboxControls", validation: { errors: [{ itemId: "oneTimeLinkUrls" }] } });
    const unknownSetting = await call(sb, { method: "PUT", path: `/_sandbox/clients/${plain.clientId}/settings`, auth, body: { linkLifetime: 5 } });
    expect(unknownSetting.status).toBe(400);
    const created = await call(sb, { method: "POST", path: "/_sandbox/clients", auth, body: { plan: "paid", oneTimeLinkUrls: 1 } });
    expect(created.status).toBe(400);
    expect(await sb.control.getClientSettings(plain.clientId)).toMatchObject({ oneTimeLinkUrls: false });
  });
});

describe("the API's Link addresses", () => {
  it("carry a fresh token in every answer with the setting on: company and connection, create, get and list, the link control", async () => {
    const created = await call(sb, { method: "POST", path: "/companies", apiKey: oneTime.apiKey, body: { name: "Token Ltd" } });
    const companyId = str(created.json, "id");
    const redirect = str(created.json, "redirect");
    expect(redirect).toMatch(new RegExp(`^${sb.url}/link/company/${companyId}\\?token=[^&]+$`));
    expect(tokenOf(redirect)).toMatch(TOKEN);

    const connection = await call(sb, { method: "POST", path: `/companies/${companyId}/connections`, apiKey: oneTime.apiKey, body: { platformKey: "fztf" } });
    const connectionId = str(connection.json, "id");
    const linkUrl = str(connection.json, "linkUrl");
    expect(linkUrl).toMatch(new RegExp(`^${sb.url}/link/companies/${companyId}/connections/${connectionId}/start\\?token=[^&]+$`));

    // Each read gives a new token: company get and list, its connections' linkUrls, the connection alone.
    const tokens = [tokenOf(redirect), tokenOf(linkUrl)];
    for (let i = 0; i < 3; i++) {
      const got = (await call(sb, { path: `/companies/${companyId}`, apiKey: oneTime.apiKey })).json as { redirect: string; dataConnections: ConnectionJson[] };
      tokens.push(tokenOf(got.redirect), tokenOf(got.dataConnections[0]?.linkUrl ?? ""));
    }
    const listed = (await call(sb, { path: "/companies?pageSize=100", apiKey: oneTime.apiKey })).json as { results: { id: string; redirect: string }[] };
    tokens.push(tokenOf(listed.results.find((c) => c.id === companyId)?.redirect ?? ""));
    const filtered = (await call(sb, { path: `/companies?query=${encodeURIComponent("name=Token Ltd")}`, apiKey: oneTime.apiKey })).json as { results: { redirect: string }[] };
    tokens.push(tokenOf(filtered.results[0]?.redirect ?? ""));
    tokens.push(tokenOf((await connectionsOf(oneTime.apiKey, companyId))[0]?.linkUrl ?? ""));
    tokens.push(tokenOf(str((await call(sb, { path: `/companies/${companyId}/connections/${connectionId}`, apiKey: oneTime.apiKey })).json, "linkUrl")));
    tokens.push(tokenOf((await sb.control.link(companyId, connectionId)).connection.linkUrl));
    for (const token of tokens) expect(token).toMatch(TOKEN);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it("carry no token with the setting off, the same address every time", async () => {
    const companyId = await createCompany(sb, plain.apiKey, "Plain Ltd");
    const connectionId = await createConnection(sb, plain.apiKey, companyId, "qhyg");
    const first = (await call(sb, { path: `/companies/${companyId}`, apiKey: plain.apiKey })).json as { redirect: string; dataConnections: ConnectionJson[] };
    const second = (await call(sb, { path: `/companies/${companyId}`, apiKey: plain.apiKey })).json as { redirect: string };
    expect(first.redirect).toBe(`${sb.url}/link/company/${companyId}`);
    expect(second.redirect).toBe(first.redirect);
    expect(first.dataConnections[0]?.linkUrl).toBe(`${sb.url}/link/companies/${companyId}/connections/${connectionId}/start`);
  });
});

describe("a one-time Link URL", () => {
  it("opens the company's page and works for one Connect: a second Connect with it is refused, and nothing changes", async () => {
    const companyId = await createCompany(sb, oneTime.apiKey, "Once Ltd");
    const redirect = await redirectOf(oneTime.apiKey, companyId);
    const token = tokenOf(redirect) ?? "";
    // Two pages opened with the same link (two tabs): each with its own nonce, both carrying the token.
    const first = await open(redirect);
    const second = await open(redirect);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.html).toContain("<h1>Connect Once Ltd</h1>");
    const [formA, formB] = [onlyForm(first.html), onlyForm(second.html)];
    expect({ action: formA.action, hidden: formA.hidden }).toEqual({ action: `/codat/link/company/${companyId}/connect`, hidden: { nonce: expect.any(String), token } });
    expect(formB.hidden.nonce).not.toBe(formA.hidden.nonce);

    const done = await submit(formA.action, { ...formA.hidden, platformKey: "fztf" });
    expect(done.status).toBe(303);
    const location = done.headers.get("location") ?? "";
    const [connection] = await connectionsOf(oneTime.apiKey, companyId);
    expect(location).toBe(`/codat/link/company/${companyId}?connected=${connection?.id}`);
    // The confirmation opens without the (now spent) token, and shows only that it worked.
    const confirmed = await open(location);
    expect(confirmed.status).toBe(200);
    expect(confirmed.html).toContain('<section class="done" role="status" aria-labelledby="done-heading"><h2 id="done-heading">Connected</h2>');
    expect(confirmed.html).toContain("Your Shopify account is connected to Once Ltd.");
    expect(forms(confirmed.html)).toEqual([]);
    expect(confirmed.html).not.toContain("Status:");

    // The other tab's Connect (a fresh nonce, the same link) would make a second Shopify connection.
    const again = await submit(formB.action, { ...formB.hidden, platformKey: "fztf" });
    expectRefused(again, 410, "This link was already used");
    expect(await connectionsOf(oneTime.apiKey, companyId)).toHaveLength(1);
    // The link no longer opens the page either; a new one from the API does.
    expectRefused(await open(redirect), 410, "This link was already used");
    expect((await open(await redirectOf(oneTime.apiKey, companyId))).status).toBe(200);
  });

  it("two Connects with the same link at once: one connects, the other is refused", async () => {
    const companyId = await createCompany(sb, oneTime.apiKey, "Race Ltd");
    const redirect = await redirectOf(oneTime.apiKey, companyId);
    const pages = await Promise.all([open(redirect), open(redirect), open(redirect)]);
    const answers = await Promise.all(pages.map((p) => onlyForm(p.html)).map((f) => submit(f.action, { ...f.hidden, platformKey: "fztf" })));
    expect(answers.map((a) => a.status).sort()).toEqual([303, 410, 410]);
    expect(await connectionsOf(oneTime.apiKey, companyId)).toHaveLength(1);
  });

  it("a connection's linkUrl opens that connection's page, carries the token through, connects once", async () => {
    const { companyId, connectionId } = await deauthorizedCompany(oneTime.apiKey, "Start Page Ltd");
    const linkUrl = str((await call(sb, { path: `/companies/${companyId}/connections/${connectionId}`, apiKey: oneTime.apiKey })).json, "linkUrl");
    const token = tokenOf(linkUrl) ?? "";
    const page = await open(linkUrl);
    expect(page.status).toBe(200);
    expect(page.html).toContain("<h1>Connect QuickBooks Online for Start Page Ltd</h1>");
    // The way to the company's page keeps the token, and opens it.
    expect(page.html).toContain(`<a href="/codat/link/company/${companyId}?token=${token}">All of Start Page Ltd's connections</a>`);
    expect((await open(`/codat/link/company/${companyId}?token=${token}`)).status).toBe(200);

    const form = onlyForm(page.html);
    expect({ action: form.action, hidden: form.hidden }).toEqual({ action: `/codat/link/company/${companyId}/connections/${connectionId}/connect`, hidden: { nonce: expect.any(String), token } });
    const done = await submit(form.action, form.hidden);
    expect(done.status).toBe(303);
    expect((await open(done.headers.get("location") ?? "")).html).toContain("Your QuickBooks Online account is connected to Start Page Ltd.");
    expect((await connectionsOf(oneTime.apiKey, companyId))[0]?.status).toBe("Linked");
    expectRefused(await open(linkUrl), 410, "This link was already used");
  });

  it("expires a day after it was given out, on the sandbox clock: the page and a Connect are refused, nothing connected", async () => {
    const { companyId, connectionId } = await deauthorizedCompany(oneTime.apiKey, "Late Ltd");
    const redirect = await redirectOf(oneTime.apiKey, companyId);
    const linkUrl = str((await call(sb, { path: `/companies/${companyId}/connections/${connectionId}`, apiKey: oneTime.apiKey })).json, "linkUrl");
    const openedInTime = await open(redirect);
    const form = onlyForm(openedInTime.html);

    await sb.control.advanceClock({ seconds: LINK_TOKEN_LIFETIME_MS / 1000 - 120 });
    expect((await open(redirect)).status).toBe(200);
    await sb.control.advanceClock({ seconds: 120 });
    expectRefused(await open(redirect), 410, "This link has expired");
    expectRefused(await open(linkUrl), 410, "This link has expired");
    expect((await open(redirect)).html).toContain("A link to this page works for one day after it was made");
    // A page opened in time, pressed after the link expired (its nonce, real time, is still good).
    expectRefused(await submit(form.action, form.hidden), 410, "This link has expired");
    expect((await connectionsOf(oneTime.apiKey, companyId))[0]?.status).toBe("Deauthorized");
    // A new link from the API works.
    const fresh = await open(await redirectOf(oneTime.apiKey, companyId));
    expect((await submit(onlyForm(fresh.html).action, onlyForm(fresh.html).hidden)).status).toBe(303);
    expect((await connectionsOf(oneTime.apiKey, companyId))[0]?.status).toBe("Linked");
  });

  it("refuses a missing or forged token with 403: the page and a Connect, nothing connected", async () => {
    const { companyId, connectionId } = await deauthorizedCompany(oneTime.apiKey, "Forged Ltd");
    const otherCompany = await createCompany(sb, oneTime.apiKey, "Other Ltd");
    const good = tokenOf(await redirectOf(oneTime.apiKey, companyId)) ?? "";
    const [issuedAt, salt, mac] = good.split(".");
    const flipped = `${mac?.startsWith("A") ? "B" : "A"}${mac?.slice(1)}`;
    const page = await open(`/codat/link/company/${companyId}?token=${good}`);
    const nonce = onlyForm(page.html).hidden.nonce ?? "";

    const missing = await open(`/codat/link/company/${companyId}`);
    expectRefused(missing, 403, "This link is not complete");
    expectRefused(await open(`/codat/link/companies/${companyId}/connections/${connectionId}/start`), 403, "This link is not complete");
    const forgeries = [
      `${issuedAt}.${salt}.${flipped}`,
      // Another time or salt under the same MAC.
      `${Number(issuedAt) - 1}.${salt}.${mac}`,
      // Made under another secret, or for another company of the sandbox.
      makeLinkToken({ secret: "not-this-sandbox", companyId, now: Number(issuedAt) }),
      tokenOf(await redirectOf(oneTime.apiKey, otherCompany)) ?? "",
      // A page's nonce is not a link's token.
      nonce,
      "garbage",
    ];
    for (const token of forgeries) {
      expectRefused(await open(`/codat/link/company/${companyId}?token=${encodeURIComponent(token)}`), 403, "This link is not valid");
      expectRefused(await open(`/codat/link/companies/${companyId}/connections/${connectionId}/start?token=${encodeURIComponent(token)}`), 403, "This link is not valid");
    }
    const action = `/codat/link/company/${companyId}/connections/${connectionId}/connect`;
    expectRefused(await submit(action, { nonce }), 403, "This link is not complete");
    expectRefused(await submit(action, { nonce, token: `${issuedAt}.${salt}.${flipped}` }), 403, "This link is not valid");
    expect((await connectionsOf(oneTime.apiKey, companyId))[0]?.status).toBe("Deauthorized");
    // The confirmation alone opens only for a Linked connection of this company.
    expectRefused(await open(`/codat/link/company/${companyId}?connected=${connectionId}`), 403, "This link is not complete");
    // The good token and the page's nonce were not spent by the refusals.
    expect((await submit(action, { nonce, token: good })).status).toBe(303);
  });

  it("is not spent by a Connect that connects nothing (the one-accounting-connection rule): the way back keeps it", async () => {
    const companyId = await createCompany(sb, oneTime.apiKey, "Two Books Ltd");
    const qbo = await createConnection(sb, oneTime.apiKey, companyId, "qhyg");
    await sb.control.link(companyId, qbo);
    expect((await call(sb, { method: "PATCH", path: `/companies/${companyId}/connections/${qbo}`, apiKey: oneTime.apiKey, body: { status: "Unlinked" } })).status).toBe(200);
    const freeAgent = await createConnection(sb, oneTime.apiKey, companyId, "fbrh");
    await sb.control.link(companyId, freeAgent);

    const redirect = await redirectOf(oneTime.apiKey, companyId);
    const token = tokenOf(redirect) ?? "";
    const form = onlyForm((await open(redirect)).html);
    const refused = await submit(form.action, form.hidden);
    expect(refused.status).toBe(409);
    expect(refused.html).toContain(`<a href="/codat/link/company/${companyId}?token=${token}">Back to Two Books Ltd&#39;s page</a>`);
    expect((await open(redirect)).status).toBe(200);
  });

  it("follows the setting as it is now: links made while it was off stop opening when it goes on, and the tokens stop mattering when it goes off", async () => {
    const client = await sb.control.createClient({ plan: "paid" });
    const companyId = await createCompany(sb, client.apiKey, "Switch Ltd");
    const untokened = await redirectOf(client.apiKey, companyId);
    expect((await open(untokened)).status).toBe(200);

    await sb.control.setClientSettings(client.clientId, { oneTimeLinkUrls: true });
    expectRefused(await open(untokened), 403, "This link is not complete");
    const tokened = await redirectOf(client.apiKey, companyId);
    expect(tokenOf(tokened)).toMatch(TOKEN);
    expect((await open(tokened)).status).toBe(200);

    await sb.control.setClientSettings(client.clientId, { oneTimeLinkUrls: false });
    expect(await redirectOf(client.apiKey, companyId)).toBe(`${sb.url}/link/company/${companyId}`);
    const page = await open(untokened);
    expect(page.status).toBe(200);
    // No token field in the form, as before the setting existed; a token in the address is ignored.
    expect(onlyForm(page.html).hidden).toEqual({ nonce: expect.any(String) });
    expect((await open(`${untokened}?token=garbage`)).status).toBe(200);
  });
});

describe("with the setting off", () => {
  it("pages open and connect without a token, several times, as before", async () => {
    const { companyId, connectionId } = await deauthorizedCompany(plain.apiKey, "Open Ltd");
    const redirect = await redirectOf(plain.apiKey, companyId);
    const page = await open(redirect);
    expect(page.status).toBe(200);
    const form = onlyForm(page.html);
    expect(form.hidden).toEqual({ nonce: expect.any(String) });
    expect((await submit(form.action, form.hidden)).status).toBe(303);
    await sb.control.deauthorize(companyId, connectionId);
    const again = onlyForm((await open(redirect)).html);
    expect((await submit(again.action, again.hidden)).status).toBe(303);
    // A day later the same address still works.
    await sb.control.advanceClock({ days: 2 });
    const confirmed = await open(`/codat/link/company/${companyId}?connected=${connectionId}`);
    expect(confirmed.html).toContain('Status: <span class="status s-Linked">Linked</span>');
  });
});

describe("the demo client", () => {
  it("has one-time Link URLs on, after a reset too", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-sandbox-demo-"));
    const demo = await createSandbox({ dbFile: path.join(dir, "sandbox.db"), demoClient: true, port: 0 });
    try {
      const control = createControlClient({ url: demo.url, adminToken: demo.adminToken });
      const demoClient = async () => ((await control.state()) as { clients: { demo: boolean; oneTimeLinkUrls: boolean }[] }).clients.find((c) => c.demo);
      expect(await demoClient()).toMatchObject({ oneTimeLinkUrls: true });
      const created = await call(demo, { method: "POST", path: "/companies", apiKey: demo.demoApiKey ?? "", body: { name: "Demo Ltd" } });
      expect(tokenOf(str(created.json, "redirect"))).toMatch(TOKEN);
      await control.reset();
      expect(await demoClient()).toMatchObject({ oneTimeLinkUrls: true });
    } finally {
      await demo.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
