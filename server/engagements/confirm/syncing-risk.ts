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
};

/** The risk as it stands at `now`. */
export function syncingRisk(params: {
  platform: ManagedPlatform;
  fileSubmittedAt: Date | null;
  companies: number;
  expired: number;
  withExpiry: number;
  now: Date;
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
    level: rotates ? "high" : "standard",
    why,
  };
}
