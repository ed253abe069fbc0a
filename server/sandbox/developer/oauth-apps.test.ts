/**
 * Clients' own OAuth apps at the simulated platforms, over real HTTP: the controls set, show and
 * delete them; a Connect (Link pages, link controls) is refused in the platform's words while the
 * app lacks the platform's callback URL, leaving the connection as it was with one Active error
 * and a one-time link's token unspent; the developer console adds the callback (each bad input
 * refused at the field, nothing changed) and the same link then connects, resolving the error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkBrowser, onlyPostForm, postForms, type LinkForm, type LinkPage } from "@/server/testing/link-browser";
import { call, createCompany, createConnection } from "@/server/testing/raw-http";
import { startTestSandbox, type ConnectionJson, type TestSandbox } from "@/server/testing/test-sandbox";
import { MANAGED_PLATFORMS, type PlatformKey } from "../../platforms";

let sb: TestSandbox;
/** A client with one-time Link URLs on (the migration's throwaway company uses one), and one without. */
let client: { clientId: string; apiKey: string };
let plain: { clientId: string; apiKey: string };

beforeAll(async () => {
  sb = await startTestSandbox({ basePath: "/codat" });
  client = await sb.control.createClient({ plan: "paid", oneTimeLinkUrls: true, name: "Acme Software" });
  plain = await sb.control.createClient({ plan: "paid" });
});

afterAll(async () => {
  await sb.close();
});

const { open, submit } = linkBrowser(() => new URL(sb.url).origin);

/** The platform's callback URL: the redirect_uri the service sends. */
function callback(key: PlatformKey): string {
  const url = MANAGED_PLATFORMS.find((p) => p.key === key)?.callbackUrl;
  if (!url) throw new Error(`no platform ${key}`);
  return url;
}
const INTUIT_WORDS =
  "The redirect_uri query parameter value is invalid. Make sure it is listed in the Redirect URIs section on your app&#39;s keys tab and matches it exactly.";

let appCount = 0;
/** A fresh platform client id, so tests do not meet. */
function newAppId(): string {
  appCount += 1;
  return `AB${Date.now().toString(36)}x${appCount}`;
}

async function connectionOf(apiKey: string, companyId: string, connectionId: string): Promise<ConnectionJson> {
  const got = await call(sb, { path: `/companies/${companyId}/connections/${connectionId}`, apiKey });
  expect(got.status).toBe(200);
  return got.json as ConnectionJson;
}

/** The console page's add form (the last form; the Remove forms come first). */
function addFormOf(html: string): LinkForm {
  const forms = postForms(html);
  const form = forms[forms.length - 1];
  if (!form?.action.endsWith("/redirect-uris")) throw new Error(`No add form: ${html}`);
  return form;
}

/** Adds `uri` on the app's console page as a browser would; answers the form's response. */
async function addOnConsole(consoleUrl: string, uri: string): Promise<LinkPage> {
  const form = addFormOf((await open(consoleUrl)).html);
  return submit(form.action, { ...form.hidden, uri });
}

function listedUris(html: string): string[] {
  return [...html.matchAll(/<li class="card"><code>([^<]*)<\/code>/g)].map((m) => (m[1] ?? "").replace(/&amp;/g, "&"));
}

describe("the oauth-apps controls", () => {
  it("set, show, replace and delete a client's app; the state lists it", async () => {
    const appClientId = newAppId();
    const set = await sb.control.setOAuthApp(client.clientId, "qhyg", { appClientId, redirectUris: ["https://example.com/cb"] });
    expect(set).toEqual({
      clientId: client.clientId,
      platformKey: "qhyg",
      appClientId,
      name: "Acme Software's QuickBooks Online app",
      redirectUris: ["https://example.com/cb"],
      consoleUrl: `${sb.url}/developer/qhyg/apps/${appClientId}`,
    });
    expect(await sb.control.getOAuthApp(client.clientId, "qhyg")).toEqual(set);
    const replaced = await sb.control.setOAuthApp(client.clientId, "qhyg", { appClientId, name: "Acme prod", redirectUris: [callback("qhyg"), "http://localhost:3000/cb"] });
    expect(replaced).toMatchObject({ name: "Acme prod", redirectUris: [callback("qhyg"), "http://localhost:3000/cb"] });
    const state = (await sb.control.state()) as { oauthApps: unknown[] };
    expect(state.oauthApps).toContainEqual(replaced);

    await sb.control.deleteOAuthApp(client.clientId, "qhyg");
    await expect(sb.control.getOAuthApp(client.clientId, "qhyg")).rejects.toMatchObject({ status: 404 });
    // Deleting again is not an error: the service uses its own app either way.
    await sb.control.deleteOAuthApp(client.clientId, "qhyg");
  });

  it("refuse another client's client id at the platform (409), bad input (400), an unknown client or platform (404)", async () => {
    const appClientId = newAppId();
    await sb.control.setOAuthApp(plain.clientId, "rwuv", { appClientId, redirectUris: [] });
    await expect(sb.control.setOAuthApp(client.clientId, "rwuv", { appClientId, redirectUris: [] })).rejects.toMatchObject({ status: 409 });
    // The same id at another platform is another app.
    await sb.control.setOAuthApp(client.clientId, "fbrh", { appClientId, redirectUris: [] });

    const auth = `Bearer ${sb.adminToken}`;
    const put = (body: unknown) => call(sb, { method: "PUT", path: `/_sandbox/clients/${client.clientId}/oauth-apps/vxvy`, auth, body });
    const eleven = Array.from({ length: 11 }, (_, i) => `https://example.com/cb${i}`);
    const cases: [unknown, string][] = [
      [{ appClientId: "has space", redirectUris: [] }, "appClientId"],
      [{ appClientId: "", redirectUris: [] }, "appClientId"],
      [{ appClientId: "ok", redirectUris: ["http://example.com/cb"] }, "redirectUris.0"],
      [{ appClientId: "ok", redirectUris: ["https://example.com/cb", "https://example.com/cb#top"] }, "redirectUris.1"],
      [{ appClientId: "ok", redirectUris: ["https://example.com/cb", "https://example.com/cb"] }, "redirectUris.1"],
      [{ appClientId: "ok", redirectUris: [`https://example.com/${"a".repeat(2048)}`] }, "redirectUris.0"],
      [{ appClientId: "ok", redirectUris: ["/relative"] }, "redirectUris.0"],
      [{ appClientId: "ok", redirectUris: eleven }, "redirectUris"],
      [{ appClientId: "ok" }, "redirectUris"],
      [{ appClientId: "ok", redirectUris: [], extra: 1 }, "body"],
    ];
    for (const [body, itemId] of cases) {
      const answer = await put(body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.json).toMatchObject({ service: "SandboxControls", validation: { errors: expect.arrayContaining([expect.objectContaining({ itemId })]) } });
    }
    await expect(sb.control.getOAuthApp(client.clientId, "vxvy")).rejects.toMatchObject({ status: 404 });

    const unknownPlatform = await call(sb, { method: "GET", path: `/_sandbox/clients/${client.clientId}/oauth-apps/xero`, auth });
    expect(unknownPlatform.status).toBe(404);
    await expect(sb.control.getOAuthApp("6f0e7c1e-0000-4000-8000-000000000000", "qhyg")).rejects.toMatchObject({ status: 404 });
  });
});

describe("a Connect with the client's own app", () => {
  it("is refused in the platform's words while the callback is not registered, then connects with the same one-time link once the console adds it", async () => {
    const app = await sb.control.setOAuthApp(client.clientId, "qhyg", { appClientId: newAppId(), redirectUris: ["https://example.com/cb"] });
    const companyId = await createCompany(sb, client.apiKey, "Proof Ltd");
    const connectionId = await createConnection(sb, client.apiKey, companyId, "qhyg");
    const linkUrl = (await connectionOf(client.apiKey, companyId, connectionId)).linkUrl;

    const refuse = async (): Promise<LinkPage> => {
      const page = await open(linkUrl);
      expect(page.status).toBe(200);
      const form = onlyPostForm(page.html);
      return submit(form.action, form.hidden);
    };
    const refused = await refuse();
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("<h1>QuickBooks Online refused the connection</h1>");
    expect(refused.html).toContain(`<div class="problem" role="alert"><p><strong>QuickBooks Online said:</strong> ${INTUIT_WORDS}</p></div>`);
    expect(refused.html).toContain(`<dt>Redirect URI sent</dt><dd>${callback("qhyg")}</dd>`);
    expect(refused.html).toContain(`<dt>OAuth app (client ID)</dt><dd>${app.appClientId}</dd>`);
    expect(refused.html).toContain("The owner of that app must add this redirect URI to the app in QuickBooks Online's developer console");
    expect(postForms(refused.html)).toEqual([]);

    const first = await connectionOf(client.apiKey, companyId, connectionId);
    expect(first.status).toBe("PendingAuth");
    expect(first.dataConnectionErrors).toEqual([
      {
        statusCode: "400",
        statusText: "Bad Request",
        errorMessage: `QuickBooks Online refused the authorization: ${INTUIT_WORDS.replace("&#39;", "'")} (redirect_uri=${callback("qhyg")}, client_id=${app.appClientId})`,
        erroredOnUtc: expect.any(String),
        status: "Active",
      },
    ]);

    // Refused again later (the token was not spent, so the link still opens): one item, its time moved on.
    await sb.control.advanceClock({ seconds: 60 });
    expect((await refuse()).status).toBe(400);
    const second = await connectionOf(client.apiKey, companyId, connectionId);
    expect(second.dataConnectionErrors).toHaveLength(1);
    expect(Date.parse(second.dataConnectionErrors?.[0]?.erroredOnUtc ?? "")).toBeGreaterThan(Date.parse(first.dataConnectionErrors?.[0]?.erroredOnUtc ?? ""));

    // The app's owner adds the callback on the developer console.
    const added = await addOnConsole(app.consoleUrl, callback("qhyg"));
    expect(added.status).toBe(303);
    const location = added.headers.get("location") ?? "";
    expect(location).toBe(`/codat/developer/qhyg/apps/${app.appClientId}?notice=added`);
    const after = await open(location);
    expect(after.html).toContain('<section class="done" role="status"><p>Added.');
    expect(listedUris(after.html)).toEqual(["https://example.com/cb", callback("qhyg")]);
    expect((await sb.control.getOAuthApp(client.clientId, "qhyg")).redirectUris).toEqual(["https://example.com/cb", callback("qhyg")]);

    // The same one-time link now connects; the refusal is resolved; the token is spent.
    const page = await open(linkUrl);
    const form = onlyPostForm(page.html);
    expect((await submit(form.action, form.hidden)).status).toBe(303);
    const linked = await connectionOf(client.apiKey, companyId, connectionId);
    expect(linked.status).toBe("Linked");
    expect(linked.dataConnectionErrors).toEqual([expect.objectContaining({ statusCode: "400", status: "Resolved", resolvedOnUtc: expect.any(String) })]);
    expect((await open(linkUrl)).status).toBe(410);
    await sb.control.deleteOAuthApp(client.clientId, "qhyg");
  });

  it("a company's first Connect (choosing the platform) is refused in Zoho's words: a PendingAuth connection with the error, then the page offers it", async () => {
    const app = await sb.control.setOAuthApp(plain.clientId, "rwuv", { appClientId: `1000.${newAppId()}`, redirectUris: [] });
    const companyId = await createCompany(sb, plain.apiKey, "Zoho First Ltd");
    const page = await open(`/codat/link/company/${companyId}`);
    const form = onlyPostForm(page.html);
    const refused = await submit(form.action, { ...form.hidden, platformKey: "rwuv" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("Invalid Redirect Uri — Redirect URI passed does not match with the one configured");
    const list = (await call(sb, { path: `/companies/${companyId}/connections`, apiKey: plain.apiKey })).json as { results: ConnectionJson[] };
    expect(list.results).toHaveLength(1);
    expect(list.results[0]).toMatchObject({ status: "PendingAuth", dataConnectionErrors: [{ status: "Active", statusCode: "400" }] });
    expect(list.results[0]?.dataConnectionErrors?.[0]?.errorMessage).toContain(`redirect_uri=${callback("rwuv")}, client_id=${app.appClientId}`);
    // The company's page now shows that connection with its own Connect, refused until the app is fixed.
    const again = await open(`/codat/link/company/${companyId}`);
    expect(again.html).toContain("Connect Zoho Books</button>");
    await sb.control.deleteOAuthApp(plain.clientId, "rwuv");
  });

  it("connects as before without an app of the client's, and with an app that has the callback", async () => {
    const companyId = await createCompany(sb, plain.apiKey, "No App Ltd");
    const connectionId = await createConnection(sb, plain.apiKey, companyId, "fztf");
    const page = await open((await connectionOf(plain.apiKey, companyId, connectionId)).linkUrl);
    const form = onlyPostForm(page.html);
    expect((await submit(form.action, form.hidden)).status).toBe(303);
    expect((await connectionOf(plain.apiKey, companyId, connectionId)).status).toBe("Linked");

    await sb.control.setOAuthApp(plain.clientId, "pbtz", { appClientId: newAppId(), redirectUris: ["http://127.0.0.1:8080/cb", callback("pbtz")] });
    const other = await createCompany(sb, plain.apiKey, "Registered Ltd");
    const result = await sb.control.linkNewConnection(other, "pbtz");
    expect(result.connection.status).toBe("Linked");
    await sb.control.deleteOAuthApp(plain.clientId, "pbtz");
  });

  it("the link controls are refused with a 400 in the platform's words, and link once the app is fixed", async () => {
    const app = await sb.control.setOAuthApp(plain.clientId, "fztf", { appClientId: newAppId(), redirectUris: ["https://shop.example.com/auth"] });
    const companyId = await createCompany(sb, plain.apiKey, "Control Ltd");
    const connectionId = await createConnection(sb, plain.apiKey, companyId, "fztf");
    const refused = sb.control.link(companyId, connectionId);
    await expect(refused).rejects.toMatchObject({ status: 400 });
    await expect(refused).rejects.toThrow(/Oauth error invalid_request: The redirect_uri is not whitelisted \(redirect_uri=https:\/\/shopify\.codat\.io\/oauth\/callback/);
    await expect(sb.control.link(companyId, connectionId)).rejects.toMatchObject({ status: 400 });
    const after = await connectionOf(plain.apiKey, companyId, connectionId);
    expect(after.status).toBe("PendingAuth");
    expect(after.dataConnectionErrors).toHaveLength(1);

    const fresh = await createCompany(sb, plain.apiKey, "Control New Ltd");
    await expect(sb.control.linkNewConnection(fresh, "fztf")).rejects.toMatchObject({ status: 400 });

    await sb.control.setOAuthApp(plain.clientId, "fztf", { appClientId: app.appClientId, redirectUris: [...app.redirectUris, callback("fztf")] });
    const linked = await sb.control.link(companyId, connectionId);
    expect(linked.connection.status).toBe("Linked");
    expect(linked.connection.dataConnectionErrors).toEqual([expect.objectContaining({ status: "Resolved" })]);
    await sb.control.deleteOAuthApp(plain.clientId, "fztf");
  });
});

describe("the developer console", () => {
  it("shows the app, refuses each bad redirect URI at the field without changing anything, allows local http", async () => {
    const app = await sb.control.setOAuthApp(plain.clientId, "vxvy", { appClientId: newAppId(), name: "Books <Sync>", redirectUris: ["https://example.com/cb"] });
    const page = await open(app.consoleUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.html).toContain('<p class="tag">FreshBooks developer console · Service sandbox</p><h1>Books &lt;Sync&gt;</h1>');
    expect(page.html).toContain(`<dt>Client ID</dt><dd>${app.appClientId}</dd>`);
    expect(page.html).toContain('<label for="uri">Redirect URI</label>');
    expect(page.html).toContain('aria-label="Remove https://example.com/cb"');

    const nine = Array.from({ length: 9 }, (_, i) => `https://example.com/n${i}`);
    const cases: [string, string][] = [
      ["", "Enter a redirect URI."],
      ["   ", "Enter a redirect URI."],
      ["example.com/cb", "Enter an absolute URL starting with https://"],
      ["http://example.com/cb", "must start with https://"],
      ["ftp://example.com/cb", "must start with https://"],
      ["https://example.com/cb#part", "cannot contain a fragment"],
      [`https://example.com/${"a".repeat(2030)}`, "at most 2,048 characters; this one has 2,050"],
      ["https://example.com/cb", "already registered"],
    ];
    for (const [uri, words] of cases) {
      const answer = await addOnConsole(app.consoleUrl, uri);
      expect(answer.status, uri.slice(0, 40)).toBe(400);
      expect(answer.html).toMatch(new RegExp(`<p class="problem" id="uri-problem" role="alert">[^<]*${words.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`));
      expect(answer.html).toContain('aria-describedby="uri-hint uri-problem" aria-invalid="true"');
      expect((await sb.control.getOAuthApp(plain.clientId, "vxvy")).redirectUris).toEqual(["https://example.com/cb"]);
    }

    expect((await addOnConsole(app.consoleUrl, "http://localhost:3000/callback")).status).toBe(303);
    expect((await addOnConsole(app.consoleUrl, "  http://127.0.0.1/cb ")).status).toBe(303);
    expect((await sb.control.getOAuthApp(plain.clientId, "vxvy")).redirectUris).toEqual(["https://example.com/cb", "http://localhost:3000/callback", "http://127.0.0.1/cb"]);

    // At most 10.
    await sb.control.setOAuthApp(plain.clientId, "vxvy", { appClientId: app.appClientId, redirectUris: ["https://example.com/cb", ...nine] });
    const full = await addOnConsole(app.consoleUrl, "https://example.com/eleventh");
    expect(full.status).toBe(400);
    expect(full.html).toContain("An app can have at most 10 redirect URIs: remove one before adding another.");
    expect((await sb.control.getOAuthApp(plain.clientId, "vxvy")).redirectUris).toHaveLength(10);
    await sb.control.deleteOAuthApp(plain.clientId, "vxvy");
  });

  it("removes a redirect URI with its Remove button; a URI not listed changes nothing", async () => {
    const app = await sb.control.setOAuthApp(plain.clientId, "fbrh", { appClientId: newAppId(), redirectUris: ["https://a.example.com/cb", callback("fbrh")] });
    const page = await open(app.consoleUrl);
    const removeForm = postForms(page.html).find((f) => f.hidden.uri === callback("fbrh"));
    if (!removeForm) throw new Error("no Remove form for the callback");
    expect(removeForm.action).toBe(`/codat/developer/fbrh/apps/${app.appClientId}/redirect-uris/remove`);
    const removed = await submit(removeForm.action, removeForm.hidden);
    expect(removed.status).toBe(303);
    expect(removed.headers.get("location")).toBe(`/codat/developer/fbrh/apps/${app.appClientId}?notice=removed`);
    expect((await sb.control.getOAuthApp(plain.clientId, "fbrh")).redirectUris).toEqual(["https://a.example.com/cb"]);

    const next = postForms((await open(app.consoleUrl)).html)[0];
    if (!next) throw new Error("no form");
    const notListed = await submit(next.action, { ...next.hidden, uri: "https://nowhere.example.com/cb" });
    expect(notListed.headers.get("location")).toBe(`/codat/developer/fbrh/apps/${app.appClientId}?notice=not-registered`);
    expect((await sb.control.getOAuthApp(plain.clientId, "fbrh")).redirectUris).toEqual(["https://a.example.com/cb"]);
    await sb.control.deleteOAuthApp(plain.clientId, "fbrh");
  });

  it("answers 404 for an unknown app or platform, 403 for a form without its page's nonce or sent twice or from another site", async () => {
    const unknown = await open(`/codat/developer/qhyg/apps/${newAppId()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain("<h1>No app at this address</h1>");
    expect((await open("/codat/developer/xero/apps/abc")).status).toBe(404);
    expect((await open("/codat/developer")).status).toBe(404);

    const app = await sb.control.setOAuthApp(plain.clientId, "qhyg", { appClientId: newAppId(), redirectUris: [] });
    const form = addFormOf((await open(app.consoleUrl)).html);
    expect((await submit(form.action, { uri: "https://x.example.com/cb" })).status).toBe(403);
    expect((await submit(form.action, { ...form.hidden, uri: "https://x.example.com/cb" }, { Origin: "https://evil.example" })).status).toBe(403);
    expect((await submit(form.action, { ...form.hidden, uri: "https://x.example.com/cb" })).status).toBe(303);
    expect((await submit(form.action, { ...form.hidden, uri: "https://y.example.com/cb" })).status).toBe(403);
    // Another app's page nonce does not work here.
    const other = await sb.control.setOAuthApp(client.clientId, "qhyg", { appClientId: newAppId(), redirectUris: [] });
    const otherForm = addFormOf((await open(other.consoleUrl)).html);
    expect((await submit(form.action, { ...otherForm.hidden, uri: "https://z.example.com/cb" })).status).toBe(403);
    expect((await sb.control.getOAuthApp(plain.clientId, "qhyg")).redirectUris).toEqual(["https://x.example.com/cb"]);
    const wrongMethod = await fetch(`${new URL(sb.url).origin}${form.action}`, { method: "GET" });
    expect(wrongMethod.status).toBe(405);
    await sb.control.deleteOAuthApp(plain.clientId, "qhyg");
    await sb.control.deleteOAuthApp(client.clientId, "qhyg");
  });
});
