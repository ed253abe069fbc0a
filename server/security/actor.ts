import type { Role } from "@/server/accounts/roles";

/** The signed-in person a request acts for, loaded fresh from the database on every request. */
export type Actor = {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Set for customers: the only organisation whose engagements they may see. */
  organizationId: string | null;
};

/** How an actor is named in the audit log. */
export function actorLabel(actor: Actor | null): string {
  if (!actor) return "System";
  return `${actor.name} (${actor.role})`;
}
