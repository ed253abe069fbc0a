import { getDatabase } from "@/db/database";
import { appConfig } from "@/server/config";
import { answerDeliveryRequest } from "@/server/targets/events/receiver";

/**
 * The service's webhook deliveries for one service target: verified with the signing secrets of
 * Ferry's consumers on it, written to the inbox once per message id, answered 204 at once (the
 * worker acts on them); 401 and nothing stored when the signature or its timestamp is refused,
 * 413 for a body over 1 MB (read no further). No session: the signature is the credential.
 * docs/service-targets.md says how to expose it.
 */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerDeliveryRequest(getDatabase(), appConfig().keyRing, id, req);
}
