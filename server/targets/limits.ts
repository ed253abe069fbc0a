/**
 * The one rule for the request limits a migration into a target must keep. Every target except
 * Ferry's built-in sandbox is someone's account on the service, whatever kind an admin labelled
 * it, so the service's documented limits apply (1,000 requests per minute per address; a daily
 * quota of 1,000 × (1 + connected companies)) unless an admin set other known limits on the
 * target. Only the built-in sandbox (marked by Ferry's start, never through the API) has its own,
 * which it announces in its headers and its controls report. The bulk run's pacer, the window
 * estimate and the screens all ask this function.
 */
import { REAL_SERVICE_LIMITS, type ServiceLimits } from "@/server/intake";

export type TargetLimitFields = { builtIn: boolean; requestsPerMinute: number | null; dailyQuota: number | null };

export type TargetLimitsRule =
  /** The built-in sandbox: its configured limits, read from its controls or its headers. */
  | { kind: "built_in_sandbox" }
  | {
      kind: "service";
      limits: Extract<ServiceLimits, { target: "service" }>;
      /** A ceiling of Ferry's own on requests per minute (the service blocks without a header beyond it). */
      requestsPerMinute: number;
      /** Where the figures come from, in words. */
      source: string;
    };

const nf = new Intl.NumberFormat("en-GB");
const documented = REAL_SERVICE_LIMITS as Extract<ServiceLimits, { target: "service" }>;

/** The limits that bind a migration into this target. */
export function limitsOfTarget(target: TargetLimitFields): TargetLimitsRule {
  if (target.builtIn) return { kind: "built_in_sandbox" };
  const requestsPerMinute = target.requestsPerMinute ?? documented.requestsPerMinute;
  const dailyQuota = target.dailyQuota === null ? documented.dailyQuota : { base: target.dailyQuota, perConnectedCompany: 0 };
  const setOnTarget = target.requestsPerMinute !== null || target.dailyQuota !== null;
  const rateWords =
    target.requestsPerMinute === null
      ? `${nf.format(requestsPerMinute)} requests per minute per address`
      : `${nf.format(requestsPerMinute)} requests per minute, set on the target`;
  const quotaWords =
    target.dailyQuota === null
      ? `daily quota ${nf.format(documented.dailyQuota.base)} × (1 + connected companies)`
      : `daily quota ${nf.format(target.dailyQuota)} requests, set on the target`;
  return {
    kind: "service",
    limits: { ...documented, requestsPerMinute, dailyQuota },
    requestsPerMinute,
    source: `${setOnTarget ? "the target's known limits" : "the service's published limits"} (${rateWords}; ${quotaWords})`,
  };
}

/** The ceiling a bulk run's pacer keeps on its own (null: the built-in sandbox's headers are the only limit). */
export function pacerCeilingPerMinute(target: TargetLimitFields): number | null {
  const rule = limitsOfTarget(target);
  return rule.kind === "service" ? rule.requestsPerMinute : null;
}
