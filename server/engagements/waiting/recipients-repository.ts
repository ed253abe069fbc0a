/** Who the engagement's mail goes to: its owner on support's side, the organisation's people on the customer's. */
import { and, eq } from "drizzle-orm";
import { engagements, organizations, users } from "@/db/schema";
import { q, type Steps, type Tx } from "@/db/database";
import { findCurrentSubmission } from "../intake/intake-repository";

export type EngagementRecipients = {
  reference: string;
  platformKey: string;
  organizationName: string;
  owner: { name: string; email: string };
  /** The organisation's active customer users, and the contacts named for the migration window. */
  customers: { name: string; email: string }[];
};

/** The engagement's mail recipients, or undefined for an unknown engagement. */
export function* findRecipients(tx: Tx, engagementId: string): Steps<EngagementRecipients | undefined> {
  const row = yield* q.get(
    tx
      .select({ reference: engagements.reference, platformKey: engagements.platformKey, organizationId: engagements.organizationId, orgName: organizations.name, ownerName: users.name, ownerEmail: users.email })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .innerJoin(users, eq(users.id, engagements.ownerId))
      .where(eq(engagements.id, engagementId)),
  );
  if (!row) return undefined;
  const people = yield* q.all(
    tx
      .select({ name: users.name, email: users.email })
      .from(users)
      .where(and(eq(users.organizationId, row.organizationId), eq(users.role, "customer"), eq(users.active, true))),
  );
  const contacts = (yield* findCurrentSubmission(tx, engagementId))?.contacts ?? [];
  const seen = new Set<string>();
  const customers = [...people, ...contacts].filter((p) => {
    const key = p.email.trim().toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    reference: row.reference,
    platformKey: row.platformKey,
    organizationName: row.orgName,
    owner: { name: row.ownerName, email: row.ownerEmail },
    customers,
  };
}
