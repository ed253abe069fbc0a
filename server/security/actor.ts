import type { Actor } from "@/core/accounts/actor";

/** How an actor is named in the audit log. */
export function actorLabel(actor: Actor | null): string {
  if (!actor) return "System";
  return `${actor.name} (${actor.role})`;
}
