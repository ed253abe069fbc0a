import { createRequestContext } from "@/server/api/context";
import { appConfig } from "@/server/config";
import { handleTemplateRequest } from "@/server/api/intake-http";

/** A platform's token-file template: `?format=csv` (default) or `?format=xlsx`. */
export async function GET(req: Request, { params }: { params: Promise<{ platform: string }> }) {
  const { platform } = await params;
  return handleTemplateRequest(req, { platformKey: platform }, { appOrigin: new URL(appConfig().appUrl).origin, createContext: () => createRequestContext(req.headers) });
}
