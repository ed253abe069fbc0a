/**
 * Who may use a service target, and what an admin may do to one, as pure rules: the operations
 * check them before their transaction and again inside it, the worker before it sends a key, and
 * the screens show the same words.
 */
import { checkBaseUrl } from "./base-url";
import { plural } from "@/core/words";

/** What the rules read of a target. */
export type TargetFacts = {
  name: string;
  baseUrl: string;
  organizationId: string | null;
  builtIn: boolean;
  archivedAt: Date | null;
};

/**
 * Why an engagement of `organizationId` may not use `target`, or null when it may: a target is one
 * customer's own account, so only its organisation's engagements use it; the built-in sandbox
 * serves every organisation. An archived target, and one whose URL would send the key unencrypted
 * over a network (added before https was required), serve no one.
 */
export function targetUseRefusal(target: TargetFacts, organizationId: string): string | null {
  if (target.archivedAt) return `${target.name} is archived: choose another service target.`;
  if (target.builtIn) return null;
  if (target.organizationId === null) {
    return `${target.name} is not assigned to an organisation yet: an admin assigns it under Admin → Service targets, or choose another service target.`;
  }
  if (target.organizationId !== organizationId) return `${target.name} is another organisation's account on the service: choose one of this organisation's targets or the built-in sandbox.`;
  const url = checkBaseUrl(target.baseUrl);
  if (!url.ok) return `${target.name} cannot be used: ${url.problem}`;
  return null;
}

/** Why the target cannot be archived now, or null. */
export function archiveRefusal(target: TargetFacts, openEngagements: readonly string[]): string | null {
  if (target.archivedAt) return `${target.name} is already archived.`;
  if (target.builtIn) return "The built-in sandbox serves every organisation and cannot be archived.";
  if (openEngagements.length) {
    const list = openEngagements.slice(0, 5).join(", ") + (openEngagements.length > 5 ? ` and ${openEngagements.length - 5} more` : "");
    const n = openEngagements.length;
    return `${target.name} is in use by ${plural(n, { one: "an engagement that is", other: `${n} engagements that are` })} not finished (${list}): point ${plural(n, { one: "it", other: "them" })} at another target first.`;
  }
  return null;
}

/** Why the target cannot be assigned to an organisation, or null. */
export function assignOrganizationRefusal(target: TargetFacts, organizationName: (id: string) => string): string | null {
  if (target.builtIn) return "The built-in sandbox serves every organisation and belongs to none.";
  if (target.archivedAt) return `${target.name} is archived.`;
  if (target.organizationId !== null) return `${target.name} already belongs to ${organizationName(target.organizationId)}.`;
  return null;
}

/** Why the target's key or name cannot change, or null (an archived target is kept as it was, for the record). */
export function editRefusal(target: TargetFacts): string | null {
  return target.archivedAt ? `${target.name} is archived: it is kept as it was, for the record.` : null;
}
