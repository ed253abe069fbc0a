/**
 * Opening a run's session with the service, the same for the single-company test and the bulk run:
 * the run's engagement and platform → its service target → the check that this engagement may use
 * that target → the target's API key, decrypted (an audit event on the engagement's timeline) and
 * kept in memory only → a service client on it.
 *
 * A run with no target, or with one the engagement may not use (another organisation's account,
 * archived), gets a refusal as a value before the key is decrypted, so that key is never sent; each
 * kind of run words it its own way (a test fails, a bulk run stops until resumed).
 */
import { readSteps, type Database } from "@/db/database";
import { findEngagement, type EngagementRow } from "@/server/engagements/engagement-repository";
import type { ManagedPlatform } from "@/server/platforms";
import type { KeyRing } from "@/server/security/secrets";
import { targetUseRefusal } from "@/server/targets/rules";
import { findServiceTarget, revealTargetApiKey, type ServiceTargetRecord } from "@/server/targets/targets";
import { platformOf } from "./item-repository";
import type { RunRow } from "./run-repository";

export type RunEngagement = { engagement: EngagementRow; platform: ManagedPlatform };

/** Why a run's session does not open: it has no target, or one its engagement may not use (`reason` says why). */
export type SessionRefusal = { kind: "no_target" } | { kind: "target_refused"; reason: string };

export type RunSession<C> = RunEngagement & { target: ServiceTargetRecord; connection: C };

/** What a session is opened for: a run, or another piece of work on an engagement's target (step 3's round trip). */
export type SessionSubject = Pick<RunRow, "id" | "engagementId" | "serviceTargetId">;

/** The run's engagement and its platform; an engagement that no longer exists is a fault of Ferry's own (thrown). */
export async function runEngagement(database: Database, run: SessionSubject): Promise<RunEngagement> {
  const engagement = await readSteps(database, (tx) => findEngagement(tx, run.engagementId));
  if (!engagement) throw new Error(`The engagement of run ${run.id} no longer exists.`);
  return { engagement, platform: platformOf(engagement.platformKey) };
}

/** Opens the run's session (see the module comment); `connect` makes the client, and whatever goes with it, on the target's key. */
export async function openRunSession<C>(params: {
  database: Database;
  ring: KeyRing;
  run: SessionSubject;
  /** What the key is decrypted for, as the audit log says it, from the engagement's reference. */
  purpose: (reference: string) => string;
  connect: (target: ServiceTargetRecord, apiKey: string) => C;
}): Promise<({ ok: true } & RunSession<C>) | ({ ok: false; refusal: SessionRefusal } & RunEngagement)> {
  const { database, run } = params;
  const { engagement, platform } = await runEngagement(database, run);
  const targetId = run.serviceTargetId;
  const target = targetId ? await readSteps(database, (tx) => findServiceTarget(tx, targetId)) : undefined;
  if (!target) return { ok: false, refusal: { kind: "no_target" }, engagement, platform };
  const refused = targetUseRefusal(target, engagement.organizationId);
  if (refused) return { ok: false, refusal: { kind: "target_refused", reason: refused }, engagement, platform };
  // The key decrypted and its audit event written in one transaction of their own.
  const apiKey = await revealTargetApiKey(database, params.ring, null, {
    targetId: target.id,
    purpose: params.purpose(engagement.reference),
    engagement: { engagementId: engagement.id, organizationId: engagement.organizationId },
  });
  return { ok: true, engagement, platform, target, connection: params.connect(target, apiKey) };
}
