/**
 * The one module that touches drizzle for engagements and their steps. Its functions are
 * transaction steps (`yield*` them in a transaction body, see db/database.ts); reads outside a
 * transaction run them through `readSteps`.
 */
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import { engagements, engagementSteps, organizations, users } from "@/db/schema";
import { findServiceTarget } from "@/server/targets/targets";
import { AppError } from "@/server/errors";
import { MANAGED_PLATFORMS } from "@/server/platforms";
import { forUpdate, q, type Steps, type Tx } from "@/db/database";
import { initialStates, type StepStates } from "./checklist";
import { clockTargetsFor, moveDeadlines } from "@/core/engagements/clocks";
import type { StepEvidence } from "@/core/engagements/evidence";
import type { EngagementListFilter } from "@/core/engagements/schemas";
import type { StepNumber, StepState } from "@/core/engagements/states";

export type EngagementRow = typeof engagements.$inferSelect;
export type StepRow = typeof engagementSteps.$inferSelect;

/** The engagement row, or undefined. */
export function* findEngagement(tx: Tx, engagementId: string): Steps<EngagementRow | undefined> {
  return yield* q.get(tx.select().from(engagements).where(eq(engagements.id, engagementId)));
}

function statesOf(rows: readonly Pick<StepRow, "step" | "state">[]): StepStates {
  const states: Record<StepNumber, StepState> = { ...initialStates() };
  for (const r of rows) states[r.step as StepNumber] = r.state;
  return states;
}

/** The engagement's step states, read without locking anything (a view; a change uses loadForChange). */
export function* findStepStates(tx: Tx, engagementId: string): Steps<StepStates> {
  const rows = yield* q.all(tx.select({ step: engagementSteps.step, state: engagementSteps.state }).from(engagementSteps).where(eq(engagementSteps.engagementId, engagementId)));
  return statesOf(rows);
}

/**
 * The engagement and its step states, for a change; NOT_FOUND when there is none. Inside a
 * transaction the engagement row is locked (FOR UPDATE on PostgreSQL) until it ends: every change
 * of an engagement or its steps loads it here first, so changes of one engagement queue on its row
 * and each decides on the states as the previous one left them (read committed suffices).
 */
export function* loadForChange(tx: Tx, engagementId: string): Steps<{ eng: EngagementRow; states: StepStates }> {
  const eng = yield* q.get(forUpdate(tx.select().from(engagements).where(eq(engagements.id, engagementId))));
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  const rows = yield* q.all(
    tx.select({ step: engagementSteps.step, state: engagementSteps.state }).from(engagementSteps).where(eq(engagementSteps.engagementId, engagementId)),
  );
  return { eng, states: statesOf(rows) };
}

/** The next human reference, FER-1001 onwards. */
export function* nextReference(tx: Tx): Steps<string> {
  // substr and cast mean the same on SQLite and PostgreSQL.
  const row = yield* q.get(
    tx.select({ max: sql<number | null>`max(cast(substr(${engagements.reference}, 5) as integer))`.mapWith((v) => (v === null ? null : Number(v))) }).from(engagements),
  );
  return `FER-${(row?.max ?? 1000) + 1}`;
}

/** An open (active or on hold) engagement of the organisation on the platform, if any. */
export function* findOpenEngagement(tx: Tx, organizationId: string, platformKey: string): Steps<{ reference: string } | undefined> {
  return yield* q.get(
    tx
      .select({ reference: engagements.reference })
      .from(engagements)
      .where(
        and(
          eq(engagements.organizationId, organizationId),
          eq(engagements.platformKey, platformKey),
          inArray(engagements.status, ["active", "on_hold"]),
        ),
      ),
  );
}

/** Inserts an engagement with its six steps pending. */
export function* insertEngagement(
  tx: Tx,
  values: { reference: string; organizationId: string; platformKey: string; ownerId: string; serviceTargetId: string | null; at: Date },
): Steps<{ id: string }> {
  const eng = yield* q.get(
    tx
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
      .returning({ id: engagements.id }),
  );
  const steps = Object.keys(initialStates()).map((n) => ({ engagementId: eng.id, step: Number(n), state: "pending" as const, updatedAt: values.at }));
  yield* q.run(tx.insert(engagementSteps).values(steps));
  return eng;
}

export type StepChange =
  | { kind: "start"; state: StepState }
  | { kind: "complete"; state: StepState; completedById: string; evidence: StepEvidence }
  | { kind: "reopen"; state: StepState; reopenedById: string; reason: string };

/** Writes one step's change: its state and the record that goes with it. */
export function* updateStep(tx: Tx, engagementId: string, step: StepNumber, change: StepChange, at: Date): Steps<void> {
  const where = and(eq(engagementSteps.engagementId, engagementId), eq(engagementSteps.step, step));
  switch (change.kind) {
    case "start":
      yield* q.run(tx.update(engagementSteps).set({ state: change.state, updatedAt: at }).where(where));
      return;
    case "complete":
      yield* q.run(
        tx
          .update(engagementSteps)
          .set({ state: change.state, completedById: change.completedById, completedAt: at, evidence: change.evidence, updatedAt: at })
          .where(where),
      );
      return;
    case "reopen":
      yield* q.run(
        tx
          .update(engagementSteps)
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
          .where(where),
      );
      return;
    default: {
      const never: never = change;
      return never;
    }
  }
}

/** Updates engagement columns (always bumping updatedAt). */
export function* updateEngagement(
  tx: Tx,
  engagementId: string,
  set: Partial<
    Pick<EngagementRow, "status" | "statusChangedAt" | "statusReason" | "statusNote" | "pausedMove" | "currentStep" | "ownerId" | "serviceTargetId" | "windowStartsAt" | "windowEndsAt">
  >,
  at: Date,
): Steps<void> {
  yield* q.run(tx.update(engagements).set({ ...set, updatedAt: at }).where(eq(engagements.id, engagementId)));
}

/**
 * Records whose move it is (without bumping updatedAt: the change that moved it did). `since` is
 * when it last changed hands, so it is written only with a new party, and the new move's clock
 * starts from nothing.
 */
export function* updateWaiting(tx: Tx, engagementId: string, waiting: { waitingOn: EngagementRow["waitingOn"]; waitingSince: Date | null }): Steps<void> {
  yield* q.run(tx.update(engagements).set({ ...waiting, moveCreditMs: 0 }).where(eq(engagements.id, engagementId)));
}

/**
 * Stores when the engagement's current move is due and turns at risk, under its organisation's
 * targets (core/engagements/clocks.ts `moveDeadlines`); a transaction step, run after every change
 * of whose move it is, of the step or of the organisation's targets.
 */
export function* storeMoveDeadlines(tx: Tx, engagementId: string): Steps<void> {
  const row = yield* q.get(
    tx
      .select({
        status: engagements.status,
        currentStep: engagements.currentStep,
        waitingOn: engagements.waitingOn,
        waitingSince: engagements.waitingSince,
        moveCreditMs: engagements.moveCreditMs,
        dueAt: engagements.dueAt,
        atRiskAt: engagements.atRiskAt,
        clockTargets: organizations.clockTargets,
      })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .where(eq(engagements.id, engagementId)),
  );
  if (!row) return;
  const d = moveDeadlines(row, clockTargetsFor(row.clockTargets));
  const same = (a: Date | null, b: Date | null | undefined) => (a?.getTime() ?? null) === (b?.getTime() ?? null);
  if (same(row.dueAt, d?.dueAt) && same(row.atRiskAt, d?.atRiskAt)) return;
  yield* q.run(tx.update(engagements).set({ dueAt: d?.dueAt ?? null, atRiskAt: d?.atRiskAt ?? null }).where(eq(engagements.id, engagementId)));
}

/** Stores the move deadlines of every active engagement of the organisation again (its targets changed). */
export function* storeOrganizationDeadlines(tx: Tx, organizationId: string): Steps<number> {
  const open = yield* q.all(tx.select({ id: engagements.id }).from(engagements).where(and(eq(engagements.organizationId, organizationId), eq(engagements.status, "active"))));
  for (const { id } of open) yield* storeMoveDeadlines(tx, id);
  return open.length;
}

/**
 * Stores the deadlines of active engagements whose move has none yet (those opened before the
 * column existed); the worker runs it at its start. Returns how many it stored.
 */
export function* storeMissingDeadlines(tx: Tx): Steps<number> {
  const missing = yield* q.all(
    tx
      .select({ id: engagements.id })
      .from(engagements)
      .where(and(eq(engagements.status, "active"), isNotNull(engagements.waitingOn), isNull(engagements.dueAt))),
  );
  for (const { id } of missing) yield* storeMoveDeadlines(tx, id);
  return missing.length;
}

/** A move resumed after a hold by the party it was paused on carries the time it had already run. */
export function* creditMoveClock(tx: Tx, engagementId: string, paused: { party: NonNullable<EngagementRow["waitingOn"]>; elapsedMs: number }): Steps<void> {
  yield* q.run(
    tx
      .update(engagements)
      .set({ moveCreditMs: Math.round(paused.elapsedMs) })
      .where(and(eq(engagements.id, engagementId), eq(engagements.waitingOn, paused.party))),
  );
}

// ---------------------------------------------------------------------------------------------
// Reading

/** How many steps are done, per engagement row, in SQL (the list's progress). */
const stepsDoneSql = sql<number>`(select count(*) from ${engagementSteps} where ${engagementSteps.engagementId} = ${engagements.id} and ${engagementSteps.state} = 'done')`.mapWith(Number);

/**
 * One page of engagement rows with their total and counts per current step. `organizationId`
 * has already been narrowed to the viewer's own for customers.
 */
export function* queryEngagementPage(tx: Tx, filter: EngagementListFilter) {
  const base: (SQL | undefined)[] = [
    filter.status?.length ? inArray(engagements.status, filter.status) : undefined,
    filter.ownerId ? eq(engagements.ownerId, filter.ownerId) : undefined,
    filter.platformKey ? eq(engagements.platformKey, filter.platformKey) : undefined,
    filter.organizationId ? eq(engagements.organizationId, filter.organizationId) : undefined,
    filter.waitingOn ? eq(engagements.waitingOn, filter.waitingOn) : undefined,
  ];
  const search = filter.search?.trim();
  if (search) {
    const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const platformKeys = MANAGED_PLATFORMS.filter((p) => p.name.toLowerCase().includes(search.toLowerCase())).map((p) => p.key);
    base.push(
      or(
        // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
        sql`lower(${engagements.reference}) like lower(${pattern}) escape '\\'`,
        // Matching organisations are found once (a small table), not joined per engagement.
        sql`${engagements.organizationId} in (select ${organizations.id} from ${organizations} where lower(${organizations.name}) like lower(${pattern}) escape '\\')`,
        platformKeys.length ? inArray(engagements.platformKey, platformKeys) : undefined,
      ),
    );
  }
  const withStep = and(...base, filter.step ? eq(engagements.currentStep, filter.step) : undefined);

  const total = (yield* q.get(tx.select({ n: count() }).from(engagements).where(withStep)))?.n ?? 0;
  const byStep = yield* q.all(
    tx
      .select({ step: engagements.currentStep, n: count() })
      .from(engagements)
      .where(and(...base))
      .groupBy(engagements.currentStep),
  );
  const rows = yield* q.all(
    tx
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
      .offset((filter.page - 1) * filter.pageSize),
  );
  return { rows, total, byStep };
}

/** The engagement with its organisation, owner, steps (with the people named on them) and target. */
export function* loadEngagementDetail(tx: Tx, engagementId: string) {
  const row = yield* q.get(
    tx
      .select({ e: engagements, orgName: organizations.name, ownerName: users.name, ownerEmail: users.email })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .innerJoin(users, eq(users.id, engagements.ownerId))
      .where(eq(engagements.id, engagementId)),
  );
  if (!row) return undefined;
  const stepRows = yield* q.all(tx.select().from(engagementSteps).where(eq(engagementSteps.engagementId, engagementId)).orderBy(asc(engagementSteps.step)));
  const peopleIds = [...new Set(stepRows.flatMap((s) => [s.completedById, s.reopenedById]).filter((x): x is string => !!x))];
  const named = peopleIds.length ? yield* q.all(tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, peopleIds))) : [];
  const people = new Map(named.map((p) => [p.id, p]));
  const target = row.e.serviceTargetId ? yield* findServiceTarget(tx, row.e.serviceTargetId) : undefined;
  return { ...row, stepRows, states: statesOf(stepRows), people, target: target ?? null };
}
