/**
 * The one module that touches drizzle for migration windows (step 2). Its functions are
 * transaction steps (`yield*` them in a body; readSteps, db/database.ts, outside a transaction).
 */
import { and, asc, count, desc, eq, gt, inArray, ne } from "drizzle-orm";
import { users, windowDeclines, windowProposals } from "@/db/schema";
import { q, type Steps, type Tx } from "@/db/database";
import type { WindowStatus } from "@/core/engagements/flow-states";

export type WindowRow = typeof windowProposals.$inferSelect;

/** Inserts proposed windows. */
export function* insertWindows(tx: Tx, rows: (typeof windowProposals.$inferInsert)[]): Steps<void> {
  if (rows.length) yield* q.run(tx.insert(windowProposals).values(rows));
}

/** One window of the engagement, or undefined. */
export function* findWindow(tx: Tx, engagementId: string, windowId: string): Steps<WindowRow | undefined> {
  return yield* q.get(tx.select().from(windowProposals).where(and(eq(windowProposals.engagementId, engagementId), eq(windowProposals.id, windowId))));
}

/** The engagement's windows in the order they were proposed, with the people named on them. */
export function* listWindows(tx: Tx, engagementId: string) {
  const rows = yield* q.all(
    tx.select().from(windowProposals).where(eq(windowProposals.engagementId, engagementId)).orderBy(asc(windowProposals.proposedAt), asc(windowProposals.startsAt)),
  );
  const ids = [...new Set(rows.flatMap((r) => [r.proposedById, r.decidedById]).filter((x): x is string => !!x))];
  const named = ids.length ? yield* q.all(tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids))) : [];
  const people = new Map(named.map((p) => [p.id, p]));
  return { rows, people };
}

/** How many windows await the customer's answer. */
export function* countProposedWindows(tx: Tx, engagementId: string): Steps<number> {
  const row = yield* q.get(
    tx
      .select({ n: count() })
      .from(windowProposals)
      .where(and(eq(windowProposals.engagementId, engagementId), eq(windowProposals.status, "proposed"))),
  );
  return row?.n ?? 0;
}

/** Sets a window's status with who decided and when. */
export function* decideWindow(tx: Tx, windowId: string, set: { status: WindowStatus; decidedById: string | null; decidedAt: Date }): Steps<void> {
  yield* q.run(tx.update(windowProposals).set(set).where(eq(windowProposals.id, windowId)));
}

/** Marks every window still open (proposed or accepted) superseded, but `except`; returns how many. */
export function* supersedeOpenWindows(tx: Tx, engagementId: string, by: { decidedById: string | null; decidedAt: Date }, except?: string): Steps<number> {
  const open = and(
    eq(windowProposals.engagementId, engagementId),
    inArray(windowProposals.status, ["proposed", "accepted"]),
    except ? ne(windowProposals.id, except) : undefined,
  );
  const n = (yield* q.get(tx.select({ n: count() }).from(windowProposals).where(open)))?.n ?? 0;
  if (n) yield* q.run(tx.update(windowProposals).set({ status: "superseded", ...by }).where(open));
  return n;
}

export type WindowDeclineRow = typeof windowDeclines.$inferSelect;

/** Records the customer's decline of the proposed windows. */
export function* insertDecline(tx: Tx, row: typeof windowDeclines.$inferInsert): Steps<void> {
  yield* q.run(tx.insert(windowDeclines).values(row));
}

/** The proposed windows of the engagement, oldest first. */
export function* proposedWindows(tx: Tx, engagementId: string): Steps<WindowRow[]> {
  return yield* q.all(
    tx
      .select()
      .from(windowProposals)
      .where(and(eq(windowProposals.engagementId, engagementId), eq(windowProposals.status, "proposed")))
      .orderBy(asc(windowProposals.startsAt)),
  );
}

/** The engagement's declines, oldest first, with the people who made them. */
export function* listDeclines(tx: Tx, engagementId: string) {
  return yield* q.all(
    tx
      .select({ d: windowDeclines, by: { id: users.id, name: users.name } })
      .from(windowDeclines)
      .innerJoin(users, eq(users.id, windowDeclines.declinedById))
      .where(eq(windowDeclines.engagementId, engagementId))
      .orderBy(asc(windowDeclines.declinedAt)),
  );
}

/** The customer's latest decline when support has proposed nothing since (the one still to answer), or undefined. */
export function* unansweredDecline(tx: Tx, engagementId: string): Steps<WindowDeclineRow | undefined> {
  const latest = yield* q.get(tx.select().from(windowDeclines).where(eq(windowDeclines.engagementId, engagementId)).orderBy(desc(windowDeclines.declinedAt)));
  if (!latest) return undefined;
  const since = yield* q.get(
    tx
      .select({ n: count() })
      .from(windowProposals)
      .where(and(eq(windowProposals.engagementId, engagementId), gt(windowProposals.proposedAt, latest.declinedAt))),
  );
  return (since?.n ?? 0) > 0 ? undefined : latest;
}
