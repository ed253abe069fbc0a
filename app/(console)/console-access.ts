import "server-only";
import { forbidden } from "next/navigation";
import { redirectToSignIn } from "@/app/_lib/sign-in-redirect";
import { getViewer, type Viewer } from "@/app/_trpc/server";

/**
 * The console's viewer: staff, or a redirect to sign in, or HTTP 403 (app/(console)/forbidden.tsx).
 * Every console page (and its metadata) calls it before it reads anything: Next renders a layout and
 * its page at once, so the layout's own check sets the 403 but does not stop the page's data from
 * being read and sent in the refused answer's body.
 */
export async function requireStaff(): Promise<Viewer> {
  const viewer = await getViewer();
  if (!viewer) return redirectToSignIn();
  if (viewer.role === "customer") forbidden();
  return viewer;
}

/** The admin pages' viewer: an admin, or a redirect to sign in, or HTTP 403 (see requireStaff). */
export async function requireAdmin(): Promise<Viewer> {
  const viewer = await requireStaff();
  if (viewer.role !== "admin") forbidden();
  return viewer;
}
