/**
 * Pointing an engagement at a service target: the built-in sandbox to rehearse, the customer's own
 * account on the service for the window. A target is one customer's account, so an engagement may
 * use only its organisation's targets or the built-in sandbox.
 *
 * A company made on one target (its companyId and connectionId) means nothing on another: once any
 * of the engagement's companies exists on its target, a change of target is refused with the
 * reason, unless support explicitly starts the companies over on the new one — each company back
 * to pending with its old ids kept in its history (an audit event per company), the single-company
 * test to pass again on the new target, the customer told.
 */
import { and, asc, eq, inArray, isNotNull } from "drizzle-orm";
import { forUpdate, q, type Database, type Steps, readSteps, type Tx } from "@/db/database";
import { migrationItems, migrationRuns, serviceTargets } from "@/db/schema";
import { realItems } from "@/server/items/item-scope";
import { companiesText, plural } from "@/core/words";
import { applyStepAction } from "./act-on-step";
import { refreshWaiting, type WaitingChange } from "./waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyDeps } from "./waiting/notify";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { targetUseRefusal } from "@/server/targets/rules";
import type { TargetChoicesView } from "@/core/targets/schemas";
import { findServiceTarget, listTargetChoices } from "@/server/targets/targets";
import { refuse } from "./access";
import { isStaff, targetChangeAvailability } from "./checklist";
import { findEngagement, loadForChange, updateEngagement } from "./engagement-repository";

/** Runs that may still send to the service: a change of target waits until none is. */
const UNFINISHED_RUNS = ["queued", "running", "paused"] as const;

/** The engagement's real companies that exist on its current target (a companyId from it), in file order. */
function* companiesOnTarget(tx: Tx, engagementId: string) {
  return yield* q.all(
    tx
      .select({ id: migrationItems.id, name: migrationItems.name, state: migrationItems.state, companyId: migrationItems.companyId, connectionId: migrationItems.connectionId })
      .from(migrationItems)
      .where(realItems(engagementId, isNotNull(migrationItems.companyId)))
      .orderBy(asc(migrationItems.position)),
  );
}

function* unfinishedRuns(tx: Tx, engagementId: string): Steps<number> {
  const rows = yield* q.all(
    tx
      .select({ id: migrationRuns.id })
      .from(migrationRuns)
      .where(and(eq(migrationRuns.engagementId, engagementId), inArray(migrationRuns.status, [...UNFINISHED_RUNS]))),
  );
  return rows.length;
}

/** Why the target cannot change while companies exist on the current one, in words. */
function companiesExistRefusal(params: { count: number; names: string[]; from: string; to: string }): string {
  const { count, names, from, to } = params;
  const some = names.slice(0, 3).join(", ") + (count > 3 ? ` and ${count - 3} more` : "");
  return (
    `${companiesText(count)} of this engagement already ${plural(count, { one: "exists", other: "exist" })} on ${from} (${some}): ` +
    `their companyId and connectionId mean nothing on ${to}, so the next run would send their tokens there with ids it does not know. ` +
    `Keep ${from}, or start the companies over on ${to} (their old ids are kept in their history, the single-company test runs again, and the customer is told).`
  );
}

export type ChangeTargetResult = { startedOver: number; waiting: WaitingChange | null; notice: FlowNotice | null };

/**
 * Changes the engagement's service target: support only, refused once it is completed or cancelled
 * (checked before the transaction and again inside it), for a target it may not use, and — unless
 * `startOver` — once any of its companies exists on the current target (see the module comment).
 * The caller sends `notice` to the customer once this has committed.
 */
export async function changeTarget(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { engagementId: string; serviceTargetId: string; startOver?: boolean },
): Promise<ChangeTargetResult> {
  const refusal = targetChangeAvailability(actor.role, (await readSteps(database, (tx) => loadForChange(tx, input.engagementId))).eng.status);
  if (refusal) refuse(refusal);
  // Read committed with row locks: the engagement's (loadForChange), so its status and target are
  // decided as they are, then the target's. Archiving a target locks its row and then checks that
  // no unfinished engagement points at it; with both locking it, the two queue whichever starts
  // first, and the second sees what the first did (an archived target, or an engagement using it).
  return database.transaction(
    function* (tx): Steps<ChangeTargetResult> {
      const { eng, states } = yield* loadForChange(tx, input.engagementId);
      yield* q.get(forUpdate(tx.select({ id: serviceTargets.id }).from(serviceTargets).where(eq(serviceTargets.id, input.serviceTargetId))));
      const target = yield* findServiceTarget(tx, input.serviceTargetId);
      if (!target) throw fieldError("serviceTargetId", "Choose an existing service target.");
      const locked = targetChangeAvailability(actor.role, eng.status);
      if (locked) refuse(locked);
      const refused = targetUseRefusal(target, eng.organizationId);
      if (refused) throw fieldError("serviceTargetId", refused);
      const unchanged: ChangeTargetResult = { startedOver: 0, waiting: null, notice: null };
      if (eng.serviceTargetId === target.id) return unchanged;
      const before = eng.serviceTargetId ? yield* findServiceTarget(tx, eng.serviceTargetId) : undefined;
      const from = before?.name ?? "the current target";
      const existing = yield* companiesOnTarget(tx, eng.id);
      if (existing.length && !input.startOver) {
        throw new AppError("PRECONDITION_FAILED", companiesExistRefusal({ count: existing.length, names: existing.map((i) => i.name), from, to: target.name }));
      }
      if (existing.length && (yield* unfinishedRuns(tx, eng.id))) {
        throw new AppError("PRECONDITION_FAILED", `A run of this engagement is still under way on ${from}: stop or finish it before its companies start over on ${target.name}.`);
      }
      const now = new Date();
      yield* updateEngagement(tx, eng.id, { serviceTargetId: target.id }, now);
      yield* writeAudit(tx, {
        actor,
        action: "engagement.target_changed",
        targetId: eng.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        before: { serviceTarget: before?.name ?? null },
        after: { serviceTarget: target.name, baseUrl: target.baseUrl, ...(existing.length ? { startedOver: existing.length } : {}) },
        at: now,
      });
      if (!existing.length) return unchanged;
      for (const item of existing) {
        // The company's history keeps where it was: its ids on the old target, and its state there.
        yield* writeAudit(tx, {
          actor,
          action: "migration_item.started_over",
          targetId: item.id,
          engagementId: eng.id,
          organizationId: eng.organizationId,
          before: { serviceTarget: from, companyId: item.companyId, connectionId: item.connectionId, state: item.state },
          after: { company: item.name, serviceTarget: target.name },
          at: now,
        });
      }
      yield* q.run(
        tx
          .update(migrationItems)
          .set({
            state: "pending",
            companyId: null,
            connectionId: null,
            inFlightCall: null,
            attempts: 0,
            lastError: null,
            lastErrorAt: null,
            outcomeReason: null,
            checks: null,
            runId: null,
            leaseOwner: null,
            leaseExpiresAt: null,
            nextAttemptAt: null,
            startedAt: null,
            finishedAt: null,
            linkUrl: null,
            reconnectSince: null,
            reconnectedAt: null,
            droppedAt: null,
            updatedAt: now,
          })
          .where(inArray(migrationItems.id, existing.map((i) => i.id))),
      );
      // The single-company test passed on another account: it runs again on this one.
      if (states[5] === "done") {
        yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 5, action: "reopen", via: "flow", reason: `The companies start over on ${target.name}`, at: now });
      }
      return yield* withNotice(tx, deps.notify, eng.id, {
        startedOver: existing.length,
        waiting: yield* refreshWaiting(tx, eng.id, now),
        notice: {
          to: "customer",
          subject: "Your companies start over on another service account",
          text:
            `${actor.name} pointed the migration at ${target.name} instead of ${from}. ` +
            `${companiesText(existing.length)} that ${plural(existing.length, { one: "was", other: "were" })} already made on ${from} will be migrated again on ${target.name}, with the same tokens; ` +
            `${plural(existing.length, { one: "its", other: "their" })} ids on ${from} are kept in Ferry's records. Nothing is needed from you unless support asks.`,
        },
      });
    },
    { isolation: "read committed" },
  );
}

/** The targets the engagement may be pointed at (its organisation's and the built-in sandbox) and where it points now, for staff. */
export async function getTargetChoices(database: Database, actor: Actor, engagementId: string): Promise<TargetChoicesView> {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff choose service targets.");
  const eng = await readSteps(database, (tx) => findEngagement(tx, engagementId));
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  return listTargetChoices(database, eng);
}
