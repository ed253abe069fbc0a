import { createRequestContext } from "@/server/api/context";
import { appConfig } from "@/server/config";
import { handleInviteRequest } from "@/server/api/intake-http";

/** A proposed or accepted migration window as a calendar invite (.ics). */
export async function GET(req: Request, { params }: { params: Promise<{ id: string; windowId: string }> }) {
  const { id, windowId } = await params;
  const config = appConfig();
  return handleInviteRequest(
    req,
    { engagementId: id, windowId },
    { appOrigin: new URL(config.appUrl).origin, appUrl: config.appUrl, createContext: () => createRequestContext(req.headers) },
  );
}
