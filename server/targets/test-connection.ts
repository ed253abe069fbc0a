/**
 * "Test connection" on a service target: one cheap read of the service with the target's key
 * (GET /companies?pageSize=1, no retries, a short timeout) and its answer in words — the key works,
 * the key is wrong (401), the key is not allowed (403), the service cannot be reached, or whatever
 * else it said, with the status, its text and the correlationId to quote. The key is decrypted for
 * it like for any use (audited), and never sent over plain http to another machine.
 */
import type { Database } from "@/db/database";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { SecretDecryptionError, type KeyRing } from "@/server/security/secrets";
import { createServiceClient, ServiceError } from "@/server/service-client";
import { checkBaseUrl } from "./base-url";
import type { ConnectionTestView } from "@/core/targets/schemas";
import { companiesText } from "@/core/words";
import { getServiceTarget, revealTargetApiKey } from "./targets";
import { targetAddressPolicy } from "./network";
import type { Resolve } from "@/server/service-client/transport";

/** How long the one read may take. */
export const CONNECTION_TEST_TIMEOUT_MS = 10_000;

type Answer =
  | { ok: true; status: number; companies: number; correlationId: string | null; durationMs: number }
  | { ok: false; error: ServiceError };

/** Free text that other words follow: without its closing punctuation. */
const clause = (v: string) => v.trim().replace(/[.;:,!]+$/, "");

const host = (baseUrl: string) => {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
};

/** The answer of the read, in words (pure). */
export function describeConnectionTest(answer: Answer, context: { baseUrl: string; timeoutMs: number; testedAt: Date }): ConnectionTestView {
  const { baseUrl, testedAt } = context;
  if (answer.ok) {
    const companies = companiesText(answer.companies);
    return {
      outcome: "works",
      summary: `The key works: the service answered ${answer.status} and the account holds ${companies}.`,
      status: answer.status,
      error: null,
      correlationId: answer.correlationId,
      durationMs: answer.durationMs,
      testedAt,
    };
  }
  const e = answer.error;
  const base = { status: e.status, error: e.error, correlationId: e.correlationId, durationMs: e.durationMs, testedAt };
  const text = clause(e.error);
  const cid = e.correlationId ? `correlationId ${e.correlationId}` : null;
  /** What the service said, to quote: "401 Unauthorized, correlationId …". */
  const said = [`${e.status ?? ""} ${text}`.trim(), cid].filter(Boolean).join(", ");
  switch (e.kind) {
    case "unauthorized":
      return { ...base, outcome: "wrong_key", summary: `Wrong key: the service does not know this API key (${said}). Check the key with the customer and replace it.` };
    case "forbidden":
      return {
        ...base,
        outcome: "not_allowed",
        summary: `Not allowed: the service knows the key but refused to let it read companies (${said}); it may have been deleted or lack permission. Ask the customer for a current key.`,
      };
    case "network": {
      // "The service could not be reached (ECONNREFUSED)." → ECONNREFUSED
      const detail = /\(([^()]+)\)\.?$/.exec(e.error)?.[1] ?? text;
      return { ...base, outcome: "unreachable", summary: `Unreachable: nothing answered at ${host(baseUrl)} (${detail}). Check the base URL, and that this machine can reach it.` };
    }
    case "redirected":
      return { ...base, outcome: "other", summary: `Not a working target: ${text}.` };
    case "address_refused":
      return { ...base, outcome: "other", summary: `Not tested, so the key was not sent: ${text}.` };
    case "timeout":
      return {
        ...base,
        outcome: "unreachable",
        summary: `Unreachable: ${host(baseUrl)} did not answer within ${context.timeoutMs < 1000 ? `${context.timeoutMs} ms` : `${context.timeoutMs / 1000} s`}. Check the base URL, and that this machine can reach it.`,
      };
    default:
      return {
        ...base,
        outcome: "other",
        summary: e.status ? `The service answered ${e.status}: ${text}${cid ? ` (${cid})` : ""}.` : `The service's answer was not what it documents: ${text}.`,
      };
  }
}

/** Tests the target's connection and key with one read; the answer is in words whatever the service said. */
export async function testTargetConnection(
  database: Database,
  ring: KeyRing,
  actor: Actor,
  input: { targetId: string },
  options: { fetch?: typeof fetch; timeoutMs?: number; resolve?: Resolve } = {},
): Promise<ConnectionTestView> {
  const target = await getServiceTarget(database, input.targetId);
  if (!target) throw new AppError("NOT_FOUND", "No service target with that id.");
  // Kept for the record and offered nowhere: its key is not decrypted, nor sent, any more.
  if (target.archivedAt) throw new AppError("PRECONDITION_FAILED", `${target.name} is archived: it is kept for the record and cannot be tested.`);
  const url = checkBaseUrl(target.baseUrl);
  if (!target.builtIn && !url.ok) throw new AppError("PRECONDITION_FAILED", `Not tested, so the key is not sent: ${url.problem}`);
  let apiKey: string;
  try {
    apiKey = await revealTargetApiKey(database, ring, actor, { targetId: target.id, purpose: `test the connection to ${target.name}` });
  } catch (error) {
    if (error instanceof SecretDecryptionError) {
      throw new AppError("PRECONDITION_FAILED", "The stored API key cannot be decrypted with Ferry's encryption keys (was its key retired?): replace the key.");
    }
    throw error;
  }
  const timeoutMs = options.timeoutMs ?? CONNECTION_TEST_TIMEOUT_MS;
  const client = createServiceClient({
    baseUrl: target.baseUrl,
    apiKey,
    timeoutMs,
    retry: "none",
    addresses: targetAddressPolicy(target),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const testedAt = new Date();
  try {
    const { data, meta } = await client.listCompanies({ page: 1, pageSize: 1 });
    return describeConnectionTest({ ok: true, status: meta.status, companies: data.totalResults, correlationId: meta.correlationId, durationMs: meta.durationMs }, { baseUrl: target.baseUrl, timeoutMs, testedAt });
  } catch (error) {
    if (error instanceof ServiceError) return describeConnectionTest({ ok: false, error }, { baseUrl: target.baseUrl, timeoutMs, testedAt });
    throw error;
  }
}
