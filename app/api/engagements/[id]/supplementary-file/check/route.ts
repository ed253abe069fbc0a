import { createRequestContext } from "@/server/api/context";
import { appConfig } from "@/server/config";
import { handleSupplementaryFileRequest } from "@/server/api/intake-http";

/** Checks a supplementary file (multipart, up to 20 MB) and answers its problems by line, the companies it names and a masked preview; nothing is stored. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return handleSupplementaryFileRequest(req, { engagementId: id, mode: "check" }, { appOrigin: new URL(appConfig().appUrl).origin, createContext: () => createRequestContext(req.headers) });
}
