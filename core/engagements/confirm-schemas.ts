/** Steps 3 and 4 as the screens show them: the callback URL with its instructions, and step 4's risk. */
import { z } from "zod";

export const ZSyncingRisk = z.object({
  platformName: z.string(),
  refreshTokensRotate: z.boolean(),
  hasRefreshToken: z.boolean(),
  fileSubmittedAt: z.date().nullable(),
  hoursSinceSubmission: z.number().int().nullable(),
  companies: z.number().int(),
  expiredAccessTokens: z.number().int(),
  withoutExpiry: z.number().int(),
  level: z.enum(["high", "standard"]),
  why: z.string(),
  /**
   * Access tokens in the file issued after syncing was confirmed off (step 4): the old app still
   * refreshes. Issued = `expiresAt` less the platform's access-token lifetime. Null before step 4 is
   * confirmed, or where access tokens do not expire.
   */
  issuedAfterConfirmation: z.object({ companies: z.number().int(), confirmedAt: z.date(), lastIssuedAt: z.date() }).nullable(),
});

export const ZConfirmationsView = z.object({
  callback: z.object({
    url: z.string(),
    /** "documented" by the service, or the operator's convention (Shopify). */
    source: z.enum(["documented", "operator-convention"]),
    instructions: z.array(z.string()),
  }),
  risk: ZSyncingRisk,
});
export type ConfirmationsView = z.infer<typeof ZConfirmationsView>;

/** A confirmation: the customer's needs nothing more; staff on their behalf say how they confirmed. */
export const ZConfirmation = z.object({ note: z.string().trim().max(2000).optional() });

/**
 * Step 3's round trip as the screens show it (server/migration/callback-check). `status` "none":
 * no round trip was started. `linkUrl`: where the customer authorizes the test connection, only
 * while it is open (waiting, or refused and waiting for another try).
 */
export const ZCallbackCheckView = z.object({
  status: z.enum(["none", "waiting", "refused", "proven", "failed", "cancelled"]),
  id: z.string().nullable(),
  startedAt: z.date().nullable(),
  startedBy: z.string().nullable(),
  checkedAt: z.date().nullable(),
  finishedAt: z.date().nullable(),
  companyId: z.string().nullable(),
  linkUrl: z.string().nullable(),
  /** The platform's words when it refused the redirect, and what to fix. */
  refusal: z.string().nullable(),
  fix: z.string().nullable(),
  /** The service's refusal of a call of the check: kept whole to the screen. */
  error: z.object({ status: z.number().int().nullable(), text: z.string(), correlationId: z.string().nullable() }).nullable(),
  companyDeleted: z.boolean(),
  /** Whether a round trip can be started now, and if not why (no target, step 3 done…). */
  canStart: z.boolean(),
  cannotStart: z.string().nullable(),
  /** Where the customer's app keeps its redirect URIs, when Ferry knows it (the sandbox's developer console). */
  consoleUrl: z.string().nullable(),
  /** A platform's limit the round trip's authorization counts against (Zoho Books: 20 refresh tokens per user). */
  caveat: z.string().nullable(),
});
export type CallbackCheckView = z.infer<typeof ZCallbackCheckView>;
