/**
 * The test controls: refused without the admin token, and each doing what Ferry's seed, tests and
 * rehearsals rely on.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGED_PLATFORMS } from "../../platforms";
import { call, createCompany, UUID } from "../../testing/raw-http";
import { SandboxControlError, startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox({ adminToken: "the-right-token" });
});

afterAll(async () => {
  await sb.close();
});

const controls: { method: string; path: string; body?: unknown }[] = [
  { method: "POST", path: "/_sandbox/clients", body: { plan: "free" } },
  { method: "PUT", path: `/_sandbox/clients/${randomUUID()}/syncs`, body: { mode: "held" } },
  { method: "GET", path: `/_sandbox/clients/${randomUUID()}/settings` },
  { method: "PUT", path: `/_sandbox/clients/${randomUUID()}/settings`, body: { oneTimeLinkUrls: true } },
  { method: "POST", path: `/_sandbox/clients/${randomUUID()}/syncs/release` },
  { method: "POST", path: "/_sandbox/platforms/qhyg/tenants", body: { name: "T" } },
  { method: "POST", path: `/_sandbox/platforms/qhyg/tenants/${randomUUID()}/rotate` },
  { method: "POST", path: `/_sandbox/platforms/qhyg/tenants/${randomUUID()}/credentials`, body: { kind: "valid" } },
  { method: "POST", path: `/_sandbox/companies/${randomUUID()}/connections/${randomUUID()}/link` },
  { method: "POST", path: `/_sandbox/companies/${randomUUID()}/link`, body: { platformKey: "qhyg" } },
  { method: "POST", path: `/_sandbox/companies/${randomUUID()}/connections/${randomUUID()}/deauthorize` },
  { method: "PUT", path: "/_sandbox/faults", body: { maintenance: true } },
  { method: "GET", path: "/_sandbox/faults" },
  { method: "POST", path: "/_sandbox/clock", body: { advanceDays: 400 } },
  { method: "GET", path: "/_sandbox/clock" },
  { method: "POST", path: "/_sandbox/reset" },
  { method: "GET", path: "/_sandbox/state" },
  { method: "GET", path: "/_sandbox/platforms" },
];

describe("admin token", () => {
  it.each(controls)("$method $path refuses a missing token (401) and a wrong one (403)", async (control) => {
    const missing = await call(sb, control);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("content-type")).toBe("application/json");
    expect(missing.json).toMatchObject({ statusCode: 401, service: "SandboxControls", correlationId: expect.stringMatching(UUID) });
    const wrong = await call(sb, { ...control, auth: "Bearer not-the-token" });
    expect(wrong.status).toBe(403);
    const basic = await call(sb, { ...control, auth: `Basic ${Buffer.from("the-right-token").toString("base64")}` });
    expect(basic.status).toBe(401);
  });

  it("nothing changed after the refused calls", async () => {
    expect((await sb.control.getFaults()).maintenance).toBe(false);
    expect((await call(sb, { method: "GET", path: "/_sandbox/clock", auth: "Bearer the-right-token" })).json).toMatchObject({
      offsetSeconds: 0,
    });
  });
});

describe("controls", () => {
  it("creates clients: free and paid, optionally backdated", async () => {
    const free = await sb.control.createClient({ plan: "free" });
    expect(free.clientId).toMatch(UUID);
    expect(free.apiKey).toMatch(/^[A-Za-z0-9]{40}$/);
    const old = await sb.control.createClient({ plan: "free", createdAt: "2020-01-01T00:00:00Z" });
    expect((await call(sb, { path: "/companies", apiKey: old.apiKey })).status).toBe(402);
    const bad = await call(sb, {
      method: "POST",
      path: "/_sandbox/clients",
      auth: "Bearer the-right-token",
      body: { plan: "gold" },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ service: "SandboxControls", validation: { errors: [{ itemId: "plan" }] } });
  });

  it("creates tenants for each platform, with the credentials the authorization call accepts", async () => {
    for (const platform of MANAGED_PLATFORMS) {
      const tenant = await sb.control.createTenant(platform.key, { name: "Acme Trading", records: 10 });
      expect(tenant.platformKey).toBe(platform.key);
      expect(Object.keys(tenant.credentials).sort()).toEqual(
        platform.credentialFields.map((f) => f.name).filter((n) => n in tenant.credentials).sort(),
      );
    }
    await expect(sb.control.createTenant("gbol" as "qhyg", { name: "Xero" })).rejects.toMatchObject({ status: 404 });
    await expect(sb.control.createTenant("qhyg", { name: "X", fetchErrorDataTypes: ["nope"] })).rejects.toMatchObject({ status: 400 });
    await expect(sb.control.createTenant("qhyg", { name: "X", records: -1 })).rejects.toBeInstanceOf(SandboxControlError);
  });

  it("rotates a tenant's credentials; an unknown tenant is 404", async () => {
    const tenant = await sb.control.createTenant("pbtz", { name: "Wave Co" });
    const rotated = await sb.control.rotate("pbtz", tenant.tenantId);
    expect(rotated.credentials.refreshToken).not.toBe(tenant.credentials.refreshToken);
    expect(rotated.credentials.businessId).toBe(tenant.credentials.businessId);
    await expect(sb.control.rotate("pbtz", randomUUID())).rejects.toMatchObject({ status: 404 });
    await expect(sb.control.rotate("qhyg", tenant.tenantId)).rejects.toMatchObject({ status: 404 });
  });

  it("sets and reads faults; null puts the rate limit back to its default", async () => {
    expect(await sb.control.setFaults({ latencyMs: 5, rateLimitPerSecond: 7 })).toEqual({
      maintenance: false,
      errorRate: 0,
      latencyMs: 5,
      rateLimitPerSecond: 7,
      quotaPerDay: false,
      requestsPerMinute: null,
      webhookDuplicates: false,
      webhookOutOfOrder: false,
      webhookDelaySeconds: 0,
      webhookWrongSignature: false,
    });
    expect(await sb.control.setFaults({ latencyMs: 0, rateLimitPerSecond: null })).toMatchObject({ rateLimitPerSecond: 10_000 });
    expect(await sb.control.setFaults({ quotaPerDay: true, requestsPerMinute: 1000 })).toMatchObject({
      quotaPerDay: true,
      requestsPerMinute: 1000,
    });
    expect(await sb.control.setFaults({ quotaPerDay: false, requestsPerMinute: null })).toMatchObject({
      quotaPerDay: false,
      requestsPerMinute: null,
    });
    await expect(sb.control.setFaults({ errorRate: 2 })).rejects.toMatchObject({ status: 400 });
    await expect(sb.control.setFaults({ requestsPerMinute: 0 })).rejects.toMatchObject({ status: 400 });
    await expect(sb.control.setFaults({ quotaPerDay: "yes" as unknown as boolean })).rejects.toMatchObject({ status: 400 });
  });

  it("advances the clock only forward", async () => {
    const before = await sb.control.advanceClock({});
    const after = await sb.control.advanceClock({ days: 1, seconds: 30 });
    expect(after.offsetSeconds - before.offsetSeconds).toBe(86_430);
    expect(Date.parse(after.now) - Date.parse(before.now)).toBeGreaterThanOrEqual(86_430_000);
    await expect(sb.control.advanceClock({ seconds: -5 })).rejects.toMatchObject({ status: 400 });
  });

  it("lists state and platforms; answers 404 and 405 like the API", async () => {
    // Its own client and tenant, so the test holds when run alone.
    const { clientId } = await sb.control.createClient({ plan: "paid" });
    const { tenantId } = await sb.control.createTenant("fbrh", { name: "Listed Ltd" });
    const state = (await sb.control.state()) as { clients: { clientId: string }[]; tenants: { tenantId: string }[] };
    expect(state.clients.length).toBeGreaterThan(0);
    expect(state.tenants.length).toBeGreaterThan(0);
    expect(state.clients.map((c) => c.clientId)).toContain(clientId);
    expect(state.tenants.map((t) => t.tenantId)).toContain(tenantId);
    const platforms = await call(sb, { path: "/_sandbox/platforms", auth: "Bearer the-right-token" });
    expect((platforms.json as { results: unknown[] }).results).toHaveLength(6);
    expect((await call(sb, { path: "/_sandbox/nothing", auth: "Bearer the-right-token" })).status).toBe(404);
    expect((await call(sb, { method: "DELETE", path: "/_sandbox/faults", auth: "Bearer the-right-token" })).status).toBe(405);
  });

  it("reset empties everything: clients, companies, tenants, clock and faults", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    await createCompany(sb, apiKey);
    await sb.control.setFaults({ latencyMs: 1 });
    await sb.control.reset();
    expect(await sb.control.state()).toMatchObject({ offsetSeconds: 0, clients: [], tenants: [], faults: { latencyMs: 0 } });
    expect((await call(sb, { path: "/companies", apiKey })).status).toBe(401);
  });
});
