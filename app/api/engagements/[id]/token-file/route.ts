import { createRequestContext } from "@/server/api/context";
import { appConfig } from "@/server/config";
import { handleTokenFileRequest } from "@/server/api/intake-http";

/** Submits the details and the token file (multipart, up to 20 MB): stored whole or not at all. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return handleTokenFileRequest(req, { engagementId: id, mode: "submit" }, { appOrigin: new URL(appConfig().appUrl).origin, createContext: () => createRequestContext(req.headers) });
}
