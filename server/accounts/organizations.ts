/** Customer organisations: created by admins, listed for staff. */
import { asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { engagements, organizations, users } from "@/db/schema";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import type { OrganizationSummary } from "@/core/accounts/schemas";


/** Creates a customer organisation; names are unique regardless of case. */
export function createOrganization(db: Db, actor: Actor, input: { name: string }): { id: string; name: string } {
  const name = input.name.trim().replace(/\s+/g, " ");
  if (!name) throw fieldError("name", "Enter the organisation's name.");
  return db.transaction((tx) => {
    const taken = tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(sql`lower(${organizations.name}) = lower(${name})`)
      .get();
    if (taken) throw fieldError("name", `An organisation named "${name}" already exists.`);
    const org = tx.insert(organizations).values({ name }).returning().get();
    recordAudit(tx, {
      actor,
      action: "organization.created",
     
      targetId: org.id,
      organizationId: org.id,
      after: { name },
    });
    return { id: org.id, name: org.name };
  });
}

/** One organisation's id and name, or undefined. */
export function findOrganization(tx: DbOrTx, organizationId: string): { id: string; name: string } | undefined {
  return tx.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId)).get();
}

/** Every organisation with its user and engagement counts, by name. */
export function listOrganizations(db: Db): OrganizationSummary[] {
  const userCounts = db
    .select({ orgId: users.organizationId, n: count() })
    .from(users)
    .groupBy(users.organizationId)
    .all();
  const engagementCounts = db
    .select({ orgId: engagements.organizationId, n: count() })
    .from(engagements)
    .groupBy(engagements.organizationId)
    .all();
  const u = new Map(userCounts.map((r) => [r.orgId, r.n]));
  const e = new Map(engagementCounts.map((r) => [r.orgId, r.n]));
  return db
    .select()
    .from(organizations)
    .orderBy(asc(organizations.name))
    .all()
    .map((o) => ({ id: o.id, name: o.name, createdAt: o.createdAt, userCount: u.get(o.id) ?? 0, engagementCount: e.get(o.id) ?? 0 }));
}

/** The organisation, or NOT_FOUND. */
export function getOrganization(db: Db, id: string): { id: string; name: string } {
  const org = db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.id, id)).get();
  if (!org) throw new AppError("NOT_FOUND", "No such organisation.");
  return org;
}
