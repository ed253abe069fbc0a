/** The shapes of service targets as the app shows them (API keys only ever masked). */
import { z } from "zod";
import { SERVICE_TARGET_KINDS } from "./kinds";

export const ZServiceTargetKind = z.enum(SERVICE_TARGET_KINDS);

/** Largest known limits an admin may set (far above anything the service allows). */
export const MAX_REQUESTS_PER_MINUTE = 10_000_000;
export const MAX_DAILY_QUOTA = 1_000_000_000;

/** A target as the admin page lists it. */
export const ZServiceTarget = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string(),
  kind: ZServiceTargetKind,
  /** Ferry's own sandbox (SANDBOX_URL): serves every organisation, keeps its own limits. */
  builtIn: z.boolean(),
  /** Whose account it is; null for the built-in sandbox and for targets waiting to be assigned. */
  organization: z.object({ id: z.string(), name: z.string() }).nullable(),
  apiKeyMasked: z.string(),
  requestsPerMinute: z.number().int().nullable(),
  dailyQuota: z.number().int().nullable(),
  /** The limits a migration into it keeps, in words. */
  limitsText: z.string(),
  archivedAt: z.date().nullable(),
  /** Why no engagement can use it as it is (e.g. a plain-http URL from before https was required), or null. */
  problem: z.string().nullable(),
  /** Unfinished engagements pointed at it: how many, and the first few as "FER-1001 (Acme Lending)". */
  inUse: z.object({ count: z.number().int(), engagements: z.array(z.string()) }),
  /**
   * Whether the service's webhooks arrive (server/targets/events): Ferry's consumers on it (none: the
   * watch polls), the last event received and the last delivery refused, and a pause of its runs the
   * service announced. Never a secret.
   */
  events: z.object({
    consumers: z.number().int(),
    lastEventAt: z.date().nullable(),
    lastEventType: z.string().nullable(),
    failures: z.number().int(),
    lastFailureAt: z.date().nullable(),
    lastFailure: z.string().nullable(),
    /** Until when every run on it waits (the service announced its quota spent); null when no pause is in force. */
    pausedUntil: z.date().nullable(),
  }),
  createdAt: z.date(),
});
export type ServiceTargetView = z.infer<typeof ZServiceTarget>;

/** One target an engagement may be pointed at. */
export const ZTargetChoice = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string(),
  kind: ZServiceTargetKind,
  builtIn: z.boolean(),
  apiKeyMasked: z.string(),
});

/** The targets an engagement may use (its organisation's and the built-in sandbox), and where it points now. */
export const ZTargetChoices = z.object({
  current: z
    .object({
      id: z.string(),
      name: z.string(),
      /** Why the engagement may not use it (another organisation's, unassigned, archived), or null. */
      problem: z.string().nullable(),
    })
    .nullable(),
  options: z.array(ZTargetChoice),
});
export type TargetChoicesView = z.infer<typeof ZTargetChoices>;

export const CONNECTION_OUTCOMES = ["works", "wrong_key", "not_allowed", "unreachable", "other"] as const;

/** The answer of "Test connection", in words, with what support would quote. */
export const ZConnectionTest = z.object({
  outcome: z.enum(CONNECTION_OUTCOMES),
  /** One sentence saying what the answer means and what to do. */
  summary: z.string(),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  correlationId: z.string().nullable(),
  durationMs: z.number().int(),
  testedAt: z.date(),
});
export type ConnectionTestView = z.infer<typeof ZConnectionTest>;
