import type { Role } from "./roles";

/** The signed-in person a request acts for, loaded fresh from the database on every request. */
export type Actor = {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Set for customers: the only organisation whose engagements they may see. */
  organizationId: string | null;
};
