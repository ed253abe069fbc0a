/**
 * Step 4's risk from the token file, pure: why syncing must be off on this platform, how long ago
 * the file was submitted, how many of its access tokens have expired since, and whether the
 * platform rotates refresh tokens (then one refresh by the old app kills the file's copy).
 */
import type { ManagedPlatform } from "@/server/platforms";

export type SyncingRisk = {
  platformName: string;
  /** Each refresh issues a new refresh token and retires the one in the file. */
  refreshTokensRotate: boolean;
  hasRefreshToken: boolean;
  /** When the accepted file was submitted (null before one is accepted). */
  fileSubmittedAt: Date | null;
  /** Whole hours since then. */
  hoursSinceSubmission: number | null;
  companies: number;
  /** Access tokens in the file whose `expiresAt` has passed. */
  expiredAccessTokens: number;
  /** Companies whose row gave no `expiresAt`. */
  withoutExpiry: number;
  /** High when a refresh by the old app would break the migration; the rest is the safe rule. */
  level: "high" | "standard";
  /** Why syncing must be off, for this platform, in words. */
  why: string;
  /** Access tokens issued after syncing was confirmed off: the old app still refreshes (null when not known). */
  issuedAfterConfirmation: { companies: number; confirmedAt: Date; lastIssuedAt: Date } | null;
};

/** The risk as it stands at `now`. */
export function syncingRisk(params: {
  platform: ManagedPlatform;
  fileSubmittedAt: Date | null;
  companies: number;
  expired: number;
  withExpiry: number;
  now: Date;
  /** Companies whose access token was issued after step 4's confirmation, and the latest issue (tokenIssuedAfter). */
  issuedAfter?: { companies: number; confirmedAt: Date; lastIssuedAt: Date } | null;
}): SyncingRisk {
  const { platform } = params;
  const rotates = platform.refreshTokenRotates;
  const why = rotates
    ? `${platform.name} rotates refresh tokens: whenever your old app refreshes a company's tokens, ${platform.name} issues a new refresh token and retires the one in the file, so that company can no longer be migrated and would need to reconnect. Turn off every sync and scheduled refresh in the old app until the migration is done.`
    : platform.hasRefreshToken
      ? `${platform.name} keeps a refresh token valid when it is used, so a refresh by your old app does not break the file by itself. Still turn syncing off: two apps refreshing and writing for the same company at once is the safe rule to avoid, and the old app must stop once the service takes over.`
      : `${platform.name} access tokens do not expire and there is no refresh token, so the file stays valid. Still turn syncing off: once the service takes over, the old app must stop reading and writing for these companies.`;
  return {
    platformName: platform.name,
    refreshTokensRotate: rotates,
    hasRefreshToken: platform.hasRefreshToken,
    fileSubmittedAt: params.fileSubmittedAt,
    hoursSinceSubmission: params.fileSubmittedAt ? Math.max(0, Math.floor((params.now.getTime() - params.fileSubmittedAt.getTime()) / 3_600_000)) : null,
    companies: params.companies,
    expiredAccessTokens: params.expired,
    withoutExpiry: params.companies - params.withExpiry,
    level: rotates || (params.issuedAfter?.companies ?? 0) > 0 ? "high" : "standard",
    why,
    issuedAfterConfirmation: params.issuedAfter && params.issuedAfter.companies > 0 ? params.issuedAfter : null,
  };
}

/** Clocks differ between the platform, the old app and Ferry: an issue this close to the confirmation is not counted. */
export const ISSUE_TOLERANCE_MS = 5 * 60_000;

/**
 * The moment before which every access token in the file must have been issued if the old app
 * stopped refreshing when syncing was confirmed off: a token expiring later than this was issued
 * after the confirmation (its expiry less the platform's lifetime). Null where tokens do not expire.
 */
export function latestSafeExpiry(platform: Pick<ManagedPlatform, "accessTokenLifetimeSeconds">, confirmedAt: Date): Date | null {
  if (platform.accessTokenLifetimeSeconds === null) return null;
  return new Date(confirmedAt.getTime() + platform.accessTokenLifetimeSeconds * 1000 + ISSUE_TOLERANCE_MS);
}
