/**
 * The request limits of an engagement's service target, for the duration estimate: the real
 * service's published limits, or the sandbox's configured ones (read from its controls when this
 * process may use them, else its default), with where the figure came from.
 */
import { REAL_SERVICE_LIMITS, sandboxLimits, type ServiceLimits } from "@/server/intake";
import { createControlClient } from "@/server/sandbox/controls/control-client";
import { DEFAULT_RATE_LIMIT_PER_SECOND } from "@/server/sandbox/domain/faults";
import type { ServiceTargetKind } from "@/server/targets/kinds";

export type SandboxAccess = { url: string; adminToken: string };

export type TargetLimits = { limits: ServiceLimits; kind: ServiceTargetKind; source: string };

const sameBase = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

/** The limits that bind a migration into `target` (null: no target chosen, the sandbox is assumed). */
export async function targetLimits(target: { kind: ServiceTargetKind; baseUrl: string } | null, sandbox?: SandboxAccess): Promise<TargetLimits> {
  if (target?.kind === "service") {
    return { limits: REAL_SERVICE_LIMITS, kind: "service", source: "the service's published limits (1,000 requests per minute per address; daily quota 1,000 × (1 + connected companies))" };
  }
  const fallback: TargetLimits = {
    limits: sandboxLimits(DEFAULT_RATE_LIMIT_PER_SECOND),
    kind: "sandbox",
    source: `the sandbox's default limit (${DEFAULT_RATE_LIMIT_PER_SECOND.toLocaleString("en-GB")} requests per second per client)`,
  };
  if (!sandbox || (target && !sameBase(target.baseUrl, sandbox.url))) return fallback;
  try {
    const faults = await createControlClient(sandbox).getFaults();
    const perMinute = faults.requestsPerMinute === null ? Infinity : faults.requestsPerMinute / 60;
    const rps = Math.min(faults.rateLimitPerSecond, perMinute);
    return {
      limits: sandboxLimits(rps),
      kind: "sandbox",
      source: `the sandbox's configured limit (${faults.rateLimitPerSecond.toLocaleString("en-GB")} requests per second${faults.requestsPerMinute === null ? "" : `, ${faults.requestsPerMinute.toLocaleString("en-GB")} per minute`})`,
    };
  } catch {
    return { ...fallback, source: `${fallback.source}; its controls did not answer` };
  }
}
