/**
 * The end customer signed in to a different account of the platform, over real HTTP: on a
 * reconnection (the connection knows its account) the Link page's Connect asks which account they
 * are signed in to; "a different company" links the connection with a new tenant of another
 * identity, so its connectionInfo changes (as Ferry detects it), and leaves the known account as it
 * was; the known one behaves as before. The link control does the same with `{ otherTenant: true }`.
 * A bad choice is refused with a page and connects nothing; it all works with one-time Link URLs.
 */
import { linkBrowser, onlyPostForm as onlyForm } from "@/server/testing/link-browser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGED_PLATFORMS, type PlatformKey } from "../../platforms";
import { call, createCompany, createConnection, str } from "@/server/testing/raw-http";
import { startTestSandbox, type ConnectionJson, type TestSandbox } from "@/server/testing/test-sandbox";

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

type TenantState = { tenantId: string; platformKey: string; name: string; identity: Record<string, string> };

async function tenants(): Promise<TenantState[]> {
  return ((await sb.control.state()) as { tenants: TenantState[] }).tenants;
}

async function connectionOf(key: string, companyId: string, connectionId: string): Promise<ConnectionJson> {
  const got = await call(sb, { path: `/companies/${companyId}/connections/${connectionId}`, apiKey: key });
  expect(got.status).toBe(200);
  return got.json as ConnectionJson;
}

/** Whose data a sync of the company now brings (the tenant id, as the simulated platform reports it). */
async function syncedAccount(key: string, companyId: string): Promise<string> {
  expect((await call(sb, { method: "POST", path: `/companies/${companyId}/data/all`, apiKey: key })).status).toBe(204);
  await sb.control.advanceClock({ seconds: 600 });
  const info = await call(sb, { path: `/companies/${companyId}/data/info`, apiKey: key });
  expect(info.status).toBe(200);
  return str(info.json, "accountingPlatformRef");
}

/**
 * A company whose connection was Linked with its tenant's credentials and then dropped by the
 * platform: Deauthorized, still knowing its account and its connectionInfo (a reconnection).
 */
async function droppedCompany(platformKey: PlatformKey, name: string, key = apiKey) {
  const tenant = await sb.control.createTenant(platformKey, { name, records: 5 });
  const companyId = await createCompany(sb, key, name);
  const connectionId = await createConnection(sb, key, companyId, platformKey);
  const authorized = await call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey: key, body: tenant.credentials });
  expect(authorized.json).toMatchObject({ status: "Linked" });
  const before = (authorized.json as ConnectionJson).connectionInfo ?? {};
  await sb.control.deauthorize(companyId, connectionId);
  expect((await connectionOf(key, companyId, connectionId)).status).toBe("Deauthorized");
  return { tenant, companyId, connectionId, before };
}

describe("the Link page's choice of account", () => {
  it("is offered on a reconnection only: a radio group with a legend, the known account by name (checked) or a different one", async () => {
    const { companyId, connectionId } = await droppedCompany("qhyg", "Harbour & Sons");
    const page = await open(`/codat/link/company/${companyId}`);
    expect(page.status).toBe(200);
    const form = onlyForm(page.html);
    expect(form.action).toBe(`/codat/link/company/${companyId}/connections/${connectionId}/connect`);
    expect(form.html).toContain("<fieldset><legend>Which QuickBooks Online company are you signed in to?</legend>");
    expect(form.html).toContain(
      `<div class="choice"><input type="radio" id="account-${connectionId}-known" name="account" value="known" checked><label for="account-${connectionId}-known">Harbour &amp; Sons</label></div>`,
    );
    expect(form.html).toContain(
      `<div class="choice"><input type="radio" id="account-${connectionId}-other" name="account" value="other"><label for="account-${connectionId}-other">A different QuickBooks Online company</label></div>`,
    );
    expect(form.html).toMatch(/<\/fieldset><button type="submit">Connect QuickBooks Online<\/button>$/);
    // The connection's own page (its linkUrl) offers the same.
    const single = await open(`/codat/link/companies/${companyId}/connections/${connectionId}/start`);
    expect(onlyForm(single.html).html).toContain('name="account" value="other"');

    // A shop is a shop.
    const shop = await droppedCompany("fztf", "Corner Shop");
    expect(onlyForm((await open(`/codat/link/company/${shop.companyId}`)).html).html).toContain(
      "<legend>Which Shopify shop are you signed in to?</legend>",
    );

    // A connection that never knew an account (PendingAuth) has no choice: its Connect makes a new one.
    const fresh = await createCompany(sb, apiKey, "Never Connected");
    await createConnection(sb, apiKey, fresh, "qhyg");
    const freshForm = onlyForm((await open(`/codat/link/company/${fresh}`)).html);
    expect(freshForm.html).not.toContain('name="account"');
    expect(freshForm.html).not.toContain("<fieldset");
  });

  it("the known account (checked, or the field left out) reconnects as before: the same tenant and connectionInfo", async () => {
    for (const fields of [{ account: "known" }, {}] as Record<string, string>[]) {
      const { tenant, companyId, connectionId, before } = await droppedCompany("qhyg", "Same Realm Ltd");
      expect(before).toEqual({ realmId: expect.stringMatching(/^9130\d{12}$/) });
      const count = (await tenants()).length;
      const form = onlyForm((await open(`/codat/link/company/${companyId}`)).html);
      const done = await submit(form.action, { ...form.hidden, ...fields });
      expect(done.status).toBe(303);
      const connection = await connectionOf(apiKey, companyId, connectionId);
      expect(connection.status).toBe("Linked");
      expect(connection.connectionInfo).toEqual(before);
      expect((await tenants()).length).toBe(count);
      expect(await syncedAccount(apiKey, companyId)).toBe(tenant.tenantId);
    }
  });

  it("a different company: Linked with a new tenant of another identity, its connectionInfo changed; the known account untouched", async () => {
    const { tenant, companyId, connectionId, before } = await droppedCompany("qhyg", "Realm Switch Ltd");
    const oldTenant = (await tenants()).find((t) => t.tenantId === tenant.tenantId);
    const form = onlyForm((await open(`/codat/link/company/${companyId}`)).html);
    const done = await submit(form.action, { ...form.hidden, account: "other" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`/codat/link/company/${companyId}?connected=${connectionId}`);

    const connection = await connectionOf(apiKey, companyId, connectionId);
    expect(connection.status).toBe("Linked");
    expect(connection.connectionInfo).toEqual({ realmId: expect.stringMatching(/^9130\d{12}$/) });
    expect(connection.connectionInfo?.realmId).not.toBe(before.realmId);
    // Errors resolved as after any Connect.
    expect(connection.dataConnectionErrors?.every((e) => e.status === "Resolved")).toBe(true);

    const after = await tenants();
    expect(after.find((t) => t.tenantId === tenant.tenantId)).toEqual(oldTenant);
    const account = await syncedAccount(apiKey, companyId);
    expect(account).not.toBe(tenant.tenantId);
    expect(after.find((t) => t.tenantId === account)).toMatchObject({
      platformKey: "qhyg",
      name: "Realm Switch Ltd (another company)",
      identity: connection.connectionInfo,
    });

    // Reconnecting again offers the company's own account (the one linked by mistake is not its own), by its name.
    await sb.control.deauthorize(companyId, connectionId);
    expect(onlyForm((await open(`/codat/link/company/${companyId}`)).html).html).toContain(
      `<label for="account-${connectionId}-known">${oldTenant!.name}</label>`,
    );
  });

  it("makes the same connection webhooks as any Connect (connection.reconnected)", async () => {
    const client = await sb.control.createClient({ plan: "paid" });
    const created = await call(sb, { method: "POST", path: "/webhooks", apiKey: client.apiKey, body: { url: "http://127.0.0.1:9/hooks", eventTypes: ["connection.reconnected", "connection.connected"] } });
    expect(created.status).toBe(201);
    const webhookId = str(created.json, "id");
    const { companyId } = await droppedCompany("vxvy", "Hooked Books", client.apiKey);
    const form = onlyForm((await open(`/codat/link/company/${companyId}`)).html);
    expect((await submit(form.action, { ...form.hidden, account: "other" })).status).toBe(303);
    const deliveries = await sb.control.webhookDeliveries(webhookId);
    expect(deliveries.results.map((d) => d.eventType)).toEqual(["connection.connected", "connection.reconnected"]);
  });

  it("refuses a bad choice with the page again (400, the problem at the choice) and connects nothing", async () => {
    const { companyId, connectionId, before } = await droppedCompany("rwuv", "Undecided Ltd");
    const count = (await tenants()).length;
    const form = onlyForm((await open(`/codat/link/company/${companyId}`)).html);
    let nonce = form.hidden.nonce ?? "";
    for (const account of ["maybe", "", "<b>other</b>"]) {
      const refused = await submit(form.action, { nonce, account });
      expect(refused.status).toBe(400);
      expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(refused.html).toContain("<h1>Connect Zoho Books for Undecided Ltd</h1>");
      expect(refused.html).toContain(`<fieldset aria-describedby="account-problem-${connectionId}"><legend>Which Zoho Books company are you signed in to?</legend><p class="problem" id="account-problem-${connectionId}">Choose the Zoho Books company you are signed in to, then press Connect`);
      expect(refused.html).not.toContain("<b>other</b>");
      expect(refused.html).toContain("Nothing was connected.");
      nonce = onlyForm(refused.html).hidden.nonce ?? "";
    }
    // Both choices at once is no choice either.
    const twice = await fetch(`${origin()}${form.action}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `nonce=${encodeURIComponent(nonce)}&account=known&account=other`,
      redirect: "manual",
    });
    expect(twice.status).toBe(400);
    const connection = await connectionOf(apiKey, companyId, connectionId);
    expect(connection.status).toBe("Deauthorized");
    expect(connection.connectionInfo).toEqual(before);
    expect((await tenants()).length).toBe(count);
    // The page shown again works.
    const retry = onlyForm(await twice.text());
    expect((await submit(retry.action, { ...retry.hidden, account: "known" })).status).toBe(303);
    expect(await connectionOf(apiKey, companyId, connectionId)).toMatchObject({ status: "Linked", connectionInfo: before });
  });

  it("refuses a bad choice on a connection without a known account too, saying so on its card", async () => {
    const companyId = await createCompany(sb, apiKey, "No Account Yet");
    const connectionId = await createConnection(sb, apiKey, companyId, "pbtz");
    const form = onlyForm((await open(`/codat/link/company/${companyId}`)).html);
    const refused = await submit(form.action, { ...form.hidden, account: "whichever" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('<p class="problem">Choose the Wave company you are signed in to');
    expect((await connectionOf(apiKey, companyId, connectionId)).status).toBe("PendingAuth");
  });
});

describe("the link control's otherTenant", () => {
  it.each(MANAGED_PLATFORMS.map((p) => [p.key, p.name] as const))(
    "%s (%s): { otherTenant: true } links with a new tenant of another identity; without it, the known one",
    async (platformKey, platformName) => {
      const { tenant, companyId, connectionId, before } = await droppedCompany(platformKey, `${platformName} Control`);
      const oldTenant = (await tenants()).find((t) => t.tenantId === tenant.tenantId);
      const other = await sb.control.link(companyId, connectionId, { otherTenant: true });
      expect(other).toMatchObject({ companyId, connection: { id: connectionId, status: "Linked" } });
      expect(other.tenantId).not.toBe(tenant.tenantId);
      const after = await tenants();
      expect(after.find((t) => t.tenantId === tenant.tenantId)).toEqual(oldTenant);
      const created = after.find((t) => t.tenantId === other.tenantId);
      expect(created?.name).toBe(`${platformName} Control (another ${platformKey === "fztf" ? "shop" : "company"})`);
      const info = other.connection.connectionInfo ?? {};
      expect(Object.keys(info).sort()).toEqual(Object.keys(before).sort());
      if (platformKey === "fbrh") {
        // FreeAgent names no account in its credentials: there is nothing to compare.
        expect(info).toEqual({});
      } else {
        expect(info).not.toEqual(before);
        expect(info).toEqual(created?.identity);
      }
      // Linking again without the option goes back to the company's own account.
      const again = await sb.control.link(companyId, connectionId, { otherTenant: false });
      expect(again.tenantId).toBe(tenant.tenantId);
      expect(again.connection.connectionInfo ?? {}).toEqual(before);
      expect((await sb.control.link(companyId, connectionId)).tenantId).toBe(tenant.tenantId);
    },
  );

  it("refuses a body that is not { otherTenant: boolean } (400) and links nothing", async () => {
    const { companyId, connectionId } = await droppedCompany("qhyg", "Strict Body Ltd");
    const path = `/_sandbox/companies/${companyId}/connections/${connectionId}/link`;
    for (const body of [{ otherTenant: "yes" }, { otherTenant: 1 }, { other: true }]) {
      const response = await fetch(`${sb.url}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${sb.adminToken}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      expect([body, response.status]).toEqual([body, 400]);
    }
    expect((await connectionOf(apiKey, companyId, connectionId)).status).toBe("Deauthorized");
  });
});

describe("with one-time Link URLs", () => {
  it("the form carries the token and the choice; a bad choice spends nothing; a different company connects once", async () => {
    const oneTime = await sb.control.createClient({ plan: "paid", oneTimeLinkUrls: true });
    const { tenant, companyId, connectionId, before } = await droppedCompany("pbtz", "Token Wave", oneTime.apiKey);
    const redirect = str((await call(sb, { path: `/companies/${companyId}`, apiKey: oneTime.apiKey })).json, "redirect");
    const token = new URL(redirect).searchParams.get("token") ?? "";
    expect(token).not.toBe("");
    const form = onlyForm((await open(redirect)).html);
    expect(form.hidden).toEqual({ nonce: expect.any(String), token });
    expect(form.html).toContain('name="account" value="other"');

    const refused = await submit(form.action, { ...form.hidden, account: "another" });
    expect(refused.status).toBe(400);
    const again = onlyForm(refused.html);
    expect(again.hidden).toEqual({ nonce: expect.any(String), token });
    expect(refused.html).toContain(`href="/codat/link/company/${companyId}?token=${encodeURIComponent(token).replace(/&/g, "&amp;")}"`);

    const done = await submit(again.action, { ...again.hidden, account: "other" });
    expect(done.status).toBe(303);
    const connection = await connectionOf(oneTime.apiKey, companyId, connectionId);
    expect(connection.status).toBe("Linked");
    expect(connection.connectionInfo?.businessId).toEqual(expect.any(String));
    expect(connection.connectionInfo).not.toEqual(before);
    expect((await tenants()).find((t) => t.tenantId === tenant.tenantId)?.identity).toEqual(before);

    // The token is spent: the link opens nothing more, and a second Connect connects nothing.
    expect((await open(redirect)).status).toBe(410);
    const replay = await submit(again.action, { ...again.hidden, account: "known" });
    expect(replay.status).toBe(410);
    expect((await connectionOf(oneTime.apiKey, companyId, connectionId)).connectionInfo).toEqual(connection.connectionInfo);
  });
});
