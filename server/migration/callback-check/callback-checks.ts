/**
 * Step 3 proven by a round trip. Ferry makes a throwaway company and connection on the engagement's
 * target for the platform and hands the customer the connection's Link URL; the customer authorizes
 * it with any account of theirs. The platform then sends the authorization to the redirect URI the
 * service gave it (its callback URL) only if the customer's OAuth app lists it: a connection that
 * becomes Linked proves it, and step 3 completes with that evidence; a refused redirect shows the
 * platform's words and what to fix, and the same link can be tried again once fixed. The company
 * is deleted from the service once the check ends. Where no round trip can be made (no target, the
 * service refuses), the customer's confirmation stays, recorded as unproven.
 *
 * The service is asked from the screens that show the check (a refresh every few seconds while it
 * is open, at most once per `refreshMs` whoever looks), so nothing runs while nobody looks.
 */
import { randomUUID } from "node:crypto";
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import type { CallbackCheckView } from "@/core/engagements/confirm-schemas";
import type { CallbackCheckStatus } from "@/core/engagements/flow-states";
import { findUser } from "@/server/accounts/users";
import { AppError } from "@/server/errors";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { assertOrganization } from "@/server/engagements/access";
import { stepActionAvailability, type StepStates } from "@/server/engagements/checklist";
import { findEngagement, findStepStates, loadForChange, type EngagementRow } from "@/server/engagements/engagement-repository";
import { findCurrentSubmission } from "@/server/engagements/intake/intake-repository";
import { withNotice, type NotifyDeps } from "@/server/engagements/waiting/notify";
import { getManagedPlatform } from "@/server/platforms";
import { writeAudit } from "@/server/security/audit";
import type { KeyRing } from "@/server/security/secrets";
import { logSafe } from "@/server/security/log-safe";
import { createServiceClient, ServiceError, type ServiceClient, type ServiceClientOptions } from "@/server/service-client";
import { targetAddressPolicy } from "@/server/targets/network";
import { targetUseRefusal } from "@/server/targets/rules";
import { findServiceTarget, type ServiceTargetRecord } from "@/server/targets/targets";
import { openRunSession } from "../engine/run-session";
import { insertCallbackCheck, latestCallbackCheck, updateCallbackCheck, type CallbackCheckRow } from "./callback-check-repository";
import { checkCompanyName, isOpenCheck, tokenLimitCaveat, readCheckedConnection, refreshDue, refusalFix, statusAfter, type ConnectionReading } from "./callback-check-rules";

/** The tag on the throwaway company: never the engagement's tag, so the watch and the bulk run never see it. */
export const CALLBACK_CHECK_TAG = "ferryCallbackCheck";

export type CallbackCheckDeps = NotifyDeps & {
  database: Database;
  ring: KeyRing;
  /** Passed to the service client (tests: a fetch). */
  client?: Partial<ServiceClientOptions>;
  /** The service is asked about an open check at most this often (default 3 s). */
  refreshMs?: number;
  /** How long a session (the target's decrypted key) is kept for the engagement's further calls. */
  sessionTtlMs?: number;
  now?: () => Date;
  log?: (line: string) => void;
};

type Check = CallbackCheckRow & { startedBy: string };

type Facts = {
  eng: EngagementRow;
  states: StepStates;
  check: Check | undefined;
  target: ServiceTargetRecord | undefined;
  /** The OAuth app's client id from the accepted details (step 1). */
  appClientId: string | null;
};

function* readFacts(tx: Tx, engagementId: string): Steps<Facts> {
  const eng = yield* findEngagement(tx, engagementId);
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  const submission = yield* findCurrentSubmission(tx, engagementId);
  return {
    eng,
    states: yield* findStepStates(tx, engagementId),
    check: yield* latestCallbackCheck(tx, engagementId),
    target: eng.serviceTargetId ? yield* findServiceTarget(tx, eng.serviceTargetId) : undefined,
    appClientId: submission?.clientId ?? null,
  };
}

/** Why a round trip cannot be started now; null when it can. */
function startRefusal(f: Facts, actor: Actor): string | null {
  if (f.states[3] === "done") return "Step 3 is done.";
  const d = stepActionAvailability({ role: actor.role, action: "complete", step: 3, states: f.states, engagementStatus: f.eng.status, via: "flow" });
  if (!d.ok) return d.reason;
  if (!f.target) return "The engagement has no service target yet, so there is nowhere to make the round trip: confirm by hand, or ask support to set the target.";
  const refused = targetUseRefusal(f.target, f.eng.organizationId);
  if (refused) return refused;
  if (!getManagedPlatform(f.eng.platformKey)) return "This engagement's platform has no managed migration.";
  if (f.check && isOpenCheck(f.check.status)) return "A round trip is open: authorize its test connection, or cancel it.";
  return null;
}

/** The sandbox's developer console page of the customer's app, where its redirect URIs are kept. */
function consoleUrl(f: Facts): string | null {
  if (f.target?.kind !== "sandbox" || !f.appClientId) return null;
  const base = f.target.baseUrl.endsWith("/") ? f.target.baseUrl : `${f.target.baseUrl}/`;
  return new URL(`developer/${encodeURIComponent(f.eng.platformKey)}/apps/${encodeURIComponent(f.appClientId)}`, base).toString();
}

function toView(f: Facts, actor: Actor, linkUrl: string | null): CallbackCheckView {
  const c = f.check;
  const platform = getManagedPlatform(f.eng.platformKey);
  const cannotStart = startRefusal(f, actor);
  const open = !!c && isOpenCheck(c.status);
  return {
    status: c?.status ?? "none",
    id: c?.id ?? null,
    startedAt: c?.startedAt ?? null,
    startedBy: c?.startedBy ?? null,
    checkedAt: c?.checkedAt ?? null,
    finishedAt: c?.finishedAt ?? null,
    companyId: c?.companyId ?? null,
    linkUrl: open ? linkUrl : null,
    refusal: c?.refusal ?? null,
    fix: c?.status === "refused" && platform ? refusalFix(platform.callbackUrl) : null,
    error: c?.errorText ? { status: c.errorStatus ?? null, text: c.errorText, correlationId: c.correlationId ?? null } : null,
    companyDeleted: !!c?.companyDeletedAt,
    canStart: cannotStart === null,
    cannotStart,
    consoleUrl: consoleUrl(f),
    caveat: platform ? tokenLimitCaveat(platform) : null,
  };
}

type ServiceFailure = { status: number | null; text: string; correlationId: string | null };

function failureOf(error: unknown): ServiceFailure | null {
  if (error instanceof ServiceError) return { status: error.status, text: error.error, correlationId: error.correlationId };
  return null;
}

/** The person who started the check, as the actor of step 3's completion. */
function* starter(tx: Tx, check: Check): Steps<Actor | null> {
  const user = yield* findUser(tx, check.startedById);
  return user ? { id: user.id, email: "", name: user.name, role: user.role, organizationId: null } : null;
}

/** What the round trips of one process share: its deps, the clock, and the sessions and Link URLs held in memory. */
type Ctx = {
  deps: CallbackCheckDeps;
  database: Database;
  now: () => Date;
  refreshMs: number;
  ttl: number;
  sessions: Map<string, { client: ServiceClient; targetId: string; until: number }>;
  /** The connection's latest Link URL per check (one-time ones are fresh at each answer); never stored. */
  links: Map<string, string>;
};

async function clientFor(ctx: Ctx, check: Pick<CallbackCheckRow, "id" | "engagementId" | "serviceTargetId">): Promise<{ client: ServiceClient } | { failure: ServiceFailure }> {
  const cached = ctx.sessions.get(check.engagementId);
  if (cached && cached.until > Date.now() && cached.targetId === check.serviceTargetId) return { client: cached.client };
  const session = await openRunSession({
    database: ctx.database,
    ring: ctx.deps.ring,
    run: check,
    purpose: (reference) => `prove the callback URL of ${reference} by a round trip`,
    connect: (t, apiKey) => createServiceClient({ timeoutMs: 15_000, ...ctx.deps.client, baseUrl: t.baseUrl, apiKey, addresses: targetAddressPolicy(t) }),
  });
  if (!session.ok) return { failure: { status: null, text: session.refusal.kind === "no_target" ? "The engagement has no service target." : session.refusal.reason, correlationId: null } };
  ctx.sessions.set(check.engagementId, { client: session.connection, targetId: check.serviceTargetId, until: Date.now() + ctx.ttl });
  return { client: session.connection };
}

function forget(ctx: Ctx, engagementId: string, failure: ServiceFailure): void {
  if (failure.status === 401 || failure.status === 403) ctx.sessions.delete(engagementId);
}

async function view(ctx: Ctx, actor: Actor, engagementId: string): Promise<CallbackCheckView> {
  const f = await readSteps(ctx.database, (tx) => readFacts(tx, engagementId));
  assertOrganization(actor, f.eng.organizationId);
  return toView(f, actor, f.check ? (ctx.links.get(f.check.id) ?? null) : null);
}

/** Ends a check without proof: failed (the service's refusal kept) or cancelled. */
async function endWithout(
  ctx: Ctx,
  check: Pick<CallbackCheckRow, "id" | "engagementId">,
  end: { actor: Actor | null; outcome: "failed" | "cancelled"; reason: string; failure: ServiceFailure | null },
) {
  const { actor, outcome, reason, failure } = end;
  const at = ctx.now();
  await ctx.database.transaction(function* (tx) {
    const changed = yield* updateCallbackCheck(tx, check.id, ["waiting", "refused"], {
      status: outcome,
      finishedAt: at,
      ...(failure ? { errorStatus: failure.status, errorText: failure.text, correlationId: failure.correlationId } : {}),
    });
    if (!changed) return;
    yield* writeAudit(tx, {
      actor,
      action: "callback_check.ended",
      targetId: check.engagementId,
      engagementId: check.engagementId,
      at,
      before: null,
      after: { outcome, reason, status: failure?.status ?? null, correlationId: failure?.correlationId ?? null },
    });
  }, { isolation: "read committed" });
}

/** Deletes the throwaway company from the service; a failure is left for the next look. */
async function removeCompany(ctx: Ctx, check: CallbackCheckRow): Promise<void> {
  if (!check.companyId || check.companyDeletedAt) return;
  const session = await clientFor(ctx, check);
  if ("failure" in session) return;
  const { client } = session;
  try {
    await client.deleteCompany({ companyId: check.companyId });
  } catch (error) {
    const failure = failureOf(error);
    if (!failure) {
      ctx.deps.log?.(`callback check ${check.id}: deleting its company: ${logSafe(error)}`);
      return;
    }
    if (failure.status !== 404) {
      forget(ctx, check.engagementId, failure);
      return;
    }
  }
  const status: CallbackCheckStatus[] = ["proven", "failed", "cancelled"];
  await ctx.database.transaction((tx) => updateCallbackCheck(tx, check.id, status, { companyDeletedAt: ctx.now() }), { isolation: "read committed" });
}

/** Makes the throwaway company and connection for a check just recorded. */
async function makeThrowaway(ctx: Ctx, check: CallbackCheckRow, eng: EngagementRow, actor: Actor): Promise<void> {
  const session = await clientFor(ctx, check);
  if ("failure" in session) return endWithout(ctx, check, { actor, outcome: "failed", reason: session.failure.text, failure: session.failure });
  const { client } = session;
  let companyId: string | null = null;
  try {
    const company = await client.createCompany({
      name: checkCompanyName(eng.reference),
      description: "Made by Ferry to prove the callback URL (step 3); deleted once the check ends.",
      tags: { [CALLBACK_CHECK_TAG]: check.id },
    });
    companyId = company.data.id;
    const connection = await client.createConnection({ companyId, platformKey: eng.platformKey });
    if (connection.data.linkUrl) ctx.links.set(check.id, connection.data.linkUrl);
    const platform = getManagedPlatform(eng.platformKey);
    const at = ctx.now();
    const made = { companyId, connectionId: connection.data.id };
    const kept = await ctx.database.transaction(function* (tx) {
      if (!(yield* updateCallbackCheck(tx, check.id, ["waiting"], { ...made, checkedAt: at }))) return false;
      yield* writeAudit(tx, { actor, action: "callback_check.started", targetId: eng.id, engagementId: eng.id, at, before: null, after: { ...made, callbackUrl: platform?.callbackUrl ?? "" } });
      return true;
    }, { isolation: "read committed" });
    // Cancelled while the company was being made: it is not left behind on the service.
    if (!kept) await removeCompany(ctx, { ...check, ...made, status: "cancelled", companyDeletedAt: null });
  } catch (error) {
    const failure = failureOf(error);
    if (!failure) throw error;
    forget(ctx, eng.id, failure);
    await endWithout(ctx, check, { actor, outcome: "failed", reason: `The service refused to make the round trip's test ${companyId ? "connection" : "company"}: ${failure.text}`, failure });
    if (companyId) await removeCompany(ctx, { ...check, companyId, companyDeletedAt: null });
  }
}

/** Records what the connection said; a Linked one proves step 3 and completes it. */
async function record(ctx: Ctx, check: Check, reading: ConnectionReading): Promise<void> {
  const at = ctx.now();
  const next = statusAfter(check.status, reading);
  await ctx.database.transaction(function* (tx) {
    const words = reading.kind === "refused" ? reading.words : check.refusal;
    const changed = yield* updateCallbackCheck(tx, check.id, ["waiting", "refused"], {
      status: next,
      refusal: words,
      checkedAt: at,
      errorStatus: null,
      errorText: null,
      correlationId: null,
      ...(next === "proven" ? { finishedAt: at } : {}),
    });
    if (!changed) return;
    const base = { actor: null, targetId: check.engagementId, engagementId: check.engagementId, at, before: null } as const;
    if (reading.kind === "refused" && (check.status !== "refused" || check.refusal !== reading.words)) {
      yield* writeAudit(tx, { ...base, action: "callback_check.refused", after: { refusal: reading.words } });
    }
    if (next === "proven") yield* prove(ctx, tx, check, at);
  }, { isolation: "read committed" });
}

/** Step 3 completes with the round trip's evidence, as the person who started it (when the checklist allows it now). */
function* prove(ctx: Ctx, tx: Tx, check: Check, at: Date): Steps<void> {
  const proof = { companyId: check.companyId ?? "", connectionId: check.connectionId ?? "" };
  yield* writeAudit(tx, { actor: null, action: "callback_check.proven", targetId: check.engagementId, engagementId: check.engagementId, at, before: null, after: proof });
  const { eng, states } = yield* loadForChange(tx, check.engagementId);
  const actor = yield* starter(tx, check);
  const platform = getManagedPlatform(eng.platformKey);
  if (!actor || !platform || states[3] === "done") return;
  const d = stepActionAvailability({ role: actor.role, action: "complete", step: 3, states, engagementStatus: eng.status, via: "flow" });
  if (!d.ok) return;
  const evidence = { kind: "callback_confirmed" as const, callbackUrl: platform.callbackUrl, proof: { checkId: check.id, ...proof, linkedAt: at } };
  yield* withNotice(tx, ctx.deps.notify, eng.id, yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 3, action: "complete", via: "flow", evidence, at }));
}

/** Asks the service for the open check's connection and records what it says. */
async function poll(ctx: Ctx, check: Check): Promise<void> {
  const session = await clientFor(ctx, check);
  if ("failure" in session) return endWithout(ctx, check, { actor: null, outcome: "failed", reason: session.failure.text, failure: session.failure });
  const { client } = session;
  let reading: ConnectionReading;
  try {
    const answer = await client.getConnection({ companyId: check.companyId!, connectionId: check.connectionId! });
    if (answer.data.linkUrl) ctx.links.set(check.id, answer.data.linkUrl);
    reading = readCheckedConnection(answer.data);
  } catch (error) {
    const failure = failureOf(error);
    if (!failure) throw error;
    forget(ctx, check.engagementId, failure);
    if (failure.status === 404) return endWithout(ctx, check, { actor: null, outcome: "failed", reason: "The round trip's test company is no longer on the service.", failure });
    const at = ctx.now();
    await ctx.database.transaction((tx) => updateCallbackCheck(tx, check.id, ["waiting", "refused"], { checkedAt: at, errorStatus: failure.status, errorText: failure.text, correlationId: failure.correlationId }), { isolation: "read committed" });
    return;
  }
  await record(ctx, check, reading);
  if (reading.kind === "linked") await removeCompany(ctx, { ...check, status: "proven" });
}


/** Starts a round trip (or answers the open one). */
async function startCheck(ctx: Ctx, actor: Actor, engagementId: string): Promise<CallbackCheckView> {
  const f = await readSteps(ctx.database, (tx) => readFacts(tx, engagementId));
  assertOrganization(actor, f.eng.organizationId);
  if (f.check && isOpenCheck(f.check.status)) return toView(f, actor, ctx.links.get(f.check.id) ?? null);
  const refused = startRefusal(f, actor);
  if (refused) throw new AppError("PRECONDITION_FAILED", refused);
  const row: CallbackCheckRow = {
    id: randomUUID(),
    engagementId,
    serviceTargetId: f.target!.id,
    platformKey: f.eng.platformKey,
    status: "waiting",
    companyId: null,
    connectionId: null,
    refusal: null,
    errorStatus: null,
    errorText: null,
    correlationId: null,
    startedById: actor.id,
    startedAt: ctx.now(),
    checkedAt: null,
    finishedAt: null,
    companyDeletedAt: null,
  };
  // Decided again on the locked engagement: one open round trip per engagement, however many clicks.
  const inserted = await ctx.database.transaction(function* (tx) {
    yield* loadForChange(tx, engagementId);
    const again = yield* latestCallbackCheck(tx, engagementId);
    if (again && isOpenCheck(again.status)) return false;
    yield* insertCallbackCheck(tx, row);
    return true;
  }, { isolation: "read committed" });
  if (inserted) await makeThrowaway(ctx, row, f.eng, actor);
  return view(ctx, actor, engagementId);
}

/**
 * Asks the service about the open round trip when due (a Linked connection completes step 3)
 * and deletes a finished one's company if that is still to do; answers the check as it stands.
 */
async function refreshCheck(ctx: Ctx, actor: Actor, engagementId: string): Promise<CallbackCheckView> {
  const f = await readSteps(ctx.database, (tx) => readFacts(tx, engagementId));
  assertOrganization(actor, f.eng.organizationId);
  const check = f.check;
  if (check && refreshDue(check.checkedAt, ctx.now(), ctx.refreshMs)) {
    if (isOpenCheck(check.status) && check.companyId && check.connectionId) await poll(ctx, check);
    else if (!isOpenCheck(check.status)) await removeCompany(ctx, check);
  }
  return view(ctx, actor, engagementId);
}

/** Cancels the open round trip and deletes its company. */
async function cancelCheck(ctx: Ctx, actor: Actor, engagementId: string): Promise<CallbackCheckView> {
  const f = await readSteps(ctx.database, (tx) => readFacts(tx, engagementId));
  assertOrganization(actor, f.eng.organizationId);
  const check = f.check;
  if (!check || !isOpenCheck(check.status)) throw new AppError("PRECONDITION_FAILED", "No round trip is open.");
  await endWithout(ctx, check, { actor, outcome: "cancelled", reason: `${actor.name} cancelled it`, failure: null });
  ctx.links.delete(check.id);
  await removeCompany(ctx, { ...check, status: "cancelled" });
  return view(ctx, actor, engagementId);
}

/** Step 3's round trips on the engagements' targets (see the module comment). */
export function createCallbackChecks(deps: CallbackCheckDeps) {
  const ctx: Ctx = {
    deps,
    database: deps.database,
    now: deps.now ?? (() => new Date()),
    refreshMs: deps.refreshMs ?? 3_000,
    ttl: deps.sessionTtlMs ?? 10 * 60_000,
    sessions: new Map(),
    links: new Map(),
  };
  return {
    view: (actor: Actor, engagementId: string) => view(ctx, actor, engagementId),
    start: (actor: Actor, engagementId: string) => startCheck(ctx, actor, engagementId),
    refresh: (actor: Actor, engagementId: string) => refreshCheck(ctx, actor, engagementId),
    cancel: (actor: Actor, engagementId: string) => cancelCheck(ctx, actor, engagementId),
  };
}

export type CallbackChecks = ReturnType<typeof createCallbackChecks>;
