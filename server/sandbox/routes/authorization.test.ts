/**
 * Token migration (PUT .../authorization) against the six simulated platforms: tenant
 * credentials link, malformed fields answer 400 naming each field, and credentials the platform
 * no longer accepts leave the connection Deauthorized, visibly in the response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGED_PLATFORMS, type PlatformKey } from "../../platforms";
import { arr, call, createCompany, createConnection, linkedCompany, syncAndFinish } from "../../testing/raw-http";
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

const keys = MANAGED_PLATFORMS.map((p) => [p.key, p.name] as const);

async function authorize(companyId: string, connectionId: string, body: unknown) {
  return call(sb, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey, body });
}

async function newConnection(platformKey: PlatformKey) {
  const companyId = await createCompany(sb, apiKey, `${platformKey} migration`);
  const connectionId = await createConnection(sb, apiKey, companyId, platformKey);
  return { companyId, connectionId };
}

describe("authorization with each platform's tenant credentials", () => {
  it.each(keys)("%s (%s): tenant credentials link the connection", async (platformKey, platformName) => {
    const platform = MANAGED_PLATFORMS.find((p) => p.key === platformKey);
    const tenant = await sb.control.createTenant(platformKey, { name: `${platformName} Tenant` });
    const required = platform?.credentialFields.filter((f) => f.required).map((f) => f.name) ?? [];
    for (const field of required) expect(tenant.credentials[field]).toBeTruthy();

    const { companyId, connectionId } = await newConnection(platformKey);
    const pending = await call(sb, { path: `/companies/${companyId}/connections/${connectionId}`, apiKey });
    expect(pending.json).toMatchObject({ status: "PendingAuth", integrationKey: platformKey, platformName });

    const linked = await authorize(companyId, connectionId, tenant.credentials);
    expect(linked.status).toBe(200);
    expect(linked.json).toMatchObject({ id: connectionId, status: "Linked", platformName });
    expect(linked.json).not.toHaveProperty("dataConnectionErrors");
    expect(JSON.stringify(linked.json)).not.toContain(tenant.credentials.accessToken);
  });

  it.each(keys)("%s (%s): an empty body answers 400 naming every required field", async (platformKey) => {
    const platform = MANAGED_PLATFORMS.find((p) => p.key === platformKey);
    const { companyId, connectionId } = await newConnection(platformKey);
    const result = await call(sb, {
      method: "PUT",
      path: `/companies/${companyId}/connections/${connectionId}/authorization`,
      apiKey,
      rawBody: "",
      headers: { "Content-Type": "application/json" },
    });
    expect(result.status).toBe(400);
    const items = arr((result.json as { validation: unknown }).validation, "errors") as { itemId: string }[];
    expect(items.map((i) => i.itemId)).toEqual(platform?.credentialFields.filter((f) => f.required).map((f) => f.name));
  });

  it("names malformed, unknown and non-string fields", async () => {
    const { companyId, connectionId } = await newConnection("fztf");
    const result = await authorize(companyId, connectionId, {
      shopDomain: "Not A Domain",
      accessToken: 42,
      realmId: "123456",
    });
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      validation: {
        errors: [
          { itemId: "shopDomain", message: expect.stringContaining("shopDomain is malformed") },
          { itemId: "accessToken", message: expect.stringContaining("accessToken must be a string") },
          { itemId: "realmId", message: expect.stringContaining("not a Shopify credential field") },
        ],
      },
    });
  });
});

describe("credentials the platform no longer accepts", () => {
  it.each(keys)("%s (%s): stale credentials after rotate → Deauthorized, visibly; fresh ones link again", async (platformKey) => {
    const tenant = await sb.control.createTenant(platformKey, { name: "Rotating Ltd" });
    const rotated = await sb.control.rotate(platformKey, tenant.tenantId);
    expect(rotated.credentials.accessToken).not.toBe(tenant.credentials.accessToken);

    const { companyId, connectionId } = await newConnection(platformKey);
    const stale = await authorize(companyId, connectionId, tenant.credentials);
    expect(stale.status).toBe(200);
    expect(stale.json).toMatchObject({
      status: "Deauthorized",
      dataConnectionErrors: [
        {
          statusCode: expect.stringMatching(/^4\d\d$/),
          statusText: expect.any(String),
          errorMessage: expect.stringContaining("Reauthorization is required"),
          erroredOnUtc: expect.any(String),
          status: "Active",
        },
      ],
    });

    const fresh = await authorize(companyId, connectionId, rotated.credentials);
    expect(fresh.json).toMatchObject({ status: "Linked", dataConnectionErrors: [{ status: "Resolved", resolvedOnUtc: expect.any(String) }] });
  });

  it("well-formed tokens the platform never issued → Deauthorized (invalid_grant)", async () => {
    const { companyId, connectionId } = await newConnection("qhyg");
    const result = await authorize(companyId, connectionId, {
      accessToken: "made-up-access-token",
      refreshToken: "made-up-refresh-token",
      realmId: "9130000000000001",
    });
    expect(result.json).toMatchObject({
      status: "Deauthorized",
      dataConnectionErrors: [{ statusCode: "400", errorMessage: expect.stringContaining("invalid_grant") }],
    });
  });

  it("an id field of another tenant → Deauthorized", async () => {
    const tenant = await sb.control.createTenant("qhyg", { name: "Realm One" });
    const { companyId, connectionId } = await newConnection("qhyg");
    const result = await authorize(companyId, connectionId, { ...tenant.credentials, realmId: "9130111122223333" });
    expect(result.json).toMatchObject({
      status: "Deauthorized",
      dataConnectionErrors: [{ statusCode: "403", errorMessage: expect.stringContaining("realmId 9130111122223333") }],
    });
  });

  it("tokens of another platform's tenant → Deauthorized", async () => {
    const zoho = await sb.control.createTenant("rwuv", { name: "Zoho Tenant" });
    const { companyId, connectionId } = await newConnection("fbrh");
    const result = await authorize(companyId, connectionId, {
      accessToken: zoho.credentials.accessToken,
      refreshToken: zoho.credentials.refreshToken,
    });
    expect(result.json).toMatchObject({ status: "Deauthorized" });
  });

  it.each(["vxvy", "qhyg", "pbtz"] as const)(
    "%s rotates refresh tokens: the service's refresh consumes them, so a second company cannot reuse them; a retry on the same connection stays Linked",
    async (platformKey) => {
      const first = await linkedCompany(sb, { apiKey, platformKey });
      const retry = await authorize(first.companyId, first.connectionId, first.tenant.credentials);
      expect(retry.json).toMatchObject({ status: "Linked" });

      const { companyId, connectionId } = await newConnection(platformKey);
      const second = await authorize(companyId, connectionId, first.tenant.credentials);
      expect(second.json).toMatchObject({
        status: "Deauthorized",
        dataConnectionErrors: [{ errorMessage: expect.stringContaining("already exchanged") }],
      });
    },
  );

  it.each(["fbrh", "rwuv", "fztf"] as const)("%s does not rotate: the same credentials link two companies", async (platformKey) => {
    const first = await linkedCompany(sb, { apiKey, platformKey });
    const { companyId, connectionId } = await newConnection(platformKey);
    const second = await authorize(companyId, connectionId, first.tenant.credentials);
    expect(second.json).toMatchObject({ status: "Linked" });
  });
});

describe("the customer's old app refreshing after migration", () => {
  it.each(keys)("%s (%s): later syncs end AuthError and the connection becomes Deauthorized", async (platformKey) => {
    const linked = await linkedCompany(sb, { apiKey, platformKey });
    await sb.control.rotate(platformKey, linked.tenant.tenantId);
    await syncAndFinish(sb, apiKey, linked.companyId);

    const status = await call(sb, { path: `/companies/${linked.companyId}/dataStatus`, apiKey });
    const current = Object.values(status.json as Record<string, { currentStatus: string }>).map((s) => s.currentStatus);
    expect(new Set(current)).toEqual(new Set(current.includes("NotSupported") ? ["AuthError", "NotSupported"] : ["AuthError"]));

    const connection = await call(sb, { path: `/companies/${linked.companyId}/connections/${linked.connectionId}`, apiKey });
    expect(connection.json).toMatchObject({
      status: "Deauthorized",
      dataConnectionErrors: [{ status: "Active", errorMessage: expect.stringContaining("Reauthorization is required") }],
    });
  });

  it("a rotation while a sync runs ends the unfinished data types AuthError", async () => {
    const linked = await linkedCompany(sb, { apiKey, platformKey: "fbrh", tenant: { records: 50_000 } });
    expect((await call(sb, { method: "POST", path: `/companies/${linked.companyId}/data/all`, apiKey })).status).toBe(204);
    await sb.control.rotate("fbrh", linked.tenant.tenantId);
    await sb.control.advanceClock({ seconds: 3600 });
    const status = await call(sb, { path: `/companies/${linked.companyId}/dataStatus`, apiKey });
    expect((status.json as Record<string, { currentStatus: string }>).invoices?.currentStatus).toBe("AuthError");
  });

  it.each(keys)("%s (%s): without a rotation, syncs days later still complete (the service refreshes)", async (platformKey) => {
    const linked = await linkedCompany(sb, { apiKey, platformKey });
    await sb.control.advanceClock({ days: 3 });
    await syncAndFinish(sb, apiKey, linked.companyId);
    await syncAndFinish(sb, apiKey, linked.companyId);
    const connection = await call(sb, { path: `/companies/${linked.companyId}/connections/${linked.connectionId}`, apiKey });
    expect(connection.json).toMatchObject({ status: "Linked", lastSync: expect.any(String) });
  });
});
