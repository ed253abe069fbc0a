import type { ReactNode } from "react";
import { Forbidden } from "@/app/_components/forbidden";
import { getViewer } from "@/app/_trpc/server";

/** People, organisations, invitations and the outbox: admins only. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const viewer = await getViewer();
  // The console layout has already sent anyone signed out to /login.
  if (viewer?.role !== "admin") {
    return <Forbidden message="Only Ferry admins manage people, organisations and invitations." homeHref="/engagements" />;
  }
  return children;
}
