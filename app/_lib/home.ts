import type { Role } from "./types";

/** Where each role lands after signing in. */
export function homeFor(role: Role | null): string {
  switch (role) {
    case "admin":
    case "support":
      return "/engagements";
    case "customer":
      return "/portal";
    case null:
      return "/login";
    default: {
      const never: never = role;
      return never;
    }
  }
}

/**
 * A post-sign-in destination from the query string, only if it is a path on this site
 * (an open redirect would let a crafted link send people elsewhere).
 */
export function safeNextPath(next: string | null | undefined): string | null {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return null;
  if (next.startsWith("/login") || next.startsWith("/api/")) return null;
  return next;
}
