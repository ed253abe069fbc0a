/**
 * The one module that touches drizzle for engagements and their steps. Operations call it inside
 * their transactions (better-sqlite3 transactions are synchronous, so every function here is too).
 */
import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { engagements, engagementSteps, organizations, serviceTargets, users } from "@/db/schema";
import { AppError } from "@/server/errors";
import { MANAGED_PLATFORMS } from "@/server/platforms";
import type { DbOrTx } from "@/server/security/audit";
import { initialStates, type StepStates } from "./checklist";
import type { StepEvidence } from "@/core/engagements/evidence";
import type { EngagementListFilter } from "@/core/engagements/schemas";
import type { StepNumber, StepState } from "@/core/engagements/states";

export type EngagementRow = typeof engagements.$inferSelect;
export type StepRow = typeof engagementSteps.$inferSelect;

/** The engagement row, or undefined. */
export function findEngagement(tx: DbOrTx, engagementId: string): EngagementRow | undefined {
  return tx.select().from(engagements).where(eq(engagements.id, engagementId)).get();
}

function statesOf(rows: readonly Pick<StepRow, "step" | "state">[]): StepStates {
  const states: Record<StepNumber, StepState> = { ...initialStates() };
  for (const r of rows) states[r.step as StepNumber] = r.state;
  return states;
}

/** The engagement and its step states, for a change; NOT_FOUND when there is none. */
export function loadForChange(tx: DbOrTx, engagementId: string): { eng: EngagementRow; states: StepStates } {
  const eng = findEngagement(tx, engagementId);
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  const rows = tx
    .select({ step: engagementSteps.step, state: engagementSteps.state })
    .from(engagementSteps)
    .where(eq(engagementSteps.engagementId, engagementId))
    .all();
  return { eng, states: statesOf(rows) };
}

/** The next human reference, FER-1001 onwards. */
export function nextReference(tx: DbOrTx): string {
  const row = tx
    .select({ max: sql<number | null>`max(cast(substr(${engagements.reference}, 5) as integer))` })
    .from(engagements)
    .get();
  return `FER-${(row?.max ?? 1000) + 1}`;
}

/** An open (active or on hold) engagement of the organisation on the platform, if any. */
export function findOpenEngagement(tx: DbOrTx, organizationId: string, platformKey: string): { reference: string } | undefined {
  return tx
    .select({ reference: engagements.reference })
    .from(engagements)
    .where(
      and(
        eq(engagements.organizationId, organizationId),
        eq(engagements.platformKey, platformKey),
        inArray(engagements.status, ["active", "on_hold"]),
      ),
    )
    .get();
}

/** Inserts an engagement with its six steps pending. */
export function insertEngagement(
  tx: DbOrTx,
  values: { reference: string; organizationId: string; platformKey: string; ownerId: string; serviceTargetId: string | null; at: Date },
): { id: string } {
  const eng = tx
    .insert(engagements)
    .values({
      reference: values.reference,
      organizationId: values.organizationId,
      platformKey: values.platformKey,
      ownerId: values.ownerId,
      serviceTargetId: values.serviceTargetId,
      status: "active",
      currentStep: 1,
      createdAt: values.at,
      updatedAt: values.at,
    })
    .returning({ id: engagements.id })
    .get();
  const steps = Object.keys(initialStates()).map((n) => ({ engagementId: eng.id, step: Number(n), state: "pending" as const, updatedAt: values.at }));
  tx.insert(engagementSteps).values(steps).run();
  return eng;
}

export type StepChange =
  | { kind: "start"; state: StepState }
  | { kind: "complete"; state: StepState; completedById: string; evidence: StepEvidence }
  | { kind: "reopen"; state: StepState; reopenedById: string; reason: string };

/** Writes one step's change: its state and the record that goes with it. */
export function updateStep(tx: DbOrTx, engagementId: string, step: StepNumber, change: StepChange, at: Date): void {
  const where = and(eq(engagementSteps.engagementId, engagementId), eq(engagementSteps.step, step));
  switch (change.kind) {
    case "start":
      tx.update(engagementSteps).set({ state: change.state, updatedAt: at }).where(where).run();
      return;
    case "complete":
      tx.update(engagementSteps)
        .set({ state: change.state, completedById: change.completedById, completedAt: at, evidence: change.evidence, updatedAt: at })
        .where(where)
        .run();
      return;
    case "reopen":
      tx.update(engagementSteps)
        .set({
          state: change.state,
          completedById: null,
          completedAt: null,
          evidence: null,
          reopenedReason: change.reason,
          reopenedById: change.reopenedById,
          reopenedAt: at,
          updatedAt: at,
        })
        .where(where)
        .run();
      return;
    default: {
      const never: never = change;
      return never;
    }
  }
}

/** Updates engagement columns (always bumping updatedAt). */
export function updateEngagement(
  tx: DbOrTx,
  engagementId: string,
  set: Partial<Pick<EngagementRow, "status" | "statusChangedAt" | "currentStep" | "ownerId" | "serviceTargetId" | "windowStartsAt" | "windowEndsAt">>,
  at: Date,
): void {
  tx.update(engagements).set({ ...set, updatedAt: at }).where(eq(engagements.id, engagementId)).run();
}

/**
 * Records whose move it is (without bumping updatedAt: the change that moved it did). `since` is
 * when it last changed hands, so it is written only with a new party.
 */
export function updateWaiting(tx: DbOrTx, engagementId: string, waiting: { waitingOn: EngagementRow["waitingOn"]; waitingSince: Date | null }): void {
  tx.update(engagements).set(waiting).where(eq(engagements.id, engagementId)).run();
}

// ---------------------------------------------------------------------------------------------
// Reading

/** How many steps are done, per engagement row, in SQL (the list's progress). */
const stepsDoneSql = sql<number>`(select count(*) from ${engagementSteps} where ${engagementSteps.engagementId} = ${engagements.id} and ${engagementSteps.state} = 'done')`;

/**
 * One page of engagement rows with their total and counts per current step. `organizationId`
 * has already been narrowed to the viewer's own for customers.
 */
export function queryEngagementPage(tx: DbOrTx, filter: EngagementListFilter) {
  const base: (SQL | undefined)[] = [
    filter.status?.length ? inArray(engagements.status, filter.status) : undefined,
    filter.ownerId ? eq(engagements.ownerId, filter.ownerId) : undefined,
    filter.platformKey ? eq(engagements.platformKey, filter.platformKey) : undefined,
    filter.organizationId ? eq(engagements.organizationId, filter.organizationId) : undefined,
    filter.waitingOn ? eq(engagements.waitingOn, filter.waitingOn) : undefined,
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

  const total = tx.select({ n: count() }).from(engagements).where(withStep).get()?.n ?? 0;
  const byStep = tx
    .select({ step: engagements.currentStep, n: count() })
    .from(engagements)
    .where(and(...base))
    .groupBy(engagements.currentStep)
    .all();
  const rows = tx
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
      stepsDone: stepsDoneSql,
      waitingOn: engagements.waitingOn,
      waitingSince: engagements.waitingSince,
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
  return { rows, total, byStep };
}

/** The engagement with its organisation, owner, steps (with the people named on them) and target. */
export function loadEngagementDetail(tx: DbOrTx, engagementId: string) {
  const row = tx
    .select({ e: engagements, orgName: organizations.name, ownerName: users.name, ownerEmail: users.email })
    .from(engagements)
    .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
    .innerJoin(users, eq(users.id, engagements.ownerId))
    .where(eq(engagements.id, engagementId))
    .get();
  if (!row) return undefined;
  const stepRows = tx.select().from(engagementSteps).where(eq(engagementSteps.engagementId, engagementId)).orderBy(asc(engagementSteps.step)).all();
  const peopleIds = [...new Set(stepRows.flatMap((s) => [s.completedById, s.reopenedById]).filter((x): x is string => !!x))];
  const people = new Map(
    peopleIds.length
      ? tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, peopleIds)).all().map((p) => [p.id, p])
      : [],
  );
  const target = row.e.serviceTargetId
    ? tx
        .select({
          id: serviceTargets.id,
          name: serviceTargets.name,
          kind: serviceTargets.kind,
          baseUrl: serviceTargets.baseUrl,
          organizationId: serviceTargets.organizationId,
          builtIn: serviceTargets.builtIn,
          archivedAt: serviceTargets.archivedAt,
        })
        .from(serviceTargets)
        .where(eq(serviceTargets.id, row.e.serviceTargetId))
        .get()
    : undefined;
  return { ...row, stepRows, states: statesOf(stepRows), people, target: target ?? null };
}
