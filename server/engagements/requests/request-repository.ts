/**
 * The one module that touches drizzle for customers' requests for engagements. Its functions are
 * transaction steps (`yield*` them in a body; readSteps outside a transaction).
 */
import { and, asc, desc, eq, ne, type SQL } from "drizzle-orm";
import { engagementRequests, engagements, organizations, users } from "@/db/schema";
import { forUpdate, q, type Steps, type Tx } from "@/db/database";

export type RequestRow = typeof engagementRequests.$inferSelect;

/** Stores a new request. */
export function* insertRequest(tx: Tx, row: typeof engagementRequests.$inferInsert): Steps<void> {
  yield* q.run(tx.insert(engagementRequests).values(row));
}

/** One request, locked for a change inside a transaction (FOR UPDATE on PostgreSQL); undefined when unknown. */
export function* findRequestForChange(tx: Tx, requestId: string): Steps<RequestRow | undefined> {
  return yield* q.get(forUpdate(tx.select().from(engagementRequests).where(eq(engagementRequests.id, requestId))));
}

/** The organisation's open request on the platform, if there is one. */
export function* findOpenRequest(tx: Tx, organizationId: string, platformKey: string): Steps<RequestRow | undefined> {
  return yield* q.get(
    tx
      .select()
      .from(engagementRequests)
      .where(and(eq(engagementRequests.organizationId, organizationId), eq(engagementRequests.platformKey, platformKey), eq(engagementRequests.status, "open"))),
  );
}

/** Records support's answer. */
export function* decideRequest(
  tx: Tx,
  requestId: string,
  set: { status: "accepted" | "declined"; decidedById: string; decidedAt: Date; declineReason?: string | null; engagementId?: string | null },
): Steps<void> {
  yield* q.run(tx.update(engagementRequests).set(set).where(eq(engagementRequests.id, requestId)));
}

const requester = { name: users.name, email: users.email };

/** Requests with their organisation, requester and engagement, in the given order, at most `limit`. */
export function* listRequests(tx: Tx, params: { where: SQL | undefined; order: "oldest" | "newest"; limit: number }) {
  const decider = tx
    .select({ id: users.id, name: users.name })
    .from(users)
    .as("decider");
  return yield* q.all(
    tx
      .select({ r: engagementRequests, orgName: organizations.name, by: requester, decidedBy: decider.name, reference: engagements.reference })
      .from(engagementRequests)
      .innerJoin(organizations, eq(organizations.id, engagementRequests.organizationId))
      .innerJoin(users, eq(users.id, engagementRequests.requestedById))
      .leftJoin(decider, eq(decider.id, engagementRequests.decidedById))
      .leftJoin(engagements, eq(engagements.id, engagementRequests.engagementId))
      .where(params.where)
      .orderBy(params.order === "oldest" ? asc(engagementRequests.requestedAt) : desc(engagementRequests.requestedAt))
      .limit(params.limit),
  );
}

export const requestFilters = {
  open: eq(engagementRequests.status, "open"),
  answered: ne(engagementRequests.status, "open"),
  ofOrganization: (organizationId: string) => eq(engagementRequests.organizationId, organizationId),
};

/** The emails of active support staff (who hear of a new request). */
export function* supportAddresses(tx: Tx): Steps<string[]> {
  const rows = yield* q.all(tx.select({ email: users.email }).from(users).where(and(eq(users.role, "support"), eq(users.active, true))));
  return rows.map((r) => r.email);
}

/** The emails of the organisation's active customer users (who hear the answer). */
export function* customerAddresses(tx: Tx, organizationId: string): Steps<string[]> {
  const rows = yield* q.all(
    tx
      .select({ email: users.email })
      .from(users)
      .where(and(eq(users.organizationId, organizationId), eq(users.role, "customer"), eq(users.active, true))),
  );
  return rows.map((r) => r.email);
}
