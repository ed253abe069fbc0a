/**
 * The request limits of an engagement's service target, for the duration estimate, as the one
 * rule decides them (server/targets/limits.ts): the service's documented limits (or the known
 * limits an admin set on the target) for every target but the built-in sandbox, whose configured
 * limits are read from its controls when this process may use them (else its default), with where
 * the figure came from.
 */
import { sandboxLimits, type ServiceLimits } from "@/server/intake";
import { createControlClient, DEFAULT_RATE_LIMIT_PER_SECOND } from "@/server/sandbox/controls/control-client";
import type { ServiceTargetKind } from "@/core/targets/kinds";
import { limitsOfTarget, type TargetLimitFields } from "@/server/targets/limits";

export type SandboxAccess = { url: string; adminToken: string };

/** `kind` is the target's kind (which sync timing to assume), not its limits. */
export type TargetLimits = { limits: ServiceLimits; kind: ServiceTargetKind; source: string };

const sameBase = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

/** The limits that bind a migration into `target` (null: no target chosen, the built-in sandbox is assumed). */
export async function targetLimits(
  target: (TargetLimitFields & { kind: ServiceTargetKind; baseUrl: string }) | null,
  sandbox?: SandboxAccess,
): Promise<TargetLimits> {
  const rule = target ? limitsOfTarget(target) : ({ kind: "built_in_sandbox" } as const);
  if (rule.kind === "service") return { limits: rule.limits, kind: target?.kind ?? "service", source: rule.source };
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
