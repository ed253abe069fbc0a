/**
 * Secrets never reach an error or the console: every error kind is provoked with a known API key
 * and known platform tokens in the request, and the error's message, stack, JSON, inspection and
 * everything written to the console are scanned for them. A server that echoes secrets back in
 * its error text is scrubbed too.
 */
import http from "node:http";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createServiceClient, type ServiceClient } from "./client";
import { SERVICE_ERROR_KINDS, type ServiceError, type ServiceErrorKind } from "./service-error";
import { closedPort, failure, startFixture, type Fixture } from "../testing/service-fixture";
import { redirectingServer, type Hostile } from "../testing/hostile-servers";

let fx: Fixture;
let credentials: Record<string, string>;
let expiredCredentials: Record<string, string>;
let redirecting: Hostile;

beforeAll(async () => {
  fx = await startFixture();
  redirecting = await redirectingServer({ to: `http://127.0.0.1:${await closedPort()}/x`, status: 307 });
  credentials = (await fx.sb.control.createTenant("qhyg", { name: "Secret Books" })).credentials;
  expiredCredentials = (await fx.sb.control.createTenant("fbrh", { name: "Other Books" })).credentials;
});

afterAll(async () => {
  await fx.sb.control.setFaults({ errorRate: 0, maintenance: false, latencyMs: 0, rateLimitPerSecond: null });
  await fx.sb.close();
  await redirecting.close();
});

/** Every string that must never appear: the keys (raw and base64) and every credential value. */
function secrets(apiKeys: readonly string[]): string[] {
  const tokens = [...Object.values(credentials), ...Object.values(expiredCredentials)].filter((v) => v.length >= 8);
  return [...apiKeys.flatMap((k) => [k, Buffer.from(k).toString("base64")]), ...tokens];
}

function clientFor(apiKey: string, baseUrl = fx.sb.url, timeoutMs?: number): ServiceClient {
  return createServiceClient({ baseUrl, apiKey, retry: "none", timeoutMs });
}

/** Every kind, each provoked by a call that carries the API key and (where the call has a body) the tokens. */
function provocations(): [ServiceErrorKind, () => Promise<unknown>][] {
  const authorize = (apiKey: string, companyId: string, connectionId: string, body = credentials) =>
    clientFor(apiKey).authorizeConnection({ companyId, connectionId, credentials: body });
  const withFaults = (faults: Parameters<Fixture["sb"]["control"]["setFaults"]>[0], run: () => Promise<unknown>) => async () => {
    await fx.sb.control.setFaults(faults);
    try {
      return await run();
    } finally {
      await fx.sb.control.setFaults({ errorRate: 0, maintenance: false, latencyMs: 0, rateLimitPerSecond: null });
    }
  };
  const { qbo, shopify, syncing } = fx;
  return [
    ["bad_request", () => authorize(fx.key, qbo.companyId, qbo.connectionId, { ...credentials, realmId: "x" })],
    ["unauthorized", () => authorize("known-secret-api-key-0123456789", qbo.companyId, qbo.connectionId)],
    ["forbidden", () => authorize(fx.deletedKey, qbo.companyId, qbo.connectionId)],
    ["company_limit", () => clientFor(fx.fullKey).createCompany({ name: "Secret Books", tags: { token: credentials.accessToken ?? "" } })],
    [
      "sync_schedule_not_allowed",
      async () => {
        const client = clientFor(fx.key);
        const profile = await client.request({ operation: "getSyncSettings", method: "GET", path: "/profile/syncSettings", schema: z.object({ clientId: z.string() }) });
        return client.request({
          operation: "setSyncSettings",
          method: "POST",
          path: "/profile/syncSettings",
          body: { clientId: profile.data.clientId, overridesDefaults: true, settings: [{ dataType: "bills", fetchOnFirstLink: true, syncSchedule: 2, syncOrder: 0 }] },
          schema: z.unknown(),
        });
      },
    ],
    ["account_expired", () => authorize(fx.expiredKey, qbo.companyId, qbo.connectionId, expiredCredentials)],
    ["not_found", () => authorize(fx.key, qbo.companyId, `${qbo.connectionId}x`)],
    ["data_type_not_supported", () => clientFor(fx.key).listAccounts({ companyId: shopify.companyId })],
    [
      "method_not_allowed",
      () =>
        clientFor(fx.key).request({
          operation: "putCompanies",
          method: "PUT",
          path: "/companies",
          body: credentials,
          schema: z.unknown(),
          secrets: Object.values(credentials),
        }),
    ],
    ["not_ready", () => clientFor(fx.key).listAccounts({ companyId: syncing.companyId })],
    [
      "too_many_values",
      () => clientFor(fx.keysFullKey).request({ operation: "createApiKey", method: "POST", path: "/apiKeys", body: { name: "k" }, schema: z.unknown() }),
    ],
    ["active_connection_exists", () => clientFor(fx.key).createConnection({ companyId: qbo.companyId, platformKey: "vxvy" })],
    [
      "rate_limited",
      withFaults({ rateLimitPerSecond: 1 }, async () => {
        for (let i = 0; i < 10; i++) await authorize(fx.key, qbo.companyId, qbo.connectionId);
      }),
    ],
    ["server_error", withFaults({ errorRate: 1 }, () => authorize(fx.key, qbo.companyId, qbo.connectionId))],
    ["maintenance", withFaults({ maintenance: true }, () => authorize(fx.key, qbo.companyId, qbo.connectionId))],
    [
      "timeout",
      withFaults({ latencyMs: 500 }, () =>
        createServiceClient({ baseUrl: fx.sb.url, apiKey: fx.key, retry: "none", timeoutMs: 20 }).authorizeConnection({
          companyId: qbo.companyId,
          connectionId: qbo.connectionId,
          credentials,
        }),
      ),
    ],
    [
      "network",
      async () =>
        createServiceClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, apiKey: fx.key, retry: "none" }).authorizeConnection({
          companyId: qbo.companyId,
          connectionId: qbo.connectionId,
          credentials,
        }),
    ],
    ["redirected", () => clientFor(fx.key, redirecting.url).authorizeConnection({ companyId: qbo.companyId, connectionId: qbo.connectionId, credentials })],
    [
      "answer_too_large",
      () => createServiceClient({ baseUrl: fx.sb.url, apiKey: fx.key, retry: "none", maxAnswerBytes: 64 }).authorizeConnection({ companyId: qbo.companyId, connectionId: qbo.connectionId, credentials }),
    ],
    ["address_refused", () => clientFor(fx.key, "https://10.9.8.7").authorizeConnection({ companyId: qbo.companyId, connectionId: qbo.connectionId, credentials })],
    [
      "unexpected",
      () =>
        clientFor(fx.key).request({
          operation: "authorizeAsCompany",
          method: "PUT",
          path: `/companies/${qbo.companyId}/connections/${qbo.connectionId}/authorization`,
          body: credentials,
          schema: z.object({ redirect: z.number() }),
          secrets: Object.values(credentials),
        }),
    ],
  ];
}

/** Every text an error can end up in. */
function renderings(error: ServiceError): string[] {
  return [error.message, error.stack ?? "", JSON.stringify(error), String(error), inspect(error, { depth: 10 }), JSON.stringify(error.validation)];
}

describe("secrets never reach an error", () => {
  it("covers every kind of the list", () => {
    expect(new Set(provocations().map(([kind]) => kind))).toEqual(new Set(SERVICE_ERROR_KINDS));
  });

  it("provokes every kind with the key and tokens in the request, and finds neither in the error or on the console", async () => {
    const written: string[] = [];
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        written.push(args.map((a) => (typeof a === "string" ? a : inspect(a))).join(" "));
      }),
    );
    const keys = [fx.key, fx.fullKey, fx.expiredKey, fx.keysFullKey, fx.deletedKey, "known-secret-api-key-0123456789"];
    try {
      for (const [kind, provoke] of provocations()) {
        const error = await failure(provoke());
        expect(error.kind, `provoking ${kind}`).toBe(kind);
        for (const text of renderings(error)) {
          for (const secret of secrets(keys)) expect(text, `${kind} leaks a secret`).not.toContain(secret);
        }
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(written).toEqual([]);
  });

  it("scrubs secrets a server echoes back in its error text and validation", async () => {
    // Not the sandbox (which never echoes): a server that repeats the request in its answer, as a
    // careless proxy or a debug build might.
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        res.writeHead(400, { "Content-Type": "application/json" });
        res.end(
          JSON.stringify({
            statusCode: 400,
            service: "EchoProxy",
            error: `Bad request with ${req.headers.authorization ?? ""} and ${body}`,
            correlationId: "echo-1",
            validation: { errors: [{ itemId: "accessToken", message: `accessToken ${credentials.accessToken ?? ""} is wrong` }], warnings: [] },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const error = await failure(
        createServiceClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: fx.key, retry: "none" }).authorizeConnection({
          companyId: "c",
          connectionId: "d",
          credentials,
        }),
      );
      expect(error).toMatchObject({ kind: "bad_request", service: "EchoProxy", correlationId: "echo-1" });
      expect(error.error).toContain("[redacted]");
      expect(error.validation?.errors[0]?.message).toBe("accessToken [redacted] is wrong");
      for (const text of renderings(error)) for (const secret of secrets([fx.key])) expect(text).not.toContain(secret);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("sends the key only in the Authorization header, never in the URL or the body", async () => {
    const seen: string[] = [];
    let authorization = "";
    const client = createServiceClient({
      baseUrl: fx.sb.url,
      apiKey: fx.key,
      fetch: async (input, init) => {
        seen.push(String(input), typeof init?.body === "string" ? init.body : "");
        authorization = new Headers(init?.headers).get("authorization") ?? "";
        return fetch(input, init);
      },
    });
    await client.createCompany({ name: "Plain", tags: { ferryItem: "a" } });
    expect(authorization).toBe(`Basic ${Buffer.from(fx.key).toString("base64")}`);
    for (const text of seen) for (const secret of secrets([fx.key])) expect(text).not.toContain(secret);
  });
});
