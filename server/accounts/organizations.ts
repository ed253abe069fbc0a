/** Customer organisations: created by admins, listed for staff. */
import { asc, count, eq, sql } from "drizzle-orm";
import { q, type Database, type Steps, type Tx } from "@/db/database";
import { engagements, organizations, users } from "@/db/schema";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import type { OrganizationSummary } from "@/core/accounts/schemas";

/** Creates a customer organisation; names are unique regardless of case. */
export async function createOrganization(database: Database, actor: Actor, input: { name: string }): Promise<{ id: string; name: string }> {
  const name = input.name.trim().replace(/\s+/g, " ");
  if (!name) throw fieldError("name", "Enter the organisation's name.");
  // Serializable: the check is that no row has this name yet, and a missing row cannot be locked.
  // Two admins creating the same name at once: one commits, the other runs again and is told.
  return database.transaction(
    function* (tx) {
      const taken = yield* q.get(
        tx
          .select({ id: organizations.id })
          .from(organizations)
          .where(sql`lower(${organizations.name}) = lower(${name})`),
      );
      if (taken) throw fieldError("name", `An organisation named "${name}" already exists.`);
      const org = yield* q.get(tx.insert(organizations).values({ name }).returning());
      yield* writeAudit(tx, {
        actor,
        action: "organization.created",
        targetId: org.id,
        organizationId: org.id,
        after: { name },
      });
      return { id: org.id, name: org.name };
    },
    { isolation: "serializable" },
  );
}

/**
 * One organisation's id and name, or undefined (a transaction step).
 */
export function* findOrganization(tx: Tx, organizationId: string): Steps<{ id: string; name: string } | undefined> {
  return yield* q.get(tx.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId)));
}

/** Every organisation with its user and engagement counts, by name. */
export async function listOrganizations(database: Database): Promise<OrganizationSummary[]> {
  const { db } = database;
  const [userCounts, engagementCounts, orgs] = await Promise.all([
    db.select({ orgId: users.organizationId, n: count() }).from(users).groupBy(users.organizationId),
    db.select({ orgId: engagements.organizationId, n: count() }).from(engagements).groupBy(engagements.organizationId),
    db.select().from(organizations).orderBy(asc(organizations.name)),
  ]);
  const u = new Map(userCounts.map((r) => [r.orgId, r.n]));
  const e = new Map(engagementCounts.map((r) => [r.orgId, r.n]));
  return orgs.map((o) => ({ id: o.id, name: o.name, createdAt: o.createdAt, userCount: u.get(o.id) ?? 0, engagementCount: e.get(o.id) ?? 0 }));
}

/** The organisation, or NOT_FOUND. */
export async function getOrganization(database: Database, id: string): Promise<{ id: string; name: string }> {
  const [org] = await database.db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.id, id));
  if (!org) throw new AppError("NOT_FOUND", "No such organisation.");
  return org;
}
