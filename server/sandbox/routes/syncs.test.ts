/**
 * Syncs and data reads: nothing on first link, Queued → Fetching → Complete on the sandbox clock,
 * FetchError and NotSupported, and the tenant's records served paged once a sync completed.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getManagedPlatform } from "../../platforms";
import { arr, call, createCompany, createConnection, linkedCompany, str, syncAndFinish } from "../../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";

let sb: TestSandbox;
let apiKey: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createClient({ plan: "paid" }));
});

afterAll(async () => {
  await sb.close();
});

type Status = { dataType: string; currentStatus: string; latestSyncId?: string; latestSuccessfulSyncId?: string };

async function statuses(companyId: string): Promise<Record<string, Status>> {
  const result = await call(sb, { path: `/companies/${companyId}/dataStatus`, apiKey });
  expect(result.status).toBe(200);
  return result.json as Record<string, Status>;
}

describe("pull operations", () => {
  it("queues nothing on first link; data/all queues every supported type and marks the rest NotSupported", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "fbrh", tenant: { records: 10_000 } });
    expect(await statuses(linked.companyId)).toEqual({});
    const history = await call(sb, { path: `/companies/${linked.companyId}/data/history`, apiKey });
    expect(history.json).toMatchObject({ totalResults: 0, results: [] });

    const queued = await call(sb, { method: "POST", path: `/companies/${linked.companyId}/data/all`, apiKey });
    expect(queued.status).toBe(204);
    expect(queued.text).toBe("");
    expect(queued.headers.get("content-type")).toBeNull();

    const platform = getManagedPlatform("fbrh");
    const now = await statuses(linked.companyId);
    for (const dataType of platform?.supportedDataTypes ?? []) expect(now[dataType]?.currentStatus).toMatch(/^(Queued|Fetching)$/);
    expect(now.purchaseOrders?.currentStatus).toBe("NotSupported");
    expect(Object.keys(now)).toHaveLength(28);
  });

  it("moves Queued → Fetching → Complete with the sandbox clock, a large tenant more slowly than a small one", async () => {
    const small = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { records: 10 } });
    const large = await linkedCompany(sb, { apiKey, platformKey: "rwuv", tenant: { records: 20_000 } });
    for (const c of [small, large]) {
      expect((await call(sb, { method: "POST", path: `/companies/${c.companyId}/data/all`, apiKey })).status).toBe(204);
    }
    await sb.control.advanceClock({ seconds: 10 });
    expect((await statuses(small.companyId)).invoices?.currentStatus).toBe("Complete");
    const fetching = await call(sb, {
      path: `/companies/${large.companyId}/data/history?query=${encodeURIComponent("dataType=invoices")}`,
      apiKey,
    });
    const op = arr(fetching.json, "results")[0] as { status: string; progress: number; isCompleted: boolean };
    expect(op.status).toBe("Fetching");
    expect(op.progress).toBeGreaterThan(10);
    expect(op.progress).toBeLessThan(100);
    expect(op.isCompleted).toBe(false);

    await sb.control.advanceClock({ seconds: 600 });
    const done = await statuses(large.companyId);
    expect(done.invoices).toMatchObject({ currentStatus: "Complete" });
    expect(done.invoices?.latestSyncId).toBe(done.invoices?.latestSuccessfulSyncId);
    const company = await call(sb, { path: `/companies/${large.companyId}`, apiKey });
    expect(company.json).toMatchObject({ lastSync: expect.any(String), dataConnections: [{ lastSync: expect.any(String) }] });
  });

  it("ends FetchError for the data types the tenant fails, keeping the last success", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { fetchErrorDataTypes: ["bills"] } });
    await syncAndFinish(sb, apiKey, linked.companyId);
    const after = await statuses(linked.companyId);
    expect(after.bills).toMatchObject({ currentStatus: "FetchError" });
    expect(after.bills?.latestSuccessfulSyncId).toBeUndefined();
    const op = await call(sb, { path: `/companies/${linked.companyId}/data/history/${after.bills?.latestSyncId}`, apiKey });
    expect(op.json).toMatchObject({
      status: "FetchError",
      isErrored: true,
      isCompleted: true,
      errorMessage: expect.stringContaining("QuickBooks Online returned an error while fetching bills"),
    });
    const read = await call(sb, { path: `/companies/${linked.companyId}/data/bills`, apiKey });
    expect(read.status).toBe(409);
    expect(read.json).toMatchObject({ error: `The data set has not finished syncing: its latest sync (${after.bills?.latestSyncId}) is FetchError.` });
  });

  it("queues one data type: 200 with the operation; NotSupported for a type the platform lacks; 400 for an unknown type", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "pbtz" });
    const one = await call(sb, { method: "POST", path: `/companies/${linked.companyId}/data/queue/invoices`, apiKey });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ dataType: "invoices", status: "Queued", progress: 0, connectionId: linked.connectionId });
    const lacking = await call(sb, { method: "POST", path: `/companies/${linked.companyId}/data/queue/creditNotes`, apiKey });
    expect(lacking.json).toMatchObject({ status: "NotSupported", isCompleted: true, isErrored: false });
    const unknown = await call(sb, { method: "POST", path: `/companies/${linked.companyId}/data/queue/nonsense`, apiKey });
    expect(unknown.status).toBe(400);
    const byConnection = await call(sb, {
      method: "POST",
      path: `/companies/${linked.companyId}/data/queue/bills?connectionId=${linked.connectionId}`,
      apiKey,
    });
    expect(byConnection.json).toMatchObject({ dataType: "bills", connectionId: linked.connectionId });
  });

  it("syncs nothing for a connection still PendingAuth", async () => {
    const companyId = await createCompany(sb, apiKey, "Pending");
    await createConnection(sb, apiKey, companyId, "qhyg");
    expect((await call(sb, { method: "POST", path: `/companies/${companyId}/data/all`, apiKey })).status).toBe(204);
    expect(await statuses(companyId)).toEqual({});
    const single = await call(sb, { method: "POST", path: `/companies/${companyId}/data/queue/invoices`, apiKey });
    expect(single.status).toBe(400);
  });

  it("leaves out of data/all the types whose sync settings turn fetchOnFirstLink off", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg" });
    const set = await call(sb, {
      method: "POST",
      path: `/companies/${linked.companyId}/syncSettings`,
      apiKey,
      body: {
        companyId: linked.companyId,
        overridesDefaults: true,
        settings: [{ dataType: "journals", fetchOnFirstLink: false, syncSchedule: 24, syncOrder: 0 }],
      },
    });
    expect(set.status).toBe(204);
    await call(sb, { method: "POST", path: `/companies/${linked.companyId}/data/all`, apiKey });
    const now = await statuses(linked.companyId);
    expect(now.journals).toBeUndefined();
    expect(now.invoices?.currentStatus).toMatch(/^(Queued|Fetching)$/);
  });

  it("pages and queries the history; isCompleted is not queryable", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg" });
    await syncAndFinish(sb, apiKey, linked.companyId);
    const page = await call(sb, { path: `/companies/${linked.companyId}/data/history?page=2&pageSize=5`, apiKey });
    expect(page.json).toMatchObject({
      pageNumber: 2,
      pageSize: 5,
      totalResults: 28,
      _links: {
        self: { href: `/companies/${linked.companyId}/data/history` },
        current: { href: `/companies/${linked.companyId}/data/history?page=2&pageSize=5` },
        next: { href: `/companies/${linked.companyId}/data/history?page=3&pageSize=5` },
        previous: { href: `/companies/${linked.companyId}/data/history?page=1&pageSize=5` },
      },
    });
    const notSupported = await call(sb, {
      path: `/companies/${linked.companyId}/data/history?query=${encodeURIComponent("status=NotSupported")}`,
      apiKey,
    });
    expect(notSupported.json).toMatchObject({ totalResults: 2 });
    const bad = await call(sb, { path: `/companies/${linked.companyId}/data/history?query=isCompleted%3Dtrue`, apiKey });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      service: "PullApi",
      error: "Error parsing query - Could not resolve property isCompleted on Dataset",
    });
    const missing = await call(sb, { path: `/companies/${linked.companyId}/data/history/${randomUUID()}`, apiKey });
    expect(missing.status).toBe(404);
  });
});

describe("data reads", () => {
  it("serves accounting records paged, the same on every read, with query and orderBy", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { records: 45 } });
    await syncAndFinish(sb, apiKey, linked.companyId);

    const page = await call(sb, { path: `/companies/${linked.companyId}/data/accounts?page=3&pageSize=20`, apiKey });
    expect(page.json).toMatchObject({ pageNumber: 3, pageSize: 20, totalResults: 45 });
    expect(arr(page.json, "results")).toHaveLength(5);
    expect(arr(page.json, "results")[0]).toMatchObject({ id: "ACC-000041", status: "Active" });
    const again = await call(sb, { path: `/companies/${linked.companyId}/data/accounts?page=3&pageSize=20`, apiKey });
    expect(again.json).toEqual(page.json);

    const paid = await call(sb, {
      path: `/companies/${linked.companyId}/data/invoices?query=${encodeURIComponent("status=Paid")}&orderBy=-totalAmount`,
      apiKey,
    });
    const results = arr(paid.json, "results") as { status: string; totalAmount: number }[];
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r.status === "Paid")).toBe(true);
    const amounts = results.map((r) => r.totalAmount);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));

    const unknown = await call(sb, { path: `/companies/${linked.companyId}/data/invoices?query=colour%3Dred`, apiKey });
    expect(unknown.json).toMatchObject({ statusCode: 400, error: "Error parsing query - Could not resolve property colour on Invoice" });

    for (const path of ["customers", "suppliers", "bills", "purchaseOrders"]) {
      const read = await call(sb, { path: `/companies/${linked.companyId}/data/${path}?pageSize=1`, apiKey });
      expect(read.status).toBe(200);
      expect(read.json).toMatchObject({ totalResults: 45 });
    }
    const info = await call(sb, { path: `/companies/${linked.companyId}/data/info`, apiKey });
    expect(info.json).toMatchObject({ companyName: "Tenant Ltd", baseCurrency: expect.stringMatching(/^[A-Z]{3}$/) });
  });

  it("serves the last complete data while a newer sync runs", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "rwuv", tenant: { records: 5000 } });
    await syncAndFinish(sb, apiKey, linked.companyId);
    await call(sb, { method: "POST", path: `/companies/${linked.companyId}/data/all`, apiKey });
    expect((await statuses(linked.companyId)).invoices?.currentStatus).toMatch(/^(Queued|Fetching)$/);
    const read = await call(sb, { path: `/companies/${linked.companyId}/data/invoices?pageSize=5`, apiKey });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ totalResults: 5000 });
  });

  it("answers 404 for a type the platform lacks", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "fbrh" });
    const read = await call(sb, { path: `/companies/${linked.companyId}/data/purchaseOrders`, apiKey });
    expect(read.status).toBe(404);
    expect(read.json).toMatchObject({ error: "Datatype purchaseOrders not supported by platform(s) FreeAgent" });
  });

  it("serves commerce records per connection", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "fztf", tenant: { records: 12 } });
    await syncAndFinish(sb, apiKey, linked.companyId);
    const base = `/companies/${linked.companyId}/connections/${linked.connectionId}/data`;
    for (const [path, first] of [
      ["commerce-orders", "ORD-000001"],
      ["commerce-products", "PRD-000001"],
      ["commerce-customers", "CUS-000001"],
    ] as const) {
      const read = await call(sb, { path: `${base}/${path}`, apiKey });
      expect(read.json).toMatchObject({ totalResults: 12, results: expect.arrayContaining([expect.objectContaining({ id: first })]) });
    }
    const info = await call(sb, { path: `${base}/commerce-info`, apiKey });
    expect(info.json).toMatchObject({ companyName: "Tenant Ltd" });
    const other = await call(sb, { path: `/companies/${linked.companyId}/connections/${randomUUID()}/data/commerce-orders`, apiKey });
    expect(other.status).toBe(404);
    expect(str(other.json, "error")).toMatch(/^Data connection .* not found$/);
  });
});
