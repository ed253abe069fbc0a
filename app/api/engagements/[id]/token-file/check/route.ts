import { createRequestContext } from "@/server/api/context";
import { appConfig } from "@/server/config";
import { handleTokenFileRequest } from "@/server/api/intake-http";

/** Checks a token file (multipart, up to 20 MB) and answers its problems and masked preview; nothing is stored. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return handleTokenFileRequest(req, { engagementId: id, mode: "check" }, { appOrigin: new URL(appConfig().appUrl).origin, createContext: () => createRequestContext(req.headers) });
}
