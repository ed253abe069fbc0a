import { createRequestContext } from "@/server/api/context";
import { appConfig } from "@/server/config";
import { handleSupplementaryFileRequest } from "@/server/api/intake-http";

/** Sends a supplementary file (multipart, up to 20 MB): fresh tokens for the companies that failed on theirs, stored whole or not at all. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return handleSupplementaryFileRequest(req, { engagementId: id, mode: "submit" }, { appOrigin: new URL(appConfig().appUrl).origin, createContext: () => createRequestContext(req.headers) });
}
