/**
 * What a client needs to tell whether a company's data is complete: validation results per
 * dataset (none by default, the tenant's configured errors and warnings otherwise), Zoho Books'
 * organisation's daily limit running out mid-fetch (fewer records than the tenant holds) and Shopify's count cap of 25,000.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, linkedCompany, syncAndFinish } from "../../testing/raw-http";
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

type Status = { latestSyncId?: string; latestSuccessfulSyncId?: string };

async function datasetOf(companyId: string, dataType: string): Promise<string> {
  const statuses = (await call(sb, { path: `/companies/${companyId}/dataStatus`, apiKey })).json as Record<string, Status>;
  const id = statuses[dataType]?.latestSuccessfulSyncId;
  if (!id) throw new Error(`no dataset of ${dataType}`);
  return id;
}

async function count(path: string): Promise<number> {
  const page = await call(sb, { path: `${path}?page=1&pageSize=1`, apiKey });
  expect(page.status).toBe(200);
  return (page.json as { totalResults: number }).totalResults;
}

describe("validation results", () => {
  it("shows none for a tenant made without issues, and the configured errors and warnings naming served records otherwise", async () => {
    const plain = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { records: 5 } });
    const flawed = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { records: 5, validationIssues: { invoices: { errors: 2, warnings: 1 } } } });
    for (const c of [plain, flawed]) await syncAndFinish(sb, apiKey, c.companyId);

    const none = await call(sb, { path: `/companies/${plain.companyId}/sync/${await datasetOf(plain.companyId, "invoices")}/validation`, apiKey });
    expect(none.status).toBe(200);
    expect(none.json).toEqual({ errors: [], warnings: [] });

    const some = await call(sb, { path: `/companies/${flawed.companyId}/sync/${await datasetOf(flawed.companyId, "invoices")}/validation`, apiKey });
    const body = some.json as { errors: { itemId: string; message: string; validatorName: string }[]; warnings: { itemId: string; message: string }[] };
    expect(body.errors).toHaveLength(2);
    expect(body.warnings).toHaveLength(1);
    expect(new Set(body.errors.map((e) => e.message)).size).toBe(1);
    expect(body.errors[0]).toMatchObject({ itemId: "INV-000001", validatorName: "InvoiceValidator" });
    // The same answer again (deterministic), and the record it names is one the read serves.
    expect((await call(sb, { path: `/companies/${flawed.companyId}/sync/${await datasetOf(flawed.companyId, "invoices")}/validation`, apiKey })).json).toEqual(body);
    const first = await call(sb, { path: `/companies/${flawed.companyId}/data/invoices?page=1&pageSize=1`, apiKey });
    expect((first.json as { results: { id: string }[] }).results[0]?.id).toBe("INV-000001");

    const bills = await call(sb, { path: `/companies/${flawed.companyId}/sync/${await datasetOf(flawed.companyId, "bills")}/validation`, apiKey });
    expect(bills.json).toEqual({ errors: [], warnings: [] });
  });

  it("answers 404 for a dataset of another company", async () => {
    const a = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { records: 1 } });
    const b = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { records: 1 } });
    await syncAndFinish(sb, apiKey, a.companyId);
    const answer = await call(sb, { path: `/companies/${b.companyId}/sync/${await datasetOf(a.companyId, "invoices")}/validation`, apiKey });
    expect(answer.status).toBe(404);
  });
});

describe("platform caveats", () => {
  it("reads a Zoho Books tenant's transactional data types only up to its daily limit, its chart of accounts whole", async () => {
    const zoho = await linkedCompany(sb, { apiKey, platformKey: "rwuv", tenant: { records: 1_040, dailyLimitRecords: 812 } });
    await syncAndFinish(sb, apiKey, zoho.companyId);
    expect(await count(`/companies/${zoho.companyId}/data/invoices`)).toBe(812);
    expect(await count(`/companies/${zoho.companyId}/data/accounts`)).toBe(1_040);
  });

  it("refuses a daily limit for another platform", async () => {
    await expect(sb.control.createTenant("qhyg", { name: "Not Zoho", dailyLimitRecords: 10 })).rejects.toThrow(/Zoho Books/);
  });

  it("caps Shopify's counts at 25,000, while its pages go on", async () => {
    const shop = await linkedCompany(sb, { apiKey, platformKey: "fztf", tenant: { records: 30_000 } });
    await syncAndFinish(sb, apiKey, shop.companyId);
    const base = `/companies/${shop.companyId}/connections/${shop.connectionId}/data/commerce-orders`;
    expect(await count(base)).toBe(25_000);
    const late = await call(sb, { path: `${base}?page=29000&pageSize=1`, apiKey });
    expect((late.json as { results: unknown[] }).results).toHaveLength(1);
    const small = await linkedCompany(sb, { apiKey, platformKey: "fztf", tenant: { records: 40 } });
    await syncAndFinish(sb, apiKey, small.companyId);
    expect(await count(`/companies/${small.companyId}/connections/${small.connectionId}/data/commerce-orders`)).toBe(40);
  });
});
