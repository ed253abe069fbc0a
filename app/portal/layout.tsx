import { forbidden } from "next/navigation";
import type { ReactNode } from "react";
import { AppShell } from "@/app/_components/app-shell";
import { redirectToSignIn } from "@/app/_lib/sign-in-redirect";
import { getCaller, getViewer } from "@/app/_trpc/server";

const PORTAL_NAV = [{ href: "/portal", label: "Engagements" }] as const;

/** The customer portal: customer users only. */
export default async function PortalLayout({ children }: { children: ReactNode }) {
  const viewer = await getViewer();
  if (!viewer) return redirectToSignIn();
  // HTTP 403 with app/forbidden.tsx (which points staff to the console).
  if (viewer.role !== "customer") forbidden();
  const me = await (await getCaller()).me.get();
  return (
    <AppShell user={{ ...viewer, organizationName: me.organizationName }} nav={PORTAL_NAV} area="portal">
      {children}
    </AppShell>
  );
}
