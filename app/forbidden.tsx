import { headers } from "next/headers";
import { AppShell } from "./_components/app-shell";
import { Forbidden } from "./_components/forbidden";
import { getViewer } from "./_trpc/server";
import { PATH_HEADER } from "@/server/http/security-headers";

/**
 * HTTP 403 for a signed-in person in the wrong area: a customer in the staff console, staff in the
 * customer portal (their layouts call forbidden()). Rendered in the root layout, with its own chrome.
 */
export default async function ForbiddenPage() {
  const viewer = await getViewer();
  const inPortal = ((await headers()).get(PATH_HEADER) ?? "").startsWith("/portal");
  const customer = viewer?.role === "customer";
  return (
    <AppShell user={viewer} nav={[]} area={inPortal ? "portal" : "console"}>
      {customer ? (
        <Forbidden message="The staff console is for Ferry support staff. Your engagements are in the customer portal." homeHref="/portal" />
      ) : (
        <Forbidden message="The portal is for customer users. Staff work in the console." homeHref="/engagements" />
      )}
    </AppShell>
  );
}
