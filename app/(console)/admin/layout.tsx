import type { ReactNode } from "react";
import { requireAdmin } from "../console-access";

/** People, organisations, invitations and the outbox: admins only (others get HTTP 403, app/(console)/forbidden.tsx). */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  // Each admin page checks too, before it reads anything.
  await requireAdmin();
  return children;
}
