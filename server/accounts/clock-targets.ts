/**
 * An organisation's move targets (core/engagements/clocks.ts): read by staff, changed by admins
 * (audited). The row keeps only what differs from the defaults.
 */
import { eq } from "drizzle-orm";
import { q, type Database } from "@/db/database";
import { organizations } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { storeOrganizationDeadlines } from "@/server/engagements/engagement-repository";
import { clockTargetsFor, DEFAULT_CLOCK_TARGETS, overridesOf, type ClockTargets } from "@/core/engagements/clocks";

export type OrganizationClockTargets = { organizationId: string; name: string; targets: ClockTargets; defaults: ClockTargets; changed: boolean };

/** The organisation's targets as they apply, beside the defaults. */
export async function getClockTargets(database: Database, organizationId: string): Promise<OrganizationClockTargets> {
  const [org] = await database.db
    .select({ id: organizations.id, name: organizations.name, clockTargets: organizations.clockTargets })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  if (!org) throw new AppError("NOT_FOUND", "No such organisation.");
  return { organizationId: org.id, name: org.name, targets: clockTargetsFor(org.clockTargets), defaults: DEFAULT_CLOCK_TARGETS, changed: org.clockTargets !== null };
}

/** Sets the organisation's targets (what equals a default is kept as the default). */
export async function setClockTargets(database: Database, actor: Actor, input: { organizationId: string; targets: ClockTargets }): Promise<OrganizationClockTargets> {
  const overrides = overridesOf(input.targets);
  await database.transaction(
    function* (tx) {
      const org = yield* q.get(
        tx.select({ id: organizations.id, name: organizations.name, clockTargets: organizations.clockTargets }).from(organizations).where(eq(organizations.id, input.organizationId)),
      );
      if (!org) throw new AppError("NOT_FOUND", "No such organisation.");
      yield* q.run(tx.update(organizations).set({ clockTargets: overrides }).where(eq(organizations.id, org.id)));
      // The open moves' deadlines follow the new targets.
      yield* storeOrganizationDeadlines(tx, org.id);
      yield* writeAudit(tx, {
        actor,
        action: "organization.clock_targets_changed",
        targetId: org.id,
        organizationId: org.id,
        before: { targets: org.clockTargets },
        after: { name: org.name, targets: overrides },
      });
    },
    { isolation: "read committed" },
  );
  return getClockTargets(database, input.organizationId);
}
