/** One engagement as the viewer sees it: its six steps with the actions they may take now. */
import { readSteps } from "@/db/database";
import type { Database } from "@/db/database";
import { AppError } from "@/server/errors";
import { getManagedPlatform } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { targetUseRefusal } from "@/server/targets/rules";
import { assertOrganization } from "./access";
import {
  completesOnBehalf,
  isStaff,
  displayState,
  offeredActions,
  openGates,
  personRefusedByFlow,
  reopenCascade,
  stepActionAvailability,
  statusChangeOptions,
  stepsDone,
  targetChangeAvailability,
  toControl,
  waitsForWords,
} from "./checklist";
import { STEPS } from "@/core/engagements/steps";
import { loadEngagementDetail } from "./engagement-repository";
import type { EngagementDetail, StepView } from "@/core/engagements/schemas";
import { whoseMove } from "./waiting/waiting-rule";
import { loadWaitingInput } from "./waiting/waiting-input";

/** The engagement with its steps, each offering the viewer its actions (allowed or with the reason why not). */
export async function getEngagement(database: Database, actor: Actor, engagementId: string): Promise<EngagementDetail> {
  const read = await readSteps(database, function* (tx) {
    const detail = yield* loadEngagementDetail(tx, engagementId);
    return detail && { detail, waitingInput: yield* loadWaitingInput(tx, detail.e, detail.states) };
  });
  if (!read) throw new AppError("NOT_FOUND", "No engagement with that id.");
  const loaded = read.detail;
  const { e, states, stepRows, people } = loaded;
  assertOrganization(actor, e.organizationId);
  const platform = getManagedPlatform(e.platformKey);
  // Decided afresh (the stored party is the same after every change; `since` comes from it).
  const waiting = whoseMove(read.waitingInput);

  const steps: StepView[] = STEPS.map((def) => {
    const s = stepRows.find((r) => r.step === def.number);
    // Only what the checklist allows now: a refused action is no button at all (a locked step says
    // what it waits for; the header says the engagement is on hold). Actions a step's own flow owns
    // are offered in its panel (submit, accept, propose…), not here.
    const actions = offeredActions(states[def.number])
      .filter((action) => !personRefusedByFlow(def.number, action, "person"))
      .filter((action) => stepActionAvailability({ role: actor.role, action, step: def.number, states, engagementStatus: e.status }).ok)
      .map((action) => ({
        action,
        needsNote: action === "complete" && completesOnBehalf(actor.role, def.number),
        cascade: action === "reopen" ? reopenCascade(states, def.number) : [],
      }));
    return {
      number: def.number,
      title: def.title,
      responsible: def.responsible,
      doneWhen: isStaff(actor.role) ? def.doneWhen : (def.customerDoneWhen ?? def.doneWhen),
      gates: [...def.gates],
      openGates: openGates(states, def.number),
      waitsFor: waitsForWords(states, def.number),
      state: states[def.number],
      displayState: displayState(states, def.number),
      completedBy: s?.completedById ? (people.get(s.completedById) ?? null) : null,
      completedAt: s?.completedAt ?? null,
      evidence: s?.evidence ?? null,
      reopenedReason: s?.reopenedReason ?? null,
      reopenedBy: s?.reopenedById ? (people.get(s.reopenedById) ?? null) : null,
      reopenedAt: s?.reopenedAt ?? null,
      actions,
    };
  });

  return {
    id: e.id,
    reference: e.reference,
    organization: { id: e.organizationId, name: loaded.orgName },
    platform: platform
      ? { key: platform.key, name: platform.name, category: platform.category, callbackUrl: platform.callbackUrl }
      : { key: e.platformKey, name: e.platformKey, category: null, callbackUrl: null },
    owner: { id: e.ownerId, name: loaded.ownerName, email: loaded.ownerEmail },
    serviceTarget: loaded.target
      ? {
          id: loaded.target.id,
          name: loaded.target.name,
          kind: loaded.target.kind,
          baseUrl: loaded.target.baseUrl,
          builtIn: loaded.target.builtIn,
          problem: targetUseRefusal(loaded.target, e.organizationId),
        }
      : null,
    targetChange: toControl(targetChangeAvailability(actor.role, e.status)),
    status: e.status,
    currentStep: e.currentStep,
    stepsDone: stepsDone(states),
    windowStartsAt: e.windowStartsAt,
    windowEndsAt: e.windowEndsAt,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    steps,
    waiting: { party: waiting.party, since: waiting.party && waiting.party === e.waitingOn ? e.waitingSince : null, next: waiting.next, moves: waiting.moves },
    statusChanges: statusChangeOptions(actor.role, e.status),
  };
}
