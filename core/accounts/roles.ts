/** The three kinds of people who use Ferry. Owned by the domain; db/schema.ts imports it. */
export const ROLES = ["admin", "support", "customer"] as const;
export type Role = (typeof ROLES)[number];

/** True for staff roles (support and admins). */
export function isStaff(role: Role): boolean {
  return role === "admin" || role === "support";
}
