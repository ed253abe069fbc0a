/**
 * The contract suite: one row per line of the seed's status-code table and per 402 and 409
 * condition, each checking the exact body, the content type and the correlation id.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_TEXT } from "./http/errors";
import { arr, call, createCompany, linkedCompany, str, UUID, type CallResult } from "../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../testing/test-sandbox";

type Fixture = {
  sb: TestSandbox;
  key: string;
  otherKey: string;
  fullKey: string;
  expiredKey: string;
  keysFullKey: string;
  deletedKey: string;
  companyId: string;
  qboConnectionId: string;
  syncingCompanyId: string;
  shopifyCompanyId: string;
};

let fx: Fixture;

beforeAll(async () => {
  const sb = await startTestSandbox();
  const { apiKey: key } = await sb.control.createClient({ plan: "free" });
  const { apiKey: otherKey } = await sb.control.createClient({ plan: "free" });
  const { apiKey: fullKey } = await sb.control.createClient({ plan: "free" });
  const { apiKey: keysFullKey } = await sb.control.createClient({ plan: "paid" });
  const { apiKey: expiredKey } = await sb.control.createClient({
    plan: "free",
    createdAt: new Date(Date.now() - 400 * 86_400_000).toISOString(),
  });

  for (let i = 0; i < 50; i++) await createCompany(sb, fullKey, `Company ${i + 1}`);
  for (let i = 0; i < 9; i++) {
    const created = await call(sb, { method: "POST", path: "/apiKeys", apiKey: keysFullKey, body: { name: `key ${i}` } });
    expect(created.status).toBe(201);
  }
  const extra = await call(sb, { method: "POST", path: "/apiKeys", apiKey: key, body: { name: "to delete" } });
  const deletedKey = str(extra.json, "apiKey");
  expect((await call(sb, { method: "DELETE", path: `/apiKeys/${str(extra.json, "id")}`, apiKey: key })).status).toBe(204);

  const qbo = await linkedCompany(sb, { apiKey: key, platformKey: "qhyg" });
  // A large tenant: its sync stays in progress for minutes of sandbox time.
  const syncing = await linkedCompany(sb, { apiKey: key, platformKey: "rwuv", tenant: { records: 100_000 } });
  expect((await call(sb, { method: "POST", path: `/companies/${syncing.companyId}/data/all`, apiKey: key })).status).toBe(204);
  const shopify = await linkedCompany(sb, { apiKey: key, platformKey: "fztf" });

  fx = {
    sb,
    key,
    otherKey,
    fullKey,
    expiredKey,
    keysFullKey,
    deletedKey,
    companyId: qbo.companyId,
    qboConnectionId: qbo.connectionId,
    syncingCompanyId: syncing.companyId,
    shopifyCompanyId: shopify.companyId,
  };
});

afterAll(async () => {
  await fx.sb.close();
});

type Row = {
  code: number;
  title: string;
  run: (fx: Fixture) => Promise<CallResult>;
  /** The exact error body without correlationId; omitted for success rows (checked in `check`). */
  body?: (fx: Fixture) => Record<string, unknown>;
  check?: (result: CallResult, fx: Fixture) => void;
};

const unknownId = randomUUID();

const rows: Row[] = [
  {
    code: 200,
    title: "Success: GET /companies/{id}",
    run: (f) => call(f.sb, { path: `/companies/${f.companyId}`, apiKey: f.key }),
    check: (r, f) => {
      expect(r.json).toMatchObject({ id: f.companyId, name: "qhyg company" });
      expect(arr(r.json, "dataConnections")).toHaveLength(1);
    },
  },
  {
    code: 202,
    title: "Accepted (pending): the platform answers a write 202, the service 200 with the Pending operation",
    run: (f) =>
      call(f.sb, {
        method: "POST",
        path: `/companies/${f.companyId}/connections/${f.qboConnectionId}/push/accounts`,
        apiKey: f.key,
        body: { name: "Sandbox test account", nominalCode: "4100" },
      }),
    check: (r) => {
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ status: "Pending", statusCode: 200, platformStatusCode: 202, dataType: "chartOfAccounts" });
    },
  },
  {
    code: 400,
    title: "Bad Request: malformed JSON body",
    run: (f) => call(f.sb, { method: "POST", path: "/companies", apiKey: f.key, rawBody: '{"name": "Acme"' }),
    body: () => ({
      statusCode: 400,
      service: "PublicApi",
      error: ERROR_TEXT.badRequest,
      validation: {
        errors: [{ itemId: "body", message: expect.stringContaining("The request body is not valid JSON") }],
        warnings: [],
      },
    }),
  },
  {
    code: 400,
    title: "Bad Request: malformed query",
    run: (f) => call(f.sb, { path: "/companies?query=%7Bname%3DAcme", apiKey: f.key }),
    body: () => ({
      statusCode: 400,
      service: "ClientsApi",
      error: ERROR_TEXT.malformedQuery,
      validation: { errors: [{ itemId: "query", message: expect.any(String), validatorName: "Query" }], warnings: [] },
    }),
  },
  {
    code: 400,
    title: "Bad Request: page is not a number",
    run: (f) => call(f.sb, { path: "/companies?page=abc", apiKey: f.key }),
    body: () => ({
      statusCode: 400,
      service: "PublicApi",
      error: ERROR_TEXT.badRequest,
      validation: {
        errors: [{ itemId: "page", message: "page must be a whole number of at least 1.", validatorName: "Paging" }],
        warnings: [],
      },
    }),
  },
  {
    code: 400,
    title: "Bad Request: authorization without the platform's fields names each field",
    run: async (f) => {
      const companyId = await createCompany(f.sb, f.key, "Fields");
      const connection = await call(f.sb, {
        method: "POST",
        path: `/companies/${companyId}/connections`,
        apiKey: f.key,
        body: { platformKey: "qhyg" },
      });
      return call(f.sb, {
        method: "PUT",
        path: `/companies/${companyId}/connections/${str(connection.json, "id")}/authorization`,
        apiKey: f.key,
        body: { accessToken: "has space", realmId: "12" },
      });
    },
    body: () => ({
      statusCode: 400,
      service: "PublicApi",
      error: ERROR_TEXT.badRequest,
      validation: {
        errors: [
          { itemId: "accessToken", message: expect.stringContaining("accessToken is malformed"), validatorName: "ConnectionAuthorization" },
          { itemId: "refreshToken", message: expect.stringContaining("refreshToken is required"), validatorName: "ConnectionAuthorization" },
          { itemId: "realmId", message: expect.stringContaining("realmId is malformed"), validatorName: "ConnectionAuthorization" },
        ],
        warnings: [],
      },
    }),
  },
  {
    code: 401,
    title: "Unauthorized: no key",
    run: (f) => call(f.sb, { path: "/companies" }),
    body: () => ({ statusCode: 401, service: "PublicApi", error: "Unauthorized" }),
  },
  {
    code: 401,
    title: "Unauthorized: wrong key",
    run: (f) => call(f.sb, { path: "/companies", apiKey: "not-a-real-key-at-all" }),
    body: () => ({ statusCode: 401, service: "PublicApi", error: "Unauthorized" }),
  },
  {
    code: 402,
    title: "Payment Required: the 51st company on a free trial",
    run: (f) => call(f.sb, { method: "POST", path: "/companies", apiKey: f.fullKey, body: { name: "One too many" } }),
    body: () => ({
      statusCode: 402,
      service: "PublicApi",
      error: "CompanyValidationException: Company limit exceeded",
      validation: {
        errors: [
          {
            itemId: "Company",
            message: "Company limit exceeded. Learn more at https://docs.codat.io/using-the-api/errors",
            validatorName: "CreateCompany",
          },
        ],
        warnings: [],
      },
    }),
  },
  {
    code: 402,
    title: "Payment Required: an hourly sync schedule on a free trial",
    run: async (f) => {
      const profile = await call(f.sb, { path: "/profile/syncSettings", apiKey: f.key });
      return call(f.sb, {
        method: "POST",
        path: "/profile/syncSettings",
        apiKey: f.key,
        body: {
          clientId: str(profile.json, "clientId"),
          overridesDefaults: true,
          settings: [{ dataType: "invoices", fetchOnFirstLink: true, syncSchedule: 1, syncOrder: 0 }],
        },
      });
    },
    body: () => ({
      statusCode: 402,
      service: "PublicApi",
      error: "SyncSettingsValidationException: Sync schedule not allowed",
      validation: {
        errors: [{ itemId: "invoices", message: expect.stringContaining("Sync schedule not allowed"), validatorName: "SyncSettings" }],
        warnings: [],
      },
    }),
  },
  {
    code: 402,
    title: "Payment Required: a free account older than 365 days",
    run: (f) => call(f.sb, { path: "/companies", apiKey: f.expiredKey }),
    body: () => ({
      statusCode: 402,
      service: "PublicApi",
      error: "Payment Required",
      validation: {
        errors: [{ message: "Account expired. Learn more at https://docs.codat.io/using-the-api/errors" }],
        warnings: [],
      },
    }),
  },
  {
    code: 403,
    title: "Forbidden: a deleted (outdated) key",
    run: (f) => call(f.sb, { path: "/companies", apiKey: f.deletedKey }),
    body: () => ({ statusCode: 403, service: "PublicApi", error: ERROR_TEXT.forbidden }),
  },
  {
    code: 403,
    title: "Forbidden: a valid key on another client's company",
    run: (f) => call(f.sb, { path: `/companies/${f.companyId}`, apiKey: f.otherKey }),
    body: () => ({
      statusCode: 403,
      service: "PublicApi",
      error: "You are using an outdated API key or a key not associated with that resource.",
    }),
  },
  {
    code: 404,
    title: "Not Found: unknown company",
    run: (f) => call(f.sb, { path: `/companies/${unknownId}`, apiKey: f.key }),
    body: () => ({ statusCode: 404, service: "ClientsApi", error: `No company was found with ID ${unknownId}` }),
  },
  {
    code: 404,
    title: "Not Found: unknown connection",
    run: (f) => call(f.sb, { path: `/companies/${f.companyId}/connections/${unknownId}`, apiKey: f.key }),
    body: () => ({ statusCode: 404, service: "PublicApi", error: `Data connection ${unknownId} not found` }),
  },
  {
    code: 404,
    title: "Not Found: a data type the platform lacks (accounting read on Shopify)",
    run: (f) => call(f.sb, { path: `/companies/${f.shopifyCompanyId}/data/invoices`, apiKey: f.key }),
    body: () => ({ statusCode: 404, service: "PublicApi", error: "Datatype invoices not supported by platform(s) Shopify" }),
  },
  {
    code: 404,
    title: "Not Found: a data type the platform lacks (commerce read on QuickBooks Online)",
    run: (f) =>
      call(f.sb, { path: `/companies/${f.companyId}/connections/${f.qboConnectionId}/data/commerce-orders`, apiKey: f.key }),
    body: () => ({
      statusCode: 404,
      service: "PublicApi",
      error: "Datatype commerce-orders not supported by platform(s) QuickBooks Online",
    }),
  },
  {
    code: 404,
    title: "Not Found: unknown path",
    run: (f) => call(f.sb, { path: "/no/such/thing", apiKey: f.key }),
    body: () => ({ statusCode: 404, service: "PublicApi", error: "No endpoint exists at /no/such/thing." }),
  },
  {
    code: 405,
    title: "Method Not Allowed: DELETE /companies",
    run: (f) => call(f.sb, { method: "DELETE", path: "/companies", apiKey: f.key }),
    body: () => ({
      statusCode: 405,
      service: "PublicApi",
      error: "Method Not Allowed: DELETE is not allowed on /companies; allowed: GET, POST.",
    }),
    check: (r) => expect(r.headers.get("allow")).toBe("GET, POST"),
  },
  {
    code: 409,
    title: "Conflict: the data set has not been requested",
    run: (f) => call(f.sb, { path: `/companies/${f.companyId}/data/invoices`, apiKey: f.key }),
    body: () => ({ statusCode: 409, service: "PublicApi", error: "The data set has not been requested." }),
  },
  {
    code: 409,
    title: "Conflict: the sync has not completed",
    run: (f) => call(f.sb, { path: `/companies/${f.syncingCompanyId}/data/accounts`, apiKey: f.key }),
    body: () => ({
      statusCode: 409,
      service: "PublicApi",
      error: expect.stringMatching(/^The data set has not finished syncing: its latest sync \([0-9a-f-]{36}\) is (Queued|Fetching)\.$/),
    }),
  },
  {
    code: 409,
    title: "Conflict: queueing a data type whose sync is in progress",
    run: (f) => call(f.sb, { method: "POST", path: `/companies/${f.syncingCompanyId}/data/queue/invoices`, apiKey: f.key }),
    body: (f) => ({
      statusCode: 409,
      service: "PublicApi",
      error: expect.stringMatching(
        new RegExp(
          `^DatasetAlreadyInProgressException: Cannot queue invoices sync for ${f.syncingCompanyId} as previous sync [0-9a-f-]{36} is still in progress$`,
        ),
      ),
    }),
  },
  {
    code: 409,
    title: "Conflict: an 11th API key",
    run: (f) => call(f.sb, { method: "POST", path: "/apiKeys", apiKey: f.keysFullKey, body: { name: "eleventh" } }),
    body: () => ({ statusCode: 409, service: "PublicApi", error: ERROR_TEXT.apiKeyLimit }),
  },
  {
    code: 409,
    title: "Conflict: a second active accounting connection",
    run: (f) => call(f.sb, { method: "POST", path: `/companies/${f.companyId}/connections`, apiKey: f.key, body: { platformKey: "fbrh" } }),
    body: (f) => ({
      statusCode: 409,
      service: "PublicApi",
      error: `DataConnectionValidationException: Company ${f.companyId} already has an active accounting connection (${f.qboConnectionId}, QuickBooks Online, Linked). A company may hold one accounting connection; unlink or delete it first.`,
    }),
  },
  {
    code: 429,
    title: "Too Many Requests: over the per-client rate limit, with Retry-After",
    run: async (f) => {
      await f.sb.control.setFaults({ rateLimitPerSecond: 1 });
      try {
        for (let i = 0; i < 20; i++) {
          const r = await call(f.sb, { path: "/companies", apiKey: f.key });
          if (r.status === 429) return r;
        }
        throw new Error("no 429 in 20 requests at 1 request per second");
      } finally {
        await f.sb.control.setFaults({ rateLimitPerSecond: null });
      }
    },
    body: () => ({ statusCode: 429, service: "PublicApi", error: ERROR_TEXT.tooManyRequests }),
    check: (r) => {
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get("x-rate-limit-limit")).toBe("1");
      expect(r.headers.get("x-rate-limit-remaining")).toBe("0");
    },
  },
  {
    code: 500,
    title: "Internal Server Error: injected fault",
    run: async (f) => {
      await f.sb.control.setFaults({ errorRate: 1 });
      try {
        return await call(f.sb, { path: "/companies", apiKey: f.key });
      } finally {
        await f.sb.control.setFaults({ errorRate: 0 });
      }
    },
    body: () => ({ statusCode: 500, service: "PublicApi", error: ERROR_TEXT.internal }),
  },
  {
    code: 503,
    title: "Service Unavailable: maintenance",
    run: async (f) => {
      await f.sb.control.setFaults({ maintenance: true });
      try {
        return await call(f.sb, { path: "/companies", apiKey: f.key });
      } finally {
        await f.sb.control.setFaults({ maintenance: false });
      }
    },
    body: () => ({ statusCode: 503, service: "PublicApi", error: ERROR_TEXT.maintenance }),
  },
];

describe("contract: every status code of the seed, every 402 and 409 condition", () => {
  it.each(rows.map((row) => [row.code, row.title, row] as const))("%i %s", async (code, _title, row) => {
    const result = await row.run(fx);
    const correlationId = result.headers.get("x-correlation-id") ?? "";
    expect(correlationId).toMatch(UUID);
    expect(result.headers.get("x-rate-limit-limit")).toMatch(/^\d+$/);
    expect(result.headers.get("x-rate-limit-remaining")).toMatch(/^\d+$/);
    expect(Number.isNaN(Date.parse(result.headers.get("x-rate-limit-reset") ?? ""))).toBe(false);
    if (row.code !== 202) expect(result.status).toBe(code);
    expect(result.headers.get("content-type")).toBe("application/json");
    if (row.body) expect(result.json).toEqual({ ...row.body(fx), correlationId });
    row.check?.(result, fx);
  });

  it("gives every response a new correlation id", async () => {
    // Its own requests (successes and errors, repeated), so the test holds when run alone.
    const requests = [
      { path: `/companies/${fx.companyId}`, apiKey: fx.key },
      { path: "/companies" },
      { path: `/companies/${unknownId}`, apiKey: fx.key },
      { method: "DELETE", path: "/companies", apiKey: fx.key },
      { path: `/companies/${fx.companyId}/data/invoices`, apiKey: fx.key },
    ];
    const correlationIds: string[] = [];
    for (let round = 0; round < 4; round++) {
      for (const request of requests) {
        const result = await call(fx.sb, request);
        const correlationId = result.headers.get("x-correlation-id") ?? "";
        expect(correlationId).toMatch(UUID);
        if (result.status >= 400) expect(result.json).toMatchObject({ correlationId });
        correlationIds.push(correlationId);
      }
    }
    expect(correlationIds.length).toBe(requests.length * 4);
    expect(new Set(correlationIds).size).toBe(correlationIds.length);
  });
});
