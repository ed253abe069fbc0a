/**
 * The migration flow and its error cases through the service's official SDK, `@codat/platform`,
 * pointed at the sandbox: every response must pass the SDK's own schemas.
 */
import { CodatPlatform } from "@codat/platform";
import * as errors from "@codat/platform/sdk/models/errors/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, createCompany } from "../testing/raw-http";
import { basicAuth, startTestSandbox, type TestSandbox } from "../testing/test-sandbox";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});

afterAll(async () => {
  await sb.close();
});

function sdk(apiKey: string): CodatPlatform {
  return new CodatPlatform({ serverURL: sb.url, authHeader: basicAuth(apiKey), retryConfig: { strategy: "none" } });
}

/** The SDK's typed error for a call, or a failure if it did not throw one. */
async function sdkError(promise: Promise<unknown>): Promise<errors.ErrorMessage> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof errors.ErrorMessage) return error;
    throw error;
  }
  throw new Error("expected the SDK call to fail");
}

describe("the official SDK against the sandbox", () => {
  it("walks the migration: company → connection → authorization → sync → data", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "free" });
    // 5,000 records: each type syncs for ~10 s of sandbox time, so "still running" is observable.
    const tenant = await sb.control.createTenant("qhyg", { name: "Harbour Books", records: 5000, fetchErrorDataTypes: ["journals"] });
    const codat = sdk(apiKey);

    const company = await codat.companies.create({ name: "Harbour Books", description: "migrated", tags: { item: "m-001" } });
    expect(company.name).toBe("Harbour Books");
    expect(company.tags).toEqual({ item: "m-001" });

    const listed = await codat.companies.list({ tags: "item=m-001", page: 1, pageSize: 100 });
    expect(listed.results?.map((c) => c.id)).toEqual([company.id]);

    const connection = await codat.connections.create({ companyId: company.id, requestBody: { platformKey: "qhyg" } });
    expect(connection.status).toBe("PendingAuth");
    expect(connection.sourceType).toBe("Accounting");
    expect(connection.platformName).toBe("QuickBooks Online");

    const linked = await codat.connections.updateAuthorization({
      companyId: company.id,
      connectionId: connection.id,
      requestBody: tenant.credentials,
    });
    expect(linked.status).toBe("Linked");
    expect(linked.connectionInfo).toEqual({ realmId: tenant.credentials.realmId });

    // No fetch on first link: nothing has been queued yet.
    expect(await codat.refreshData.get({ companyId: company.id })).toEqual({});

    await codat.refreshData.all({ companyId: company.id });
    const queued = await codat.refreshData.get({ companyId: company.id });
    expect(queued.invoices?.currentStatus).toMatch(/^(Queued|Fetching)$/);

    await sb.control.advanceClock({ seconds: 120 });
    const statuses = await codat.refreshData.get({ companyId: company.id });
    expect(statuses.invoices?.currentStatus).toBe("Complete");
    expect(statuses.journals?.currentStatus).toBe("FetchError");
    expect(statuses.directIncomes?.currentStatus).toBe("NotSupported");
    expect(statuses.invoices?.latestSuccessfulSyncId).toBe(statuses.invoices?.latestSyncId);

    const history = await codat.refreshData.listPullOperations({ companyId: company.id, page: 1, pageSize: 100 });
    expect(history.totalResults).toBeGreaterThan(20);
    const invoicesOp = history.results?.find((op) => op.dataType === "invoices");
    expect(invoicesOp).toMatchObject({ status: "Complete", progress: 100, isCompleted: true, isErrored: false });
    const one = await codat.refreshData.getPullOperation({ companyId: company.id, datasetId: invoicesOp?.id ?? "" });
    expect(one.id).toBe(invoicesOp?.id);

    const requeued = await codat.refreshData.byDataType({ companyId: company.id, dataType: "invoices" });
    expect(requeued.status).toBe("Queued");

    const fresh = await codat.companies.get({ companyId: company.id });
    expect(fresh.lastSync).toBeDefined();
    expect(fresh.dataConnections?.[0]?.status).toBe("Linked");

    const invoices = await call(sb, { path: `/companies/${company.id}/data/invoices?page=1&pageSize=10`, apiKey });
    expect(invoices.status).toBe(200);
    expect(invoices.json).toMatchObject({ pageNumber: 1, pageSize: 10, totalResults: 5000 });
  });

  it("accepts every other shape the SDK reads: lists, keys, settings, push, unlink, deletes", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    const tenant = await sb.control.createTenant("fztf", { name: "Corner Shop", pushDelaySeconds: 0 });
    const codat = sdk(apiKey);
    const company = await codat.companies.create({ name: "Corner Shop" });
    const updated = await codat.companies.update({ companyId: company.id, companyUpdateRequest: { description: "shop" } });
    expect(updated.description).toBe("shop");
    const connection = await codat.connections.create({ companyId: company.id, requestBody: { platformKey: "fztf" } });
    await codat.connections.updateAuthorization({ companyId: company.id, connectionId: connection.id, requestBody: tenant.credentials });
    const connections = await codat.connections.list({ companyId: company.id, page: 1, pageSize: 10 });
    expect(connections.results?.[0]?.sourceType).toBe("Commerce");

    const key = await codat.settings.createApiKey({ name: "ci" });
    expect(key.name).toBe("ci");
    const keys = await codat.settings.listApiKeys();
    expect(keys.results?.length).toBe(2);

    const profile = await codat.settings.getSyncSettings();
    expect(profile.settings?.length).toBe(43);
    await codat.settings.updateSyncSettings({
      clientId: profile.clientId ?? "",
      overridesDefaults: true,
      settings: [{ dataType: "invoices", fetchOnFirstLink: true, syncSchedule: 1, syncOrder: 0 }],
    });
    await codat.companies.setCompanySyncSettings({
      companyId: company.id,
      requestBody: {
        companyId: company.id,
        settings: [{ dataType: "commerce-orders", fetchOnFirstLink: false, syncSchedule: 24, syncOrder: 0 }],
        overridesDefaults: true,
      },
    });
    const companySettings = await codat.companies.getCompanySyncSettings({ companyId: company.id });
    expect(companySettings.settings?.[0]?.dataType).toBe("commerce-orders");

    const pushed = await call(sb, {
      method: "POST",
      path: `/companies/${company.id}/connections/${connection.id}/push/invoices`,
      apiKey,
      body: {},
    });
    expect(pushed.status).toBe(404);

    const ops = await codat.pushData.listOperations({ companyId: company.id, page: 1, pageSize: 10 });
    expect(ops.totalResults).toBe(0);

    const unlinked = await codat.connections.unlink({
      companyId: company.id,
      connectionId: connection.id,
      updateConnectionStatus: { status: "Unlinked" },
    });
    expect(unlinked.status).toBe("Unlinked");
    await codat.connections.delete({ companyId: company.id, connectionId: connection.id });
    await codat.companies.delete({ companyId: company.id });
    const gone = await sdkError(codat.companies.get({ companyId: company.id }));
    expect(gone.statusCode).toBe(404);
  });

  it("reads push operations through the SDK", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    const tenant = await sb.control.createTenant("rwuv", { name: "Ledger Co" });
    const codat = sdk(apiKey);
    const company = await codat.companies.create({ name: "Ledger Co" });
    const connection = await codat.connections.create({ companyId: company.id, requestBody: { platformKey: "rwuv" } });
    await codat.connections.updateAuthorization({ companyId: company.id, connectionId: connection.id, requestBody: tenant.credentials });
    const created = await call(sb, {
      method: "POST",
      path: `/companies/${company.id}/connections/${connection.id}/push/accounts`,
      apiKey,
      body: { name: "Consulting income", nominalCode: "4000" },
    });
    const key = (created.json as { pushOperationKey: string }).pushOperationKey;
    await sb.control.advanceClock({ seconds: 5 });
    const op = await codat.pushData.getOperation({ companyId: company.id, pushOperationKey: key });
    expect(op.status).toBe("Success");
    expect(op.statusCode).toBe(200);
    expect(op.dataType).toBe("chartOfAccounts");
    const list = await codat.pushData.listOperations({ companyId: company.id, page: 1, pageSize: 10 });
    expect(list.results?.[0]?.pushOperationKey).toBe(key);
  });

  it("manages webhook consumers through the SDK, and refuses a bad one as its ErrorMessage", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    const codat = sdk(apiKey);
    const created = await codat.webhooks.createConsumer({
      url: "https://example.com/hooks",
      eventTypes: ["connection.disconnected"],
      companyTags: ["region:uk"],
    });
    expect(created).toEqual({
      id: expect.any(String) as unknown,
      url: "https://example.com/hooks",
      eventTypes: ["connection.disconnected"],
      companyTags: ["region:uk"],
      disabled: false,
    });
    expect((await codat.webhooks.listConsumers()).results?.map((c) => c.id)).toEqual([created.id]);
    await codat.webhooks.deleteConsumer({ webhookId: created.id ?? "" });
    expect((await codat.webhooks.listConsumers()).results).toEqual([]);
    const refused = await sdkError(codat.webhooks.createConsumer({ url: "not a url", eventTypes: ["connection.disconnected"] }));
    expect(refused.statusCode).toBe(400);
    expect(refused.validation?.errors?.[0]?.itemId).toBe("url");
  });

  it("surfaces the error cases as the SDK's ErrorMessage", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "free" });

    const unauthorized = await sdkError(sdk("wrong-key").companies.list());
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.error).toBe("Unauthorized");
    expect(unauthorized.correlationId).toMatch(/^[0-9a-f-]{36}$/);

    for (let i = 0; i < 50; i++) await createCompany(sb, apiKey, `C${i}`);
    const limit = await sdkError(sdk(apiKey).companies.create({ name: "Fifty-one" }));
    expect(limit.statusCode).toBe(402);
    expect(limit.error).toBe("CompanyValidationException: Company limit exceeded");
    expect(limit.validation?.errors?.[0]).toEqual({
      itemId: "Company",
      message: "Company limit exceeded. Learn more at https://docs.codat.io/using-the-api/errors",
      validatorName: "CreateCompany",
    });

    const missing = await sdkError(sdk(apiKey).companies.get({ companyId: "8a210b68-6988-11ed-a1eb-0242ac120002" }));
    expect(missing.statusCode).toBe(404);
    expect(missing.service).toBe("ClientsApi");

    const codat = sdk(apiKey);
    for (let i = 0; i < 9; i++) await codat.settings.createApiKey({ name: `k${i}` });
    const tooMany = await sdkError(codat.settings.createApiKey({ name: "eleventh" }));
    expect(tooMany.statusCode).toBe(409);
    expect(tooMany.error).toMatch(/^Maximum number of API keys reached/);

    const maintenance = await sb.control.setFaults({ maintenance: true });
    expect(maintenance.maintenance).toBe(true);
    try {
      const down = await sdkError(codat.companies.list());
      expect(down.statusCode).toBe(503);
    } finally {
      await sb.control.setFaults({ maintenance: false });
    }
  });
});

describe("the sandbox mounted under a path prefix", () => {
  it("serves the SDK at serverURL http://host:port/codat and answers 404 outside the prefix", async () => {
    const prefixed = await startTestSandbox({ basePath: "/codat" });
    try {
      expect(prefixed.url).toMatch(/\/codat$/);
      const { apiKey } = await prefixed.control.createClient({ plan: "paid" });
      const codat = new CodatPlatform({ serverURL: prefixed.url, authHeader: basicAuth(apiKey), retryConfig: { strategy: "none" } });
      const company = await codat.companies.create({ name: "Prefixed Ltd" });
      expect((await codat.companies.get({ companyId: company.id })).name).toBe("Prefixed Ltd");
      const outside = await fetch(`${new URL(prefixed.url).origin}/companies`, { headers: { authorization: basicAuth(apiKey) } });
      expect(outside.status).toBe(404);
      expect(outside.headers.get("content-type")).toMatch(/^application\/json/);
    } finally {
      await prefixed.close();
    }
  });
});
