/**
 * Helpers for the sandbox's own tests: raw HTTP calls (no client library in between, so the
 * tests see exactly what a client sees) and the common set-ups (a linked company, a finished sync).
 */
import type { PlatformKey } from "../platforms";
import { basicAuth, type Tenant, type TenantOptions, type TestSandbox } from "./test-sandbox";

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type CallResult = {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty. */
  json: unknown;
};

/** One HTTP call to the sandbox. `apiKey` becomes `Basic base64(key)`; `auth` is sent as is. */
export async function call(
  sandbox: Pick<TestSandbox, "url">,
  params: {
    method?: string;
    path: string;
    apiKey?: string;
    auth?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  },
): Promise<CallResult> {
  const headers: Record<string, string> = { ...params.headers };
  if (params.apiKey !== undefined) headers.Authorization = basicAuth(params.apiKey);
  if (params.auth !== undefined) headers.Authorization = params.auth;
  let body: string | undefined;
  if (params.rawBody !== undefined) body = params.rawBody;
  else if (params.body !== undefined) body = JSON.stringify(params.body);
  if (body !== undefined) headers["Content-Type"] ??= "application/json";
  const response = await fetch(`${sandbox.url}${params.path}`, { method: params.method ?? "GET", headers, body });
  const text = await response.text();
  let json: unknown;
  if (text && (response.headers.get("content-type") ?? "").startsWith("application/json")) json = JSON.parse(text);
  return { status: response.status, headers: response.headers, text, json };
}

/** Reads a string field of a JSON object body (fails the test clearly when absent). */
export function str(value: unknown, field: string): string {
  if (typeof value === "object" && value !== null && field in value) {
    const found = (value as Record<string, unknown>)[field];
    if (typeof found === "string") return found;
  }
  throw new Error(`Expected a string field ${field} in ${JSON.stringify(value)}`);
}

/** Reads an array field of a JSON object body. */
export function arr(value: unknown, field: string): unknown[] {
  if (typeof value === "object" && value !== null && field in value) {
    const found = (value as Record<string, unknown>)[field];
    if (Array.isArray(found)) return found;
  }
  throw new Error(`Expected an array field ${field} in ${JSON.stringify(value)}`);
}

/** Creates a company for the key's client; returns its id. */
export async function createCompany(sandbox: TestSandbox, apiKey: string, name = "Test company"): Promise<string> {
  const created = await call(sandbox, { method: "POST", path: "/companies", apiKey, body: { name } });
  if (created.status !== 200) throw new Error(`create company: ${created.status} ${created.text}`);
  return str(created.json, "id");
}

/** Creates a connection; returns its id. */
export async function createConnection(sandbox: TestSandbox, apiKey: string, companyId: string, platformKey: PlatformKey): Promise<string> {
  const created = await call(sandbox, {
    method: "POST",
    path: `/companies/${companyId}/connections`,
    apiKey,
    body: { platformKey },
  });
  if (created.status !== 200) throw new Error(`create connection: ${created.status} ${created.text}`);
  return str(created.json, "id");
}

export type LinkedCompany = { companyId: string; connectionId: string; tenant: Tenant; connection: unknown };

/** A company with a connection authorized with a fresh tenant's credentials. */
export async function linkedCompany(
  sandbox: TestSandbox,
  params: { apiKey: string; platformKey: PlatformKey; tenant?: Partial<TenantOptions> },
): Promise<LinkedCompany> {
  const tenant = await sandbox.control.createTenant(params.platformKey, { name: "Tenant Ltd", ...params.tenant });
  const companyId = await createCompany(sandbox, params.apiKey, `${params.platformKey} company`);
  const connectionId = await createConnection(sandbox, params.apiKey, companyId, params.platformKey);
  const authorized = await call(sandbox, {
    method: "PUT",
    path: `/companies/${companyId}/connections/${connectionId}/authorization`,
    apiKey: params.apiKey,
    body: tenant.credentials,
  });
  if (authorized.status !== 200) throw new Error(`authorize: ${authorized.status} ${authorized.text}`);
  return { companyId, connectionId, tenant, connection: authorized.json };
}

/** Queues every data type and moves the sandbox clock past the end of the syncs. */
export async function syncAndFinish(sandbox: TestSandbox, apiKey: string, companyId: string, seconds = 600): Promise<void> {
  const queued = await call(sandbox, { method: "POST", path: `/companies/${companyId}/data/all`, apiKey });
  if (queued.status !== 204) throw new Error(`data/all: ${queued.status} ${queued.text}`);
  await sandbox.control.advanceClock({ seconds });
}
