/**
 * The one module that touches drizzle for migration windows (step 2). Synchronous: operations
 * call it inside their transactions.
 */
import { and, asc, count, eq, inArray, ne } from "drizzle-orm";
import { users, windowProposals } from "@/db/schema";
import type { DbOrTx } from "@/server/security/audit";
import type { WindowStatus } from "@/core/engagements/flow-states";

export type WindowRow = typeof windowProposals.$inferSelect;

/** Inserts proposed windows. */
export function insertWindows(tx: DbOrTx, rows: (typeof windowProposals.$inferInsert)[]): void {
  if (rows.length) tx.insert(windowProposals).values(rows).run();
}

/** One window of the engagement, or undefined. */
export function findWindow(tx: DbOrTx, engagementId: string, windowId: string): WindowRow | undefined {
  return tx
    .select()
    .from(windowProposals)
    .where(and(eq(windowProposals.engagementId, engagementId), eq(windowProposals.id, windowId)))
    .get();
}

/** The engagement's windows in the order they were proposed, with the people named on them. */
export function listWindows(tx: DbOrTx, engagementId: string) {
  const rows = tx
    .select()
    .from(windowProposals)
    .where(eq(windowProposals.engagementId, engagementId))
    .orderBy(asc(windowProposals.proposedAt), asc(windowProposals.startsAt))
    .all();
  const ids = [...new Set(rows.flatMap((r) => [r.proposedById, r.decidedById]).filter((x): x is string => !!x))];
  const people = new Map(
    ids.length ? tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids)).all().map((p) => [p.id, p]) : [],
  );
  return { rows, people };
}

/** How many windows await the customer's answer. */
export function countProposedWindows(tx: DbOrTx, engagementId: string): number {
  return (
    tx
      .select({ n: count() })
      .from(windowProposals)
      .where(and(eq(windowProposals.engagementId, engagementId), eq(windowProposals.status, "proposed")))
      .get()?.n ?? 0
  );
}

/** Sets a window's status with who decided and when. */
export function decideWindow(tx: DbOrTx, windowId: string, set: { status: WindowStatus; decidedById: string | null; decidedAt: Date }): void {
  tx.update(windowProposals).set(set).where(eq(windowProposals.id, windowId)).run();
}

/** Marks every window still open (proposed or accepted) superseded, but `except`; returns how many. */
export function supersedeOpenWindows(tx: DbOrTx, engagementId: string, by: { decidedById: string | null; decidedAt: Date }, except?: string): number {
  const open = and(
    eq(windowProposals.engagementId, engagementId),
    inArray(windowProposals.status, ["proposed", "accepted"]),
    except ? ne(windowProposals.id, except) : undefined,
  );
  const n = tx.select({ n: count() }).from(windowProposals).where(open).get()?.n ?? 0;
  if (n) tx.update(windowProposals).set({ status: "superseded", ...by }).where(open).run();
  return n;
}
