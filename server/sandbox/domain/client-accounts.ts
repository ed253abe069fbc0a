/**
 * Clients (the service's customers) and their API keys: creation, the 10-key limit, and how a
 * request's `Authorization` header identifies its caller.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { conflict, ERROR_TEXT } from "../http/errors";
import { API_KEY_LIMIT } from "./limits";
import type { ApiKeyRow, ClientRow, Plan, Store, SyncMode } from "../store/store";

/** The client behind a request's API key (its sync mode and Link URL setting are read when needed: keys are cached). */
export type Client = Omit<ClientRow, "isDemo" | "syncs" | "oneTimeLinkUrls">;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A new API key value: 40 letters and digits, like the service's. */
export function newApiKeyValue(): string {
  const bytes = randomBytes(40);
  let out = "";
  for (const byte of bytes) out += BASE62[byte % 62];
  return out;
}

/** Creates a client with one key (named "Default"); returns its id and key. */
export function createClient(params: {
  store: Store;
  plan: Plan;
  createdAt: number;
  name?: string;
  apiKey?: string;
  isDemo?: boolean;
  syncs?: SyncMode;
  /** The service's "one-time Link URLs" client setting (default off). */
  oneTimeLinkUrls?: boolean;
}): { clientId: string; apiKey: string } {
  const clientId = randomUUID();
  const apiKey = params.apiKey ?? newApiKeyValue();
  params.store.transaction(() => {
    params.store.clients.insert({
      id: clientId,
      name: params.name ?? `Sandbox client ${clientId.slice(0, 8)}`,
      plan: params.plan,
      createdAt: params.createdAt,
      isDemo: params.isDemo ?? false,
      syncs: params.syncs,
      oneTimeLinkUrls: params.oneTimeLinkUrls ?? false,
    });
    params.store.apiKeys.insert({
      id: randomUUID(),
      clientId,
      name: "Default",
      apiKey,
      createdAt: params.createdAt,
    });
  });
  return { clientId, apiKey };
}

/** Creates an API key for a client; 409 when it already has ten (checked in the same transaction). */
export function createApiKey(params: { store: Store; clientId: string; name: string | null; now: number }): ApiKeyRow {
  const { store } = params;
  return store.transaction(() => {
    if (store.apiKeys.countActive(params.clientId) >= API_KEY_LIMIT) throw conflict(ERROR_TEXT.apiKeyLimit);
    const row: ApiKeyRow = {
      id: randomUUID(),
      clientId: params.clientId,
      name: params.name,
      apiKey: newApiKeyValue(),
      createdAt: params.now,
      deletedAt: null,
    };
    store.apiKeys.insert(row);
    return row;
  });
}

/** Who sent a request, from its `Authorization: Basic base64(apiKey)` header. */
export type Caller =
  | { kind: "anonymous" }
  | { kind: "unknown" }
  | { kind: "outdated"; clientId: string }
  | { kind: "client"; client: Client };

/** Identifies the caller of an API request (no error yet: the pipeline decides when to refuse). */
export function identifyCaller(store: Store, header: string | undefined): Caller {
  if (!header) return { kind: "anonymous" };
  const match = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) return { kind: "unknown" };
  const apiKey = Buffer.from(match[1], "base64").toString("utf8");
  if (!apiKey) return { kind: "unknown" };
  const key = store.apiKeys.findByValue(apiKey);
  if (!key) return { kind: "unknown" };
  if (key.deletedAt !== null) return { kind: "outdated", clientId: key.clientId };
  return {
    kind: "client",
    client: { id: key.clientId, name: key.clientName, plan: key.clientPlan, createdAt: key.clientCreatedAt },
  };
}
