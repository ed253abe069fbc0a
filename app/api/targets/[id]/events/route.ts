import { getDatabase } from "@/db/database";
import { appConfig } from "@/server/config";
import { receiveDelivery } from "@/server/targets/events/receiver";

const MAX_BODY_BYTES = 1_000_000;

/**
 * The service's webhook deliveries for one service target: verified with the signing secrets of
 * Ferry's consumers on it, written to the inbox once per message id, answered 204 at once (the
 * worker acts on them); 401 and nothing stored when the signature or its timestamp is refused.
 * No session: the signature is the credential. docs/service-targets.md says how to expose it.
 */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // An event envelope is a few kilobytes: anything over 1 MB is not one (read no further).
  if (Number(req.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) return new Response("Too large.\n", { status: 413 });
  const body = await req.text();
  if (body.length > MAX_BODY_BYTES) return new Response("Too large.\n", { status: 413 });
  const answer = await receiveDelivery(getDatabase(), appConfig().keyRing, { targetId: id, body, headers: req.headers });
  if (answer.status === 204) return new Response(null, { status: 204 });
  return new Response(`${answer.reason ?? "Refused."}\n`, { status: answer.status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}
