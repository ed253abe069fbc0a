import { forbidden } from "next/navigation";
import type { ReactNode } from "react";
import { getViewer } from "@/app/_trpc/server";

/** People, organisations, invitations and the outbox: admins only (others get HTTP 403, app/(console)/forbidden.tsx). */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const viewer = await getViewer();
  // The console layout has already sent anyone signed out to /login.
  if (viewer?.role !== "admin") forbidden();
  return children;
}
