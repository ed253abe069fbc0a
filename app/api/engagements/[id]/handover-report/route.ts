import { createRequestContext } from "@/server/api/context";
import { handoverCsvResponse } from "@/server/api/downloads";

/** The handover report as a CSV download (staff, and the engagement's customer once it is produced). */
export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return handoverCsvResponse(await createRequestContext(req.headers), id);
}
