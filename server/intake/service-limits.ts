/**
 * The request limits of a service target, shared by the duration estimate and (later) the bulk
 * runner, so both plan with the same numbers.
 */

/** Limits of the target a migration calls. */
export type ServiceLimits =
  | {
      target: "service";
      /** Hard limit per calling IP address; beyond it addresses may be blocked without warning. */
      requestsPerMinute: number;
      /** Daily quota = base × (1 + active connected companies), reset at 00:00 UTC. */
      dailyQuota: { base: number; perConnectedCompany: number };
      /** Concurrent requests allowed per active connected company. */
      concurrentRequestsPerCompany: number;
    }
  | {
      target: "sandbox";
      /** The sandbox's configured per-client limit (PUT /_sandbox/faults `rateLimitPerSecond`). */
      requestsPerSecond: number;
    };

/** The real service's limits: reference/service-api.md §9 (DOCS using-the-api/rate-limits.md). */
export const REAL_SERVICE_LIMITS: ServiceLimits = {
  target: "service",
  requestsPerMinute: 1_000,
  dailyQuota: { base: 1_000, perConnectedCompany: 1_000 },
  concurrentRequestsPerCompany: 10,
};

/** The sandbox's limits at its configured requests per second. */
export function sandboxLimits(requestsPerSecond: number): ServiceLimits {
  if (!(requestsPerSecond > 0)) throw new RangeError("sandboxLimits: requestsPerSecond must be positive");
  return { target: "sandbox", requestsPerSecond };
}

/** Sustained requests per second the target allows one caller. */
export function requestsPerSecondOf(limits: ServiceLimits): number {
  switch (limits.target) {
    case "service":
      return limits.requestsPerMinute / 60;
    case "sandbox":
      return limits.requestsPerSecond;
    default: {
      const never: never = limits;
      return never;
    }
  }
}

/** Requests allowed in a day with `connectedCompanies` active connected companies, or null without a quota. */
export function dailyQuotaOf(limits: ServiceLimits, connectedCompanies: number): number | null {
  switch (limits.target) {
    case "service":
      return limits.dailyQuota.base + limits.dailyQuota.perConnectedCompany * connectedCompanies;
    case "sandbox":
      return null;
    default: {
      const never: never = limits;
      return never;
    }
  }
}
