/** The rows of step 3's round trips (`callback_checks`). */
import { and, desc, eq, inArray } from "drizzle-orm";
import { q, type Steps, type Tx } from "@/db/database";
import { callbackChecks, users } from "@/db/schema";
import type { CallbackCheckStatus } from "@/core/engagements/flow-states";

export type CallbackCheckRow = typeof callbackChecks.$inferSelect;

/** The engagement's latest round trip (with who started it), or undefined. */
export function* latestCallbackCheck(tx: Tx, engagementId: string): Steps<(CallbackCheckRow & { startedBy: string }) | undefined> {
  const row = yield* q.get(
    tx
      .select({ check: callbackChecks, startedBy: users.name })
      .from(callbackChecks)
      .innerJoin(users, eq(users.id, callbackChecks.startedById))
      .where(eq(callbackChecks.engagementId, engagementId))
      .orderBy(desc(callbackChecks.startedAt), desc(callbackChecks.id))
      .limit(1),
  );
  return row ? { ...row.check, startedBy: row.startedBy } : undefined;
}

export function* insertCallbackCheck(tx: Tx, row: typeof callbackChecks.$inferInsert): Steps<void> {
  yield* q.run(tx.insert(callbackChecks).values(row));
}

type CheckPatch = Partial<
  Pick<CallbackCheckRow, "status" | "companyId" | "connectionId" | "refusal" | "errorStatus" | "errorText" | "correlationId" | "checkedAt" | "finishedAt" | "companyDeletedAt">
>;

/**
 * Changes a check, only while its status is one of `from` (a check another request has since
 * finished is left as it is); answers whether it changed.
 */
export function* updateCallbackCheck(tx: Tx, id: string, from: readonly CallbackCheckStatus[], patch: CheckPatch): Steps<boolean> {
  const changed = yield* q.all(
    tx
      .update(callbackChecks)
      .set(patch)
      .where(and(eq(callbackChecks.id, id), inArray(callbackChecks.status, [...from])))
      .returning({ id: callbackChecks.id }),
  );
  return changed.length > 0;
}
