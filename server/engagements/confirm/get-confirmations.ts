/** Steps 3 and 4 for the viewer: the platform's callback URL with instructions, and step 4's risk from the file. */
import { and, eq } from "drizzle-orm";
import { q, readSteps } from "@/db/database";
import { engagementSteps } from "@/db/schema";
import type { Database } from "@/db/database";
import { AppError } from "@/server/errors";
import { getManagedPlatform, type PlatformKey } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { assertOrganization } from "../access";
import { findEngagement } from "../engagement-repository";
import { expiringAfter, findCurrentSubmission, tokenExpiryCounts } from "../intake/intake-repository";
import { CALLBACK_INSTRUCTIONS } from "./callback-instructions";
import type { ConfirmationsView } from "@/core/engagements/confirm-schemas";
import { latestSafeExpiry, syncingRisk } from "./syncing-risk";

/** The callback URL and step 4's risk as they stand at `now`. */
export async function getConfirmations(database: Database, actor: Actor, engagementId: string, now = new Date()): Promise<ConfirmationsView> {
  const { eng, submission, counts, issuedAfter } = await readSteps(database, function* (tx) {
    const eng = yield* findEngagement(tx, engagementId);
    if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
    const platform = getManagedPlatform(eng.platformKey);
    // Syncing confirmed off (step 4): a token in the file issued after that says the old app still refreshes.
    const step4 = yield* q.get(tx.select({ state: engagementSteps.state, completedAt: engagementSteps.completedAt }).from(engagementSteps).where(and(eq(engagementSteps.engagementId, eng.id), eq(engagementSteps.step, 4))));
    const confirmedAt = step4?.state === "done" ? step4.completedAt : null;
    const safe = confirmedAt && platform ? latestSafeExpiry(platform, confirmedAt) : null;
    const after = safe ? yield* expiringAfter(tx, eng.id, safe) : null;
    return {
      eng,
      submission: yield* findCurrentSubmission(tx, eng.id),
      counts: yield* tokenExpiryCounts(tx, eng.id, now),
      issuedAfter:
        after && after.lastExpiry && confirmedAt && platform?.accessTokenLifetimeSeconds
          ? { companies: after.companies, confirmedAt, lastIssuedAt: new Date(after.lastExpiry.getTime() - platform.accessTokenLifetimeSeconds * 1000) }
          : null,
    };
  });
  assertOrganization(actor, eng.organizationId);
  const platform = getManagedPlatform(eng.platformKey);
  if (!platform) throw new AppError("PRECONDITION_FAILED", "This engagement's platform has no managed migration.");
  return {
    callback: { url: platform.callbackUrl, source: platform.callbackUrlSource, instructions: [...CALLBACK_INSTRUCTIONS[platform.key as PlatformKey]] },
    risk: syncingRisk({
      platform,
      fileSubmittedAt: submission?.submittedAt ?? null,
      companies: counts.companies,
      expired: counts.expired,
      withExpiry: counts.withExpiry,
      now,
      issuedAfter,
    }),
  };
}
