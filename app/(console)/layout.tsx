import type { ReactNode } from "react";
import { AppShell } from "@/app/_components/app-shell";
import type { NavItem } from "@/app/_components/nav-links";
import { SupportQueueCount } from "@/app/_components/support-queue-count";
import { SUPPORT_QUEUE } from "@/app/_lib/support-queue";
import type { RouterOutputs } from "@/app/_lib/types";
import { getCaller } from "@/app/_trpc/server";
import { requireStaff } from "./console-access";

/**
 * The console's own sections: the portfolio (support's home, which links the workload and the window calendar), every engagement, and the count of
 * engagements in support's queue (read with the page, kept current in the browser). A new
 * engagement is opened from the engagement list's header.
 */
function staffNav(queued: RouterOutputs["engagements"]["list"] | null): NavItem[] {
  return [
    { href: "/portfolio", label: "Portfolio" },
    { href: "/engagements", label: "Engagements" },
    { href: "/engagements?waiting=support", label: "Support's move", after: <SupportQueueCount initial={queued} /> },
  ];
}

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
  // The count is a convenience: if it cannot be read now, the browser asks again.
  const queued = await (await getCaller()).engagements.list(SUPPORT_QUEUE).catch(() => null);
  const nav = viewer.role === "admin" ? [...staffNav(queued), ...ADMIN_NAV] : staffNav(queued);
  return (
    <AppShell user={viewer} nav={nav} area="console">
      {children}
    </AppShell>
  );
}
