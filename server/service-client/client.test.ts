/**
 * The service client against a real sandbox: every row of the seed's status-code table and every
 * 402 and 409 body become the right ServiceError kind with status, service, error text,
 * correlationId and validation; no 4xx is retried (attempts counted through the onAttempt hook);
 * timeouts and network failures; the operations Ferry's pipeline uses; the count of an account's
 * companies; a base URL with a path prefix.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ERROR_TEXT } from "../sandbox/http/errors";
import { startTestSandbox } from "../testing/test-sandbox";
import { createServiceClient } from "./client";
import { closedPort, failure, recordingClient, startFixture, type Fixture } from "../testing/service-fixture";
import type { ServiceError, ServiceErrorKind } from "./service-error";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
});

afterAll(async () => {
  await fx.sb.close();
});

type Row = {
  status: number;
  kind: ServiceErrorKind;
  title: string;
  /** Runs the failing call with a client on the default retry policy; returns its error. */
  run: (f: Fixture) => Promise<{ error: ServiceError; attempts: number }>;
  expected: (f: Fixture) => Partial<ServiceError>;
};

/** Runs one call with a fresh recording client (default retries) and returns its error and attempt count. */
async function withKey(apiKey: string, call: (client: ReturnType<typeof recordingClient>["client"]) => Promise<unknown>) {
  const { client, attempts } = recordingClient(fx, { apiKey });
  const error = await failure(call(client));
  return { error, attempts: attempts.length };
}

const unknownId = randomUUID();

const rows: Row[] = [
  {
    status: 400,
    kind: "bad_request",
    title: "a platform the service does not offer",
    run: (f) => withKey(f.key, (c) => c.createConnection({ companyId: f.qbo.companyId, platformKey: "gbol" })),
    expected: () => ({
      service: "PublicApi",
      error: ERROR_TEXT.badRequest,
      validation: {
        errors: [{ itemId: "platformKey", message: expect.stringContaining("does not simulate platform gbol") as string, validatorName: "CreateConnection" }],
        warnings: [],
      },
    }),
  },
  {
    status: 400,
    kind: "bad_request",
    title: "credentials without the platform's fields",
    run: (f) =>
      withKey(f.key, (c) =>
        c.authorizeConnection({ companyId: f.qbo.companyId, connectionId: f.qbo.connectionId, credentials: { accessToken: "has space" } }),
      ),
    expected: () => ({ service: "PublicApi", error: ERROR_TEXT.badRequest }),
  },
  {
    status: 401,
    kind: "unauthorized",
    title: "a key the service does not know",
    run: () => withKey("not-a-real-key-at-all", (c) => c.getCompany({ companyId: unknownId })),
    expected: () => ({ service: "PublicApi", error: "Unauthorized", validation: null }),
  },
  {
    status: 402,
    kind: "company_limit",
    title: "the 51st company on a free trial",
    run: (f) => withKey(f.fullKey, (c) => c.createCompany({ name: "One too many" })),
    expected: () => ({
      service: "PublicApi",
      error: ERROR_TEXT.companyLimit,
      validation: { errors: [{ itemId: "Company", message: ERROR_TEXT.companyLimitMessage, validatorName: "CreateCompany" }], warnings: [] },
    }),
  },
  {
    status: 402,
    kind: "sync_schedule_not_allowed",
    title: "an hourly sync schedule on a free trial",
    run: (f) =>
      withKey(f.key, async (c) => {
        const profile = await c.request({
          operation: "getSyncSettings",
          method: "GET",
          path: "/profile/syncSettings",
          schema: z.object({ clientId: z.string() }),
        });
        return c.request({
          operation: "setSyncSettings",
          method: "POST",
          path: "/profile/syncSettings",
          body: {
            clientId: profile.data.clientId,
            overridesDefaults: true,
            settings: [{ dataType: "invoices", fetchOnFirstLink: true, syncSchedule: 1, syncOrder: 0 }],
          },
          schema: z.unknown(),
        });
      }),
    expected: () => ({ service: "PublicApi", error: ERROR_TEXT.syncSchedule }),
  },
  {
    status: 402,
    kind: "account_expired",
    title: "a free account older than 365 days",
    run: (f) => withKey(f.expiredKey, (c) => c.findCompaniesByTag({ name: "ferryItem", value: "x" })),
    expected: () => ({
      service: "PublicApi",
      error: ERROR_TEXT.paymentRequired,
      validation: { errors: [{ itemId: null, message: ERROR_TEXT.accountExpiredMessage, validatorName: null }], warnings: [] },
    }),
  },
  {
    status: 403,
    kind: "forbidden",
    title: "a deleted (outdated) key",
    run: (f) => withKey(f.deletedKey, (c) => c.getCompany({ companyId: f.qbo.companyId })),
    expected: () => ({ service: "PublicApi", error: ERROR_TEXT.forbidden }),
  },
  {
    status: 403,
    kind: "forbidden",
    title: "a valid key on another client's company",
    run: (f) => withKey(f.otherKey, (c) => c.listConnections({ companyId: f.qbo.companyId })),
    expected: () => ({ service: "PublicApi", error: ERROR_TEXT.forbidden }),
  },
  {
    status: 404,
    kind: "not_found",
    title: "an unknown company",
    run: (f) => withKey(f.key, (c) => c.getCompany({ companyId: unknownId })),
    expected: () => ({ service: "ClientsApi", error: `No company was found with ID ${unknownId}` }),
  },
  {
    status: 404,
    kind: "not_found",
    title: "an unknown connection",
    run: (f) => withKey(f.key, (c) => c.getConnection({ companyId: f.qbo.companyId, connectionId: unknownId })),
    expected: () => ({ service: "PublicApi", error: `Data connection ${unknownId} not found` }),
  },
  {
    status: 404,
    kind: "data_type_not_supported",
    title: "an accounting read on Shopify",
    run: (f) => withKey(f.key, (c) => c.listAccounts({ companyId: f.shopify.companyId })),
    expected: () => ({ service: "PublicApi", error: "Datatype chartOfAccounts not supported by platform(s) Shopify" }),
  },
  {
    status: 404,
    kind: "data_type_not_supported",
    title: "a commerce read on QuickBooks Online",
    run: (f) => withKey(f.key, (c) => c.listCommerceOrders({ companyId: f.qbo.companyId, connectionId: f.qbo.connectionId })),
    expected: () => ({ service: "PublicApi", error: "Datatype commerce-orders not supported by platform(s) QuickBooks Online" }),
  },
  {
    status: 405,
    kind: "method_not_allowed",
    title: "DELETE /companies",
    run: (f) => withKey(f.key, (c) => c.request({ operation: "deleteAllCompanies", method: "DELETE", path: "/companies", schema: z.unknown() })),
    expected: () => ({ service: "PublicApi", error: "Method Not Allowed: DELETE is not allowed on /companies; allowed: GET, POST." }),
  },
  {
    status: 409,
    kind: "not_ready",
    title: "a data set never requested",
    run: (f) => withKey(f.key, (c) => c.listAccounts({ companyId: f.qbo.companyId })),
    expected: () => ({ service: "PublicApi", error: ERROR_TEXT.datasetNotRequested }),
  },
  {
    status: 409,
    kind: "not_ready",
    title: "a data set whose sync has not finished",
    run: (f) => withKey(f.key, (c) => c.listAccounts({ companyId: f.syncing.companyId })),
    expected: () => ({ service: "PublicApi", error: expect.stringMatching(/^The data set has not finished syncing/) as string }),
  },
  {
    status: 409,
    kind: "not_ready",
    title: "queueing a data type whose sync is in progress",
    run: (f) =>
      withKey(f.key, (c) =>
        c.request({ operation: "queueInvoices", method: "POST", path: `/companies/${f.syncing.companyId}/data/queue/invoices`, schema: z.unknown() }),
      ),
    expected: () => ({ service: "PublicApi", error: expect.stringMatching(/^DatasetAlreadyInProgressException: Cannot queue invoices sync/) as string }),
  },
  {
    status: 409,
    kind: "too_many_values",
    title: "an 11th API key",
    run: (f) => withKey(f.keysFullKey, (c) => c.request({ operation: "createApiKey", method: "POST", path: "/apiKeys", body: { name: "eleventh" }, schema: z.unknown() })),
    expected: () => ({ service: "PublicApi", error: ERROR_TEXT.apiKeyLimit }),
  },
  {
    status: 409,
    kind: "active_connection_exists",
    title: "a second active accounting connection",
    run: (f) => withKey(f.key, (c) => c.createConnection({ companyId: f.qbo.companyId, platformKey: "fbrh" })),
    expected: (f) => ({ service: "PublicApi", error: expect.stringContaining(`Company ${f.qbo.companyId} already has an active accounting connection`) as string }),
  },
];

describe("every error of the seed's status table, with the default retry policy", () => {
  it.each(rows.map((row) => [row.status, row.kind, row.title, row] as const))("%i → %s: %s, tried once", async (status, kind, _title, row) => {
    const { error, attempts } = await row.run(fx);
    expect(error).toMatchObject({ name: "ServiceError", status, kind, attempts: 1, ...row.expected(fx) });
    // No 4xx is retried: exactly one HTTP request for this call (the set-up request of the
    // sync-schedule row is a separate call).
    expect(attempts).toBe(row.kind === "sync_schedule_not_allowed" ? 2 : 1);
    expect(error.retryable).toBe(false);
    expect(error.correlationId).toMatch(UUID);
    expect(error.message).toContain(error.correlationId);
    expect(error.message).toContain(String(status));
    expect(error.rateLimit).toMatchObject({ limit: expect.any(Number) as number, remaining: expect.any(Number) as number });
  });
});

describe("the retryable rows, with retries off (the caller paces)", () => {
  it("429 → rate_limited, with Retry-After and the rate-limit headers", async () => {
    const { client } = recordingClient(fx, { apiKey: fx.key, retry: "none" });
    await fx.sb.control.setFaults({ rateLimitPerSecond: 1 });
    try {
      let error: ServiceError | undefined;
      for (let i = 0; i < 20 && !error; i++) {
        try {
          await client.getCompany({ companyId: fx.qbo.companyId });
        } catch (thrown) {
          error = thrown as ServiceError;
        }
      }
      expect(error).toMatchObject({ kind: "rate_limited", status: 429, service: "PublicApi", error: ERROR_TEXT.tooManyRequests, attempts: 1 });
      expect(error?.retryAfterMs).toBeGreaterThanOrEqual(1000);
      expect(error?.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
      expect(error?.rateLimit?.reset).toBeInstanceOf(Date);
      expect(error?.retryable).toBe(true);
    } finally {
      await fx.sb.control.setFaults({ rateLimitPerSecond: null });
    }
  });

  it("500 → server_error", async () => {
    const { client, attempts } = recordingClient(fx, { apiKey: fx.key, retry: "none" });
    await fx.sb.control.setFaults({ errorRate: 1 });
    try {
      const error = await failure(client.createCompany({ name: "During an outage" }));
      expect(error).toMatchObject({ kind: "server_error", status: 500, service: "PublicApi", error: ERROR_TEXT.internal, attempts: 1 });
      expect(error.correlationId).toMatch(UUID);
      expect(attempts).toHaveLength(1);
    } finally {
      await fx.sb.control.setFaults({ errorRate: 0 });
    }
  });

  it("503 → maintenance, with the sandbox's Retry-After of 30 s", async () => {
    const { client } = recordingClient(fx, { apiKey: fx.key, retry: "none" });
    await fx.sb.control.setFaults({ maintenance: true });
    try {
      const error = await failure(client.getDataStatus({ companyId: fx.qbo.companyId }));
      expect(error).toMatchObject({ kind: "maintenance", status: 503, error: ERROR_TEXT.maintenance, retryAfterMs: 30_000 });
    } finally {
      await fx.sb.control.setFaults({ maintenance: false });
    }
  });

  it("no answer within the timeout → timeout, without a status", async () => {
    const { client } = recordingClient(fx, { apiKey: fx.key, retry: "none", timeoutMs: 50 });
    await fx.sb.control.setFaults({ latencyMs: 1_000 });
    try {
      const error = await failure(client.getCompany({ companyId: fx.qbo.companyId }));
      expect(error).toMatchObject({ kind: "timeout", status: null, service: null, correlationId: null, attempts: 1 });
      expect(error.message).toBe("getCompany failed: timeout: No answer within 50 ms.");
    } finally {
      await fx.sb.control.setFaults({ latencyMs: 0 });
    }
  });

  it("nothing listening → network", async () => {
    const client = createServiceClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, apiKey: fx.key, retry: "none" });
    const error = await failure(client.createCompany({ name: "Nowhere" }));
    expect(error).toMatchObject({ kind: "network", status: null, error: "The service could not be reached (ECONNREFUSED)." });
  });

  it("a 200 whose body is not what the call expects → unexpected", async () => {
    const { client } = recordingClient(fx, { apiKey: fx.key, retry: "none" });
    const error = await failure(
      client.request({ operation: "getCompanyAsConnection", method: "GET", path: `/companies/${fx.qbo.companyId}`, schema: z.object({ platformName: z.string() }) }),
    );
    expect(error).toMatchObject({ kind: "unexpected", status: 200 });
    expect(error.error).toContain("platformName");
    expect(error.correlationId).toMatch(UUID);
  });
});

describe("the calls of one company's migration", () => {
  it("create (tagged) → find by tag → connect → authorize → sync → status → history → read, each with its correlationId", async () => {
    const rateLimits: number[] = [];
    const client = createServiceClient({ baseUrl: fx.sb.url, apiKey: fx.key, onRateLimit: (info) => rateLimits.push(info.remaining ?? -1) });
    const item = randomUUID();
    const created = await client.createCompany({ name: "Harbour (Books)", tags: { ferryItem: item } });
    expect(created.data).toMatchObject({ name: "Harbour Books", tags: { ferryItem: item }, dataConnections: [] });
    expect(created.meta).toMatchObject({ operation: "createCompany", method: "POST", path: "/companies", status: 200, attempts: 1 });
    expect(created.meta.correlationId).toMatch(UUID);
    expect(created.meta.durationMs).toBeGreaterThanOrEqual(0);
    expect(created.meta.rateLimit?.limit).toBeGreaterThan(0);

    const found = await client.findCompaniesByTag({ name: "ferryItem", value: item });
    expect(found.data.map((c) => c.id)).toEqual([created.data.id]);
    expect((await client.findCompaniesByTag({ name: "ferryItem", value: randomUUID() })).data).toEqual([]);

    const companyId = created.data.id;
    expect((await client.listConnections({ companyId })).data).toEqual([]);
    const tenant = await fx.sb.control.createTenant("qhyg", { name: "Harbour Books", records: 20 });
    const connection = await client.createConnection({ companyId, platformKey: "qhyg" });
    expect(connection.data).toMatchObject({ status: "PendingAuth", platformName: "QuickBooks Online" });
    const connectionId = connection.data.id;
    expect((await client.listConnections({ companyId })).data.map((c) => c.id)).toEqual([connectionId]);

    const authorized = await client.authorizeConnection({ companyId, connectionId, credentials: tenant.credentials });
    expect(authorized.data).toMatchObject({ id: connectionId, status: "Linked" });
    expect((await client.getConnection({ companyId, connectionId })).data.status).toBe("Linked");

    const queued = await client.refreshAllData({ companyId });
    expect(queued.meta.status).toBe(204);
    expect(queued.data).toBeUndefined();
    await fx.sb.control.advanceClock({ seconds: 120 });

    const status = await client.getDataStatus({ companyId });
    expect(status.data.chartOfAccounts).toMatchObject({ dataType: "chartOfAccounts", currentStatus: "Complete" });
    expect(status.data.directIncomes).toMatchObject({ currentStatus: "NotSupported" });
    const history = await client.listPullOperations({ companyId, pageSize: 5 });
    expect(history.data).toMatchObject({ pageNumber: 1, pageSize: 5 });
    expect(history.data.results).toHaveLength(5);
    expect(history.data.totalResults).toBeGreaterThan(5);

    const accounts = await client.listAccounts({ companyId, pageSize: 10 });
    expect(accounts.data.totalResults).toBe(20);
    expect(accounts.data.results).toHaveLength(10);
    expect(rateLimits.length).toBeGreaterThanOrEqual(12);
  });

  it("reads commerce orders per connection, and shows a Deauthorized connection's platform error", async () => {
    const client = createServiceClient({ baseUrl: fx.sb.url, apiKey: fx.key });
    const tenant = await fx.sb.control.createTenant("fztf", { name: "Corner Shop", records: 7 });
    const { data: company } = await client.createCompany({ name: "Corner Shop" });
    const { data: connection } = await client.createConnection({ companyId: company.id, platformKey: "fztf" });
    await client.authorizeConnection({ companyId: company.id, connectionId: connection.id, credentials: tenant.credentials });
    await client.refreshAllData({ companyId: company.id });
    await fx.sb.control.advanceClock({ seconds: 60 });
    const orders = await client.listCommerceOrders({ companyId: company.id, connectionId: connection.id });
    expect(orders.data.totalResults).toBe(7);

    const rotated = await fx.sb.control.createTenant("qhyg", { name: "Rotated Ltd" });
    await fx.sb.control.rotate("qhyg", rotated.tenantId);
    const { data: other } = await client.createCompany({ name: "Rotated Ltd" });
    const { data: pending } = await client.createConnection({ companyId: other.id, platformKey: "qhyg" });
    const refused = await client.authorizeConnection({ companyId: other.id, connectionId: pending.id, credentials: rotated.credentials });
    expect(refused.data.status).toBe("Deauthorized");
    expect(refused.data.dataConnectionErrors?.[0]).toMatchObject({ statusCode: "400", status: "Active" });
    expect(refused.data.dataConnectionErrors?.[0]?.errorMessage).toContain("invalid_grant");
  });
});

describe("counting an account's companies", () => {
  it("reads totalResults from a page of one, with the call's metadata; a refused key is a ServiceError", async () => {
    const { apiKey } = await fx.sb.control.createClient({ plan: "paid" });
    const client = createServiceClient({ baseUrl: fx.sb.url, apiKey });
    const none = await client.countCompanies();
    expect(none.data).toBe(0);
    expect(none.meta).toMatchObject({ operation: "countCompanies", method: "GET", path: "/companies?page=1&pageSize=1", status: 200, attempts: 1 });
    expect(none.meta.correlationId).toMatch(UUID);
    for (const name of ["First Co", "Second Co", "Third Co"]) await client.createCompany({ name });
    expect((await client.countCompanies()).data).toBe(3);
    // A free trial full at 50 companies: the count a stopped bulk run quotes.
    expect((await createServiceClient({ baseUrl: fx.sb.url, apiKey: fx.fullKey }).countCompanies()).data).toBe(50);
    const refused = await failure(createServiceClient({ baseUrl: fx.sb.url, apiKey: "not-a-real-key-at-all", retry: "none" }).countCompanies());
    expect(refused).toMatchObject({ kind: "unauthorized", status: 401, operation: "countCompanies" });
  });
});

describe("a base URL with a path prefix", () => {
  it("sends every call below the prefix; without it the service answers 404", async () => {
    const prefixed = await startTestSandbox({ basePath: "/codat" });
    try {
      expect(prefixed.url).toMatch(/\/codat$/);
      const { apiKey } = await prefixed.control.createClient({ plan: "paid" });
      const client = createServiceClient({ baseUrl: `${prefixed.url}/`, apiKey });
      const { data: company } = await client.createCompany({ name: "Behind a proxy", tags: { ferryItem: "p-1" } });
      expect((await client.getCompany({ companyId: company.id })).data.name).toBe("Behind a proxy");
      expect((await client.findCompaniesByTag({ name: "ferryItem", value: "p-1" })).data).toHaveLength(1);

      const bare = createServiceClient({ baseUrl: prefixed.url.replace(/\/codat$/, ""), apiKey, retry: "none" });
      expect(await failure(bare.getCompany({ companyId: company.id }))).toMatchObject({ kind: "not_found", status: 404 });
    } finally {
      await prefixed.close();
    }
  });
});
