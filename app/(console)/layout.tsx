import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { AppShell } from "@/app/_components/app-shell";
import { Forbidden } from "@/app/_components/forbidden";
import { getViewer } from "@/app/_trpc/server";

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
  const viewer = await getViewer();
  if (!viewer) redirect("/login");
  if (viewer.role === "customer") {
    return (
      <AppShell user={viewer} nav={[]} area="console">
        <Forbidden message="The staff console is for Ferry support staff. Your engagements are in the customer portal." homeHref="/portal" />
      </AppShell>
    );
  }
  const nav = viewer.role === "admin" ? [...STAFF_NAV, ...ADMIN_NAV] : STAFF_NAV;
  return (
    <AppShell user={viewer} nav={nav} area="console">
      {children}
    </AppShell>
  );
}
