/** Steps 3 and 4 for the viewer: the platform's callback URL with instructions, and step 4's risk from the file. */
import type { Db } from "@/db/client";
import { AppError } from "@/server/errors";
import { getManagedPlatform, type PlatformKey } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { assertOrganization } from "../access";
import { loadForChange } from "../engagement-repository";
import { findCurrentSubmission, tokenExpiryCounts } from "../intake/intake-repository";
import { CALLBACK_INSTRUCTIONS } from "./callback-instructions";
import type { ConfirmationsView } from "@/core/engagements/confirm-schemas";
import { syncingRisk } from "./syncing-risk";

/** The callback URL and step 4's risk as they stand at `now`. */
export function getConfirmations(db: Db, actor: Actor, engagementId: string, now = new Date()): ConfirmationsView {
  const { eng } = loadForChange(db, engagementId);
  assertOrganization(actor, eng.organizationId);
  const platform = getManagedPlatform(eng.platformKey);
  if (!platform) throw new AppError("PRECONDITION_FAILED", "This engagement's platform has no managed migration.");
  const submission = findCurrentSubmission(db, eng.id);
  const counts = tokenExpiryCounts(db, eng.id, now);
  return {
    callback: { url: platform.callbackUrl, source: platform.callbackUrlSource, instructions: [...CALLBACK_INSTRUCTIONS[platform.key as PlatformKey]] },
    risk: syncingRisk({
      platform,
      fileSubmittedAt: submission?.submittedAt ?? null,
      companies: counts.companies,
      expired: counts.expired,
      withExpiry: counts.withExpiry,
      now,
    }),
  };
}
