import { createRequestContext } from "@/server/api/context";
import { reconnectLinksCsvResponse } from "@/server/api/downloads";

/** The reconnect links of the companies waiting for their end customers, as CSV (staff, and the engagement's customer). */
export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return reconnectLinksCsvResponse(await createRequestContext(req.headers), id);
}
