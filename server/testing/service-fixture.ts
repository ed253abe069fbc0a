/**
 * Set-up shared by the service client's tests: a real sandbox on a random port with clients in
 * each state the seed's errors need (a free trial at 50 companies, an expired account, a client at
 * 10 API keys, a deleted key), linked companies, and a port nobody listens on.
 */
import net from "node:net";
import { call, createCompany, linkedCompany, str, type LinkedCompany } from "./raw-http";
import { startTestSandbox, type TestSandbox } from "./test-sandbox";
import { createServiceClient, type AttemptEvent, type ServiceClientOptions } from "../service-client/client";
import { ServiceError } from "../service-client/service-error";

export type Fixture = {
  sb: TestSandbox;
  /** A free client with the companies below. */
  key: string;
  /** Another client (its key on `key`'s company answers 403). */
  otherKey: string;
  /** A free trial already at 50 companies. */
  fullKey: string;
  /** A free account created 400 days ago. */
  expiredKey: string;
  /** A paid client already at 10 API keys. */
  keysFullKey: string;
  /** A deleted key of `key`'s client. */
  deletedKey: string;
  qbo: LinkedCompany;
  shopify: LinkedCompany;
  /** A company whose sync runs for minutes of sandbox time (a tenant of 100,000 records). */
  syncing: LinkedCompany;
};

/** Starts the sandbox and makes every client and company the tests need. */
export async function startFixture(): Promise<Fixture> {
  const sb = await startTestSandbox();
  const { apiKey: key } = await sb.control.createClient({ plan: "free" });
  const { apiKey: otherKey } = await sb.control.createClient({ plan: "free" });
  const { apiKey: fullKey } = await sb.control.createClient({ plan: "free" });
  const { apiKey: keysFullKey } = await sb.control.createClient({ plan: "paid" });
  const { apiKey: expiredKey } = await sb.control.createClient({
    plan: "free",
    createdAt: new Date(Date.now() - 400 * 86_400_000).toISOString(),
  });
  await Promise.all(Array.from({ length: 50 }, (_, i) => createCompany(sb, fullKey, `Company ${i + 1}`)));
  for (let i = 0; i < 9; i++) await call(sb, { method: "POST", path: "/apiKeys", apiKey: keysFullKey, body: { name: `key ${i}` } });
  const extra = await call(sb, { method: "POST", path: "/apiKeys", apiKey: key, body: { name: "to delete" } });
  await call(sb, { method: "DELETE", path: `/apiKeys/${str(extra.json, "id")}`, apiKey: key });
  const qbo = await linkedCompany(sb, { apiKey: key, platformKey: "qhyg" });
  const shopify = await linkedCompany(sb, { apiKey: key, platformKey: "fztf" });
  const syncing = await linkedCompany(sb, { apiKey: key, platformKey: "rwuv", tenant: { records: 100_000 } });
  await call(sb, { method: "POST", path: `/companies/${syncing.companyId}/data/all`, apiKey: key });
  return { sb, key, otherKey, fullKey, expiredKey, keysFullKey, deletedKey: str(extra.json, "apiKey"), qbo, shopify, syncing };
}

/** A client of the fixture's sandbox that records every attempt it makes. */
export function recordingClient(fx: Pick<Fixture, "sb">, options: Partial<ServiceClientOptions> & { apiKey: string }) {
  const attempts: AttemptEvent[] = [];
  const client = createServiceClient({
    baseUrl: fx.sb.url,
    ...options,
    onAttempt: (event) => {
      attempts.push(event);
      options.onAttempt?.(event);
    },
  });
  return { client, attempts };
}

/** The ServiceError a call fails with (fails the test if it succeeds or throws something else). */
export async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error("Expected the call to fail with a ServiceError, but it succeeded.");
}

/** A local port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
