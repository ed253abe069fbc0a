/**
 * Companies, connections and API keys beyond the contract rows: create/list/filter/update/delete,
 * the accounting one-connection rule, unlink, and key management.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arr, call, createCompany, createConnection, linkedCompany, str } from "../../testing/raw-http";
import { basicAuth, startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";

let sb: TestSandbox;
let apiKey: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createClient({ plan: "paid" }));
});

afterAll(async () => {
  await sb.close();
});

describe("companies", () => {
  it("creates with 200, stripping forbidden characters from the name", async () => {
    const created = await call(sb, { method: "POST", path: "/companies", apiKey, body: { name: "Company (Codat[1])", description: "d" } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      name: "Company Codat1",
      description: "d",
      redirect: expect.stringContaining("/link/company/"),
      created: expect.any(String),
      tags: {},
      dataConnections: [],
    });
    expect(created.json).not.toHaveProperty("lastSync");
  });

  it("refuses an empty body, a missing name and bad tags with 400 naming them", async () => {
    const empty = await call(sb, { method: "POST", path: "/companies", apiKey, rawBody: "", headers: { "Content-Type": "application/json" } });
    expect(empty.json).toMatchObject({ statusCode: 400, validation: { errors: [{ itemId: "name" }] } });
    const tags = await call(sb, { method: "POST", path: "/companies", apiKey, body: { name: "T", tags: { "": "x", ok: 5 } } });
    expect(arr((tags.json as { validation: unknown }).validation, "errors")).toHaveLength(2);
  });

  it("lists paged, with query, tags and orderBy", async () => {
    const { apiKey: key } = await sb.control.createClient({ plan: "paid" });
    for (const [name, region] of [
      ["Alpha", "uk"],
      ["Bravo", "us"],
      ["Charlie", "uk"],
    ] as const) {
      await call(sb, { method: "POST", path: "/companies", apiKey: key, body: { name, tags: { region, item: `m-${name}` } } });
    }
    const page = await call(sb, { path: "/companies?page=2&pageSize=2", apiKey: key });
    expect(page.json).toMatchObject({
      pageNumber: 2,
      pageSize: 2,
      totalResults: 3,
      results: [{ name: "Charlie" }],
      _links: { self: { href: "/companies" }, previous: { href: "/companies?page=1&pageSize=2" } },
    });
    expect(page.json).not.toHaveProperty("_links.next");
    const noQuery = await call(sb, { path: "/companies", apiKey: key });
    expect(noQuery.json).toMatchObject({ pageNumber: 1, pageSize: 100, _links: { current: { href: "/companies?page=1&pageSize=100" } } });

    const byTag = await call(sb, { path: `/companies?tags=${encodeURIComponent("region=uk")}&orderBy=-name`, apiKey: key });
    expect((arr(byTag.json, "results") as { name: string }[]).map((c) => c.name)).toEqual(["Charlie", "Alpha"]);
    const byName = await call(sb, { path: `/companies?query=${encodeURIComponent("name~rav || name=alpha")}`, apiKey: key });
    expect((arr(byName.json, "results") as { name: string }[]).map((c) => c.name)).toEqual(["Alpha", "Bravo"]);
    const tagOp = await call(sb, { path: `/companies?tags=${encodeURIComponent("region>uk")}`, apiKey: key });
    expect(tagOp.status).toBe(400);
    const unknown = await call(sb, { path: "/companies?orderBy=colour", apiKey: key });
    expect(unknown.json).toMatchObject({ error: "Error parsing query - Could not resolve property colour on Company", service: "ClientsApi" });
  });

  it("PATCH changes only what is given; null tags remove them; PUT replaces", async () => {
    const id = str((await call(sb, { method: "POST", path: "/companies", apiKey, body: { name: "Patch", description: "keep", tags: { a: "1" } } })).json, "id");
    const patched = await call(sb, { method: "PATCH", path: `/companies/${id}`, apiKey, body: { name: "Patched" } });
    expect(patched.json).toMatchObject({ name: "Patched", description: "keep", tags: { a: "1" } });
    const untagged = await call(sb, { method: "PATCH", path: `/companies/${id}`, apiKey, body: { tags: null } });
    expect(untagged.json).toMatchObject({ tags: {} });
    const replaced = await call(sb, { method: "PUT", path: `/companies/${id}`, apiKey, body: { name: "Replaced" } });
    expect(replaced.json).toMatchObject({ name: "Replaced", tags: {} });
    expect(replaced.json).not.toHaveProperty("description");
  });

  it("DELETE answers 204 and takes the connections with it", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg" });
    const deleted = await call(sb, { method: "DELETE", path: `/companies/${linked.companyId}`, apiKey });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await call(sb, { path: `/companies/${linked.companyId}`, apiKey })).status).toBe(404);
    expect((await call(sb, { path: `/companies/${linked.companyId}/connections/${linked.connectionId}`, apiKey })).status).toBe(404);
  });
});

describe("connections", () => {
  it("holds one active accounting connection, several commerce ones, and an accounting one beside commerce", async () => {
    const companyId = await createCompany(sb, apiKey, "Mixed");
    await createConnection(sb, apiKey, companyId, "fztf");
    await createConnection(sb, apiKey, companyId, "fztf");
    const books = await createConnection(sb, apiKey, companyId, "rwuv");
    const second = await call(sb, { method: "POST", path: `/companies/${companyId}/connections`, apiKey, body: { platformKey: "qhyg" } });
    expect(second.status).toBe(409);
    await call(sb, { method: "DELETE", path: `/companies/${companyId}/connections/${books}`, apiKey });
    expect((await call(sb, { method: "POST", path: `/companies/${companyId}/connections`, apiKey, body: { platformKey: "qhyg" } })).status).toBe(200);
    const list = await call(sb, { path: `/companies/${companyId}/connections?query=${encodeURIComponent("sourceType=Commerce")}`, apiKey });
    expect(list.json).toMatchObject({ totalResults: 2 });
  });

  it("refuses unknown and unsimulated platform keys with 400", async () => {
    const companyId = await createCompany(sb, apiKey);
    const xero = await call(sb, { method: "POST", path: `/companies/${companyId}/connections`, apiKey, body: { platformKey: "gbol" } });
    expect(xero.status).toBe(400);
    expect(xero.json).toMatchObject({ validation: { errors: [{ itemId: "platformKey", message: expect.stringContaining("does not simulate platform gbol") }] } });
    const malformed = await call(sb, { method: "POST", path: `/companies/${companyId}/connections`, apiKey, body: { platformKey: "QHYG" } });
    expect(malformed.status).toBe(400);
  });

  it("unlinks only Linked connections; an unlinked accounting connection frees the slot", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "fbrh" });
    const path = `/companies/${linked.companyId}/connections/${linked.connectionId}`;
    expect((await call(sb, { method: "PATCH", path, apiKey, body: { status: "Linked" } })).status).toBe(400);
    const unlinked = await call(sb, { method: "PATCH", path, apiKey, body: { status: "Unlinked" } });
    expect(unlinked.json).toMatchObject({ status: "Unlinked" });
    expect((await call(sb, { method: "PATCH", path, apiKey, body: { status: "Unlinked" } })).status).toBe(400);
    expect((await call(sb, { method: "POST", path: `/companies/${linked.companyId}/connections`, apiKey, body: { platformKey: "qhyg" } })).status).toBe(200);
    const deleted = await call(sb, { method: "DELETE", path, apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe("");
  });

  it("lists the simulated integrations", async () => {
    const list = await call(sb, { path: "/integrations", apiKey });
    expect(list.json).toMatchObject({ totalResults: 6 });
    expect((await call(sb, { path: "/integrations/qhyg", apiKey })).json).toMatchObject({ name: "QuickBooks Online", sourceType: "Accounting" });
    expect((await call(sb, { path: "/integrations/gbol", apiKey })).status).toBe(404);
  });
});

describe("API keys", () => {
  it("lists, creates (201) and deletes (204); a deleted key answers 403", async () => {
    const { apiKey: key } = await sb.control.createClient({ plan: "paid" });
    const created = await call(sb, { method: "POST", path: "/apiKeys", apiKey: key, body: { name: "ci" } });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ id: expect.any(String), name: "ci", apiKey: expect.stringMatching(/^[A-Za-z0-9]{40}$/), createdDate: expect.any(String) });
    const unnamed = await call(sb, { method: "POST", path: "/apiKeys", apiKey: key, rawBody: "", headers: { "Content-Type": "application/json" } });
    expect(unnamed.json).toMatchObject({ name: null });
    const listed = await call(sb, { path: "/apiKeys", apiKey: key });
    expect(arr(listed.json, "results")).toHaveLength(3);

    const newKey = str(created.json, "apiKey");
    const removed = await call(sb, { method: "DELETE", path: `/apiKeys/${str(created.json, "id")}`, apiKey: newKey });
    expect(removed.status).toBe(204);
    expect(removed.headers.get("content-type")).toBeNull();
    expect((await call(sb, { path: "/companies", apiKey: newKey })).status).toBe(403);
    expect((await call(sb, { method: "DELETE", path: `/apiKeys/${str(created.json, "id")}`, apiKey: key })).status).toBe(404);
  });

  it("refuses a name over 50 characters and another client's key", async () => {
    const long = await call(sb, { method: "POST", path: "/apiKeys", apiKey, body: { name: "x".repeat(51) } });
    expect(long.json).toMatchObject({ statusCode: 400, error: "Max string length (50) for `name` reached." });
    const { apiKey: other } = await sb.control.createClient({ plan: "paid" });
    const otherKeys = await call(sb, { path: "/apiKeys", apiKey: other });
    const otherId = str(arr(otherKeys.json, "results")[0], "id");
    expect((await call(sb, { method: "DELETE", path: `/apiKeys/${otherId}`, apiKey })).status).toBe(403);
  });

  it("accepts only Basic base64(key)", async () => {
    expect((await call(sb, { path: "/companies", auth: `Basic ${apiKey}` })).status).toBe(401);
    expect((await call(sb, { path: "/companies", auth: `Bearer ${apiKey}` })).status).toBe(401);
    expect((await call(sb, { path: "/companies", auth: basicAuth(apiKey) })).status).toBe(200);
    expect((await call(sb, { path: "/companies", auth: basicAuth(apiKey), headers: { cookie: "" } })).status).toBe(200);
  });
});
