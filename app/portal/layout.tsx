import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { AppShell } from "@/app/_components/app-shell";
import { Forbidden } from "@/app/_components/forbidden";
import { getCaller, getViewer } from "@/app/_trpc/server";

const PORTAL_NAV = [{ href: "/portal", label: "Engagements" }] as const;

/** The customer portal: customer users only. */
export default async function PortalLayout({ children }: { children: ReactNode }) {
  const viewer = await getViewer();
  if (!viewer) redirect("/login");
  if (viewer.role !== "customer") {
    return (
      <AppShell user={viewer} nav={[]} area="portal">
        <Forbidden message="The portal is for customer users. Staff work in the console." homeHref="/engagements" />
      </AppShell>
    );
  }
  const me = await (await getCaller()).me.get();
  return (
    <AppShell user={{ ...viewer, organizationName: me.organizationName }} nav={PORTAL_NAV} area="portal">
      {children}
    </AppShell>
  );
}
