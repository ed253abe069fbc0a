import type { ReactNode } from "react";
import { AppShell } from "@/app/_components/app-shell";
import { requireStaff } from "./console-access";

const STAFF_NAV = [
  { href: "/engagements", label: "Engagements" },
  { href: "/engagements/new", label: "New engagement" },
] as const;

const ADMIN_NAV = [
  { href: "/admin/users", label: "Users" },
  { href: "/admin/organizations", label: "Organisations" },
  { href: "/admin/invitations", label: "Invitations" },
  { href: "/admin/targets", label: "Service targets" },
  { href: "/admin/outbox", label: "Outbox" },
] as const;

/** The staff console: support and admins only. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  // HTTP 403 with app/forbidden.tsx (which points customers to their portal); each page checks too.
  const viewer = await requireStaff();
  const nav = viewer.role === "admin" ? [...STAFF_NAV, ...ADMIN_NAV] : STAFF_NAV;
  return (
    <AppShell user={viewer} nav={nav} area="console">
      {children}
    </AppShell>
  );
}
