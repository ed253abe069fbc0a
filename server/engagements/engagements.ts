/**
 * Engagements: creation, the checklist actions, status and owner changes, listing and detail.
 * Decisions come from the pure checklist; each is checked before the transaction and again
 * inside it, against the rows as they are then.
 */
import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import {
  auditEvents,
  engagements,
  engagementSteps,
  organizations,
  serviceTargets,
  users,
  type EngagementStatus,
  type StepEvidence,
  type StepState,
} from "@/db/schema";
import { getManagedPlatform, MANAGED_PLATFORMS, unmanagedReason, type ManagedPlatform } from "@/server/platforms";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/server/security/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import {
  completesOnBehalf,
  currentStep,
  decideStatusChange,
  decideStepAction,
  displayState,
  initialStates,
  isStaff,
  STEP_ACTIONS,
  STEP_NUMBERS,
  STEPS,
  statusAfterStepChange,
  type DisplayState,
  type Refusal,
  type Responsible,
  type StepAction,
  type StepNumber,
  type StepStates,
} from "./checklist";
import { describeAuditEvent } from "./timeline";

// ---------------------------------------------------------------------------------------------
// Access

/** Throws NOT_FOUND for an unknown engagement, and for a customer also for another organisation's. */
export function assertCanView(db: DbOrTx, actor: Actor, engagementId: string): { organizationId: string } {
  const row = db
    .select({ organizationId: engagements.organizationId })
    .from(engagements)
    .where(eq(engagements.id, engagementId))
    .get();
  if (!row) throw new AppError("NOT_FOUND", "No engagement with that id.");
  assertOrganization(actor, row.organizationId);
  return row;
}

/**
 * A customer may see only their organisation's engagements. Another organisation's is refused
 * exactly like an unknown id, so a customer cannot learn which ids exist.
 */
function assertOrganization(actor: Actor, organizationId: string): void {
  if (!isStaff(actor.role) && organizationId !== actor.organizationId) {
    throw new AppError("NOT_FOUND", "No engagement with that id.");
  }
}

function refuse(refusal: Refusal): never {
  if (refusal.code === "BAD_INPUT" && refusal.field) throw fieldError(refusal.field, refusal.reason);
  throw new AppError(refusal.code, refusal.reason);
}

// ---------------------------------------------------------------------------------------------
// Creation

function nextReference(tx: DbOrTx): string {
  const row = tx
    .select({ max: sql<number | null>`max(cast(substr(${engagements.reference}, 5) as integer))` })
    .from(engagements)
    .get();
  return `FER-${(row?.max ?? 1000) + 1}`;
}

/** Creates an engagement for a customer organisation and one of the six managed platforms. */
export function createEngagement(
  db: Db,
  actor: Actor,
  input: { organizationId: string; platformKey: string; ownerId?: string | null },
): { id: string; reference: string } {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff create engagements.");
  const platform = getManagedPlatform(input.platformKey);
  if (!platform) throw fieldError("platformKey", unmanagedReason(input.platformKey) ?? "Unknown platform.");
  const ownerId = input.ownerId ?? actor.id;

  return db.transaction((tx) => {
    const org = tx.select().from(organizations).where(eq(organizations.id, input.organizationId)).get();
    if (!org) throw fieldError("organizationId", "Choose an existing customer organisation.");
    const owner = tx.select().from(users).where(eq(users.id, ownerId)).get();
    if (!owner || !owner.active || !isStaff(owner.role)) throw fieldError("ownerId", "The owner must be an active support user.");
    const open = tx
      .select({ reference: engagements.reference })
      .from(engagements)
      .where(
        and(
          eq(engagements.organizationId, org.id),
          eq(engagements.platformKey, platform.key),
          inArray(engagements.status, ["active", "on_hold"]),
        ),
      )
      .get();
    if (open) {
      throw new AppError("CONFLICT", `${org.name} already has an open ${platform.name} engagement (${open.reference}).`, {
        fields: { platformKey: `${org.name} already has an open ${platform.name} engagement (${open.reference}).` },
      });
    }
    const target = tx.select({ id: serviceTargets.id }).from(serviceTargets).where(eq(serviceTargets.kind, "sandbox")).get();
    const now = new Date();
    const reference = nextReference(tx);
    const eng = tx
      .insert(engagements)
      .values({
        reference,
        organizationId: org.id,
        platformKey: platform.key,
        ownerId: owner.id,
        serviceTargetId: target?.id ?? null,
        status: "active",
        currentStep: 1,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: engagements.id })
      .get();
    tx.insert(engagementSteps)
      .values(STEP_NUMBERS.map((step) => ({ engagementId: eng.id, step, state: "pending" as const, updatedAt: now })))
      .run();
    recordAudit(tx, {
      actor,
      action: "engagement.created",
      targetType: "engagement",
      targetId: eng.id,
      engagementId: eng.id,
      organizationId: org.id,
      after: { reference, organization: org.name, platform: platform.name, owner: owner.name },
      at: now,
    });
    return { id: eng.id, reference };
  });
}

// ---------------------------------------------------------------------------------------------
// Checklist actions

function loadForChange(tx: DbOrTx, engagementId: string) {
  const eng = tx.select().from(engagements).where(eq(engagements.id, engagementId)).get();
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  const rows = tx.select().from(engagementSteps).where(eq(engagementSteps.engagementId, engagementId)).all();
  const states: Record<StepNumber, StepState> = { ...initialStates() };
  for (const r of rows) states[r.step as StepNumber] = r.state;
  return { eng, states: states as StepStates };
}

/**
 * Starts, completes or reopens a step. Completing records the note as evidence; reopening
 * resets every step gated on it and records the reason. Returns the steps that changed.
 */
export function actOnStep(
  db: Db,
  actor: Actor,
  input: { engagementId: string; step: StepNumber; action: StepAction; note?: string; reason?: string },
): { changed: StepNumber[]; status: EngagementStatus } {
  const decide = (eng: { status: EngagementStatus }, states: StepStates) =>
    decideStepAction({
      role: actor.role,
      action: input.action,
      step: input.step,
      states,
      engagementStatus: eng.status,
      note: input.note,
      reason: input.reason,
    });

  // Checked first outside the transaction (cheap refusal), then again inside it.
  const first = loadForChange(db, input.engagementId);
  assertOrganization(actor, first.eng.organizationId);
  const pre = decide(first.eng, first.states);
  if (!pre.ok) refuse(pre);

  return db.transaction((tx) => {
    const { eng, states } = loadForChange(tx, input.engagementId);
    const d = decide(eng, states);
    if (!d.ok) refuse(d);
    const now = new Date();
    const note = input.note?.trim() || undefined;
    const reason = input.reason?.trim();
    for (const step of d.changed) {
      const target = d.next[step];
      const isActed = step === input.step;
      switch (input.action) {
        case "start":
          tx.update(engagementSteps)
            .set({ state: target, updatedAt: now })
            .where(and(eq(engagementSteps.engagementId, eng.id), eq(engagementSteps.step, step)))
            .run();
          break;
        case "complete": {
          const evidence: StepEvidence = { note, ...(completesOnBehalf(actor.role, step) ? { onBehalfOfCustomer: true } : {}) };
          tx.update(engagementSteps)
            .set({ state: target, completedById: actor.id, completedAt: now, evidence, updatedAt: now })
            .where(and(eq(engagementSteps.engagementId, eng.id), eq(engagementSteps.step, step)))
            .run();
          break;
        }
        case "reopen":
          tx.update(engagementSteps)
            .set({
              state: target,
              completedById: null,
              completedAt: null,
              evidence: null,
              reopenedReason: isActed ? reason! : `Step ${input.step} was reopened: ${reason}`,
              reopenedById: actor.id,
              reopenedAt: now,
              updatedAt: now,
            })
            .where(and(eq(engagementSteps.engagementId, eng.id), eq(engagementSteps.step, step)))
            .run();
          break;
        default: {
          const never: never = input.action;
          return never;
        }
      }
    }
    const status = statusAfterStepChange(eng.status, d.next);
    tx.update(engagements)
      .set({ currentStep: currentStep(d.next), status, updatedAt: now })
      .where(eq(engagements.id, eng.id))
      .run();
    recordAudit(tx, {
      actor,
      action: `step.${input.action === "start" ? "started" : input.action === "complete" ? "completed" : "reopened"}`,
      targetType: "step",
      targetId: `${eng.id}:${input.step}`,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      before: { step: input.step, states: pick(states, d.changed) },
      after: {
        step: input.step,
        states: pick(d.next, d.changed),
        ...(input.action === "complete" && note ? { note } : {}),
        ...(input.action === "reopen" ? { reason, cascade: d.changed.filter((s) => s !== input.step) } : {}),
      },
      at: now,
    });
    if (status !== eng.status) auditStatusChange(tx, actor, { engagement: eng, to: status, at: now });
    return { changed: d.changed, status };
  });
}

function auditStatusChange(
  tx: DbOrTx,
  actor: Actor,
  change: { engagement: { id: string; organizationId: string; status: EngagementStatus }; to: EngagementStatus; reason?: string; at: Date },
): void {
  const { engagement: eng, to, at } = change;
  const reason = change.reason?.trim();
  recordAudit(tx, {
    actor,
    action: "engagement.status_changed",
    targetType: "engagement",
    targetId: eng.id,
    engagementId: eng.id,
    organizationId: eng.organizationId,
    before: { status: eng.status },
    after: { status: to, ...(reason ? { reason } : {}) },
    at,
  });
}

function pick(states: StepStates, steps: StepNumber[]): Record<string, StepState> {
  return Object.fromEntries(steps.map((s) => [String(s), states[s]]));
}

/** Puts an engagement on hold, back to active, or cancels it. */
export function changeStatus(
  db: Db,
  actor: Actor,
  input: { engagementId: string; status: EngagementStatus; reason?: string },
): void {
  const check = (from: EngagementStatus) => decideStatusChange({ role: actor.role, from, to: input.status });
  const first = loadForChange(db, input.engagementId);
  const pre = check(first.eng.status);
  if (!pre.ok) refuse(pre);
  if (input.status === "cancelled" && !input.reason?.trim()) throw fieldError("reason", "Give a reason for cancelling.");
  db.transaction((tx) => {
    const { eng } = loadForChange(tx, input.engagementId);
    const d = check(eng.status);
    if (!d.ok) refuse(d);
    const now = new Date();
    tx.update(engagements).set({ status: input.status, updatedAt: now }).where(eq(engagements.id, eng.id)).run();
    auditStatusChange(tx, actor, { engagement: eng, to: input.status, reason: input.reason, at: now });
  });
}

/** Hands an engagement to another support user. */
export function changeOwner(db: Db, actor: Actor, input: { engagementId: string; ownerId: string }): void {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff change owners.");
  db.transaction((tx) => {
    const { eng } = loadForChange(tx, input.engagementId);
    const owner = tx.select().from(users).where(eq(users.id, input.ownerId)).get();
    if (!owner || !owner.active || !isStaff(owner.role)) throw fieldError("ownerId", "The owner must be an active support user.");
    if (owner.id === eng.ownerId) return;
    const before = tx.select({ name: users.name }).from(users).where(eq(users.id, eng.ownerId)).get();
    const now = new Date();
    tx.update(engagements).set({ ownerId: owner.id, updatedAt: now }).where(eq(engagements.id, eng.id)).run();
    recordAudit(tx, {
      actor,
      action: "engagement.owner_changed",
      targetType: "engagement",
      targetId: eng.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      before: { owner: before?.name ?? null },
      after: { owner: owner.name },
      at: now,
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Reading

export type EngagementListFilter = {
  status?: EngagementStatus[];
  /** 1–6, or 7 for "all steps done". */
  step?: number;
  ownerId?: string;
  platformKey?: string;
  organizationId?: string;
  search?: string;
  page: number;
  pageSize: number;
};

export type EngagementListItem = {
  id: string;
  reference: string;
  organizationId: string;
  organizationName: string;
  platformKey: string;
  platformName: string;
  ownerId: string;
  ownerName: string;
  status: EngagementStatus;
  currentStep: number;
  updatedAt: Date;
  createdAt: Date;
};

export type EngagementList = {
  items: EngagementListItem[];
  total: number;
  page: number;
  pageSize: number;
  /** Engagements per current step (1–6; 7 = all done) under every filter except the step. */
  countsByStep: Record<string, number>;
};

function platformName(key: string): string {
  return getManagedPlatform(key)?.name ?? key;
}

/**
 * One page of engagements, newest activity first, with counts per step. Customers only ever see
 * their own organisation's, whatever the filter says.
 */
export function listEngagements(db: Db, actor: Actor, filter: EngagementListFilter): EngagementList {
  const organizationId = isStaff(actor.role) ? filter.organizationId : (actor.organizationId ?? "\u0000none");
  const base: (SQL | undefined)[] = [
    filter.status?.length ? inArray(engagements.status, filter.status) : undefined,
    filter.ownerId ? eq(engagements.ownerId, filter.ownerId) : undefined,
    filter.platformKey ? eq(engagements.platformKey, filter.platformKey) : undefined,
    organizationId ? eq(engagements.organizationId, organizationId) : undefined,
  ];
  const q = filter.search?.trim();
  if (q) {
    const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const platformKeys = MANAGED_PLATFORMS.filter((p) => p.name.toLowerCase().includes(q.toLowerCase())).map((p) => p.key);
    base.push(
      or(
        sql`${engagements.reference} like ${pattern} escape '\\'`,
        // Matching organisations are found once (a small table), not joined per engagement.
        sql`${engagements.organizationId} in (select ${organizations.id} from ${organizations} where ${organizations.name} like ${pattern} escape '\\')`,
        platformKeys.length ? inArray(engagements.platformKey, platformKeys) : undefined,
      ),
    );
  }
  const withStep = and(...base, filter.step ? eq(engagements.currentStep, filter.step) : undefined);

  const totalRow = db.select({ n: count() }).from(engagements).where(withStep).get();
  const byStep = db
    .select({ step: engagements.currentStep, n: count() })
    .from(engagements)
    .where(and(...base))
    .groupBy(engagements.currentStep)
    .all();
  const countsByStep: Record<string, number> = { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0 };
  for (const r of byStep) countsByStep[String(r.step)] = r.n;

  const rows = db
    .select({
      id: engagements.id,
      reference: engagements.reference,
      organizationId: engagements.organizationId,
      organizationName: organizations.name,
      platformKey: engagements.platformKey,
      ownerId: engagements.ownerId,
      ownerName: users.name,
      status: engagements.status,
      currentStep: engagements.currentStep,
      updatedAt: engagements.updatedAt,
      createdAt: engagements.createdAt,
    })
    .from(engagements)
    .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
    .innerJoin(users, eq(users.id, engagements.ownerId))
    .where(withStep)
    .orderBy(desc(engagements.updatedAt), desc(engagements.reference))
    .limit(filter.pageSize)
    .offset((filter.page - 1) * filter.pageSize)
    .all();

  return {
    items: rows.map((r) => ({ ...r, platformName: platformName(r.platformKey) })),
    total: totalRow?.n ?? 0,
    page: filter.page,
    pageSize: filter.pageSize,
    countsByStep,
  };
}

export type StepView = {
  number: StepNumber;
  title: string;
  responsible: Responsible;
  doneWhen: string;
  gates: StepNumber[];
  state: StepState;
  displayState: DisplayState;
  completedBy: { id: string; name: string } | null;
  completedAt: Date | null;
  evidence: StepEvidence | null;
  reopenedReason: string | null;
  reopenedBy: { id: string; name: string } | null;
  reopenedAt: Date | null;
  /** What the viewer may do now, and why not for the rest. */
  actions: { action: StepAction; allowed: boolean; reason: string | null; needsNote: boolean }[];
};

export type EngagementDetail = {
  id: string;
  reference: string;
  organization: { id: string; name: string };
  platform: Pick<ManagedPlatform, "key" | "name" | "category" | "callbackUrl"> | { key: string; name: string; category: null; callbackUrl: null };
  owner: { id: string; name: string; email: string };
  serviceTarget: { id: string; name: string; kind: "sandbox" | "service"; baseUrl: string } | null;
  status: EngagementStatus;
  currentStep: number;
  windowStartsAt: Date | null;
  windowEndsAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  steps: StepView[];
};

/** The engagement with its six steps as the viewer sees them. */
export function getEngagement(db: Db, actor: Actor, engagementId: string): EngagementDetail {
  const row = db
    .select({ e: engagements, orgName: organizations.name, ownerName: users.name, ownerEmail: users.email })
    .from(engagements)
    .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
    .innerJoin(users, eq(users.id, engagements.ownerId))
    .where(eq(engagements.id, engagementId))
    .get();
  if (!row) throw new AppError("NOT_FOUND", "No engagement with that id.");
  const e = row.e;
  assertOrganization(actor, e.organizationId);
  const stepRows = db
    .select()
    .from(engagementSteps)
    .where(eq(engagementSteps.engagementId, e.id))
    .orderBy(asc(engagementSteps.step))
    .all();
  const peopleIds = [...new Set(stepRows.flatMap((s) => [s.completedById, s.reopenedById]).filter((x): x is string => !!x))];
  const people = new Map(
    peopleIds.length
      ? db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, peopleIds)).all().map((p) => [p.id, p])
      : [],
  );
  const states: Record<StepNumber, StepState> = { ...initialStates() };
  for (const s of stepRows) states[s.step as StepNumber] = s.state;
  const target = e.serviceTargetId
    ? db
        .select({ id: serviceTargets.id, name: serviceTargets.name, kind: serviceTargets.kind, baseUrl: serviceTargets.baseUrl })
        .from(serviceTargets)
        .where(eq(serviceTargets.id, e.serviceTargetId))
        .get()
    : undefined;
  const platform = getManagedPlatform(e.platformKey);

  const steps: StepView[] = STEPS.map((def) => {
    const s = stepRows.find((r) => r.step === def.number);
    const actions = STEP_ACTIONS.map((action) => {
      const d = decideStepAction({
        role: actor.role,
        action,
        step: def.number,
        states,
        engagementStatus: e.status,
        note: "x",
        reason: "x",
      });
      const needsNote = action === "complete" && completesOnBehalf(actor.role, def.number);
      return { action, allowed: d.ok, reason: d.ok ? null : d.reason, needsNote };
    });
    return {
      number: def.number,
      title: def.title,
      responsible: def.responsible,
      doneWhen: def.doneWhen,
      gates: [...def.gates],
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
    organization: { id: e.organizationId, name: row.orgName },
    platform: platform
      ? { key: platform.key, name: platform.name, category: platform.category, callbackUrl: platform.callbackUrl }
      : { key: e.platformKey, name: e.platformKey, category: null, callbackUrl: null },
    owner: { id: e.ownerId, name: row.ownerName, email: row.ownerEmail },
    serviceTarget: target ?? null,
    status: e.status,
    currentStep: e.currentStep,
    windowStartsAt: e.windowStartsAt,
    windowEndsAt: e.windowEndsAt,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    steps,
  };
}

export type TimelineEntry = {
  id: number;
  at: Date;
  actor: string;
  action: string;
  summary: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
};

/** The engagement's audit events, newest first. */
export function engagementTimeline(db: Db, actor: Actor, engagementId: string, limit = 200): TimelineEntry[] {
  assertCanView(db, actor, engagementId);
  return db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.engagementId, engagementId))
    .orderBy(desc(auditEvents.id))
    .limit(limit)
    .all()
    .map((ev) => ({
      id: ev.id,
      at: ev.at,
      actor: ev.actorLabel,
      action: ev.action,
      summary: describeAuditEvent(ev),
      before: ev.before ?? null,
      after: ev.after ?? null,
    }));
}
