import type { Role } from "./types";

/** Where each role lands after signing in. */
export function homeFor(role: Role | null): string {
  switch (role) {
    case "admin":
    case "support":
      return "/portfolio";
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
