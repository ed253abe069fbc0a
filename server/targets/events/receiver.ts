/**
 * Ferry's webhook endpoint for one service target (app/api/targets/[id]/events): a delivery is
 * verified with the `standardwebhooks` package (the scheme the service's Svix deliveries follow:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature`, HMAC-SHA256 over `{id}.{timestamp}.{body}`)
 * under the signing secret of one of the target's live consumers — one per engagement being watched
 * and one for the client's rate-limit events, each with its own secret — refusing a timestamp more
 * than 5 minutes away (the package's tolerance). A refused delivery gets 401 and nothing of it is
 * stored: only a count of refusals and the last reason, for the target's page.
 *
 * A good one is written to the inbox in one transaction — an insert that does nothing for a message
 * id the target already holds (the service delivers at least once, and a replay sends the same id)
 * — and answered 204 at once; the worker's inbox work acts on it (inbox-work.ts).
 *
 * Secrets are decrypted once per consumer row and kept in this process's memory (a consumer's
 * secret never changes); they are never logged nor answered. The target's live consumers are read
 * at most once a second per target, and again before a refusal (a consumer registered meanwhile);
 * the target's "last event" is written at most once a second per target: at a burst of deliveries
 * each costs one insert (hand-written caches, a few lines each, where a library would add more
 * than it saves).
 */
import { randomUUID } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { Database } from "@/db/database";
import { readBodyWithin } from "@/server/http/request-guards";
import { decryptSecret, type KeyRing } from "@/server/security/secrets";
import { insertDelivery, liveConsumers, recordRefusal, type ConsumerRow } from "./inbox-repository";

/** The associated data a consumer's secret is sealed with (bound to its row). */
export const consumerSecretAad = (consumerRowId: string) => `webhook_consumer:${consumerRowId}`;

export type ReceiveAnswer = { status: 204 | 400 | 401; reason: string | null; duplicate?: boolean };

const verifiers = new Map<string, Webhook>();
/** Per target: its live consumers as last read, and when; when its last event was last written. */
const consumersRead = new Map<string, { at: number; consumers: ConsumerRow[] }>();
const eventNoted = new Map<string, number>();
const FRESH_MS = 1_000;

async function consumersOf(database: Database, targetId: string, fresh: boolean): Promise<ConsumerRow[]> {
  const known = consumersRead.get(targetId);
  if (!fresh && known && Date.now() - known.at < FRESH_MS) return known.consumers;
  const consumers = await database.transaction((tx) => liveConsumers(tx, targetId), { isolation: "read committed" });
  if (consumersRead.size > 1_000) consumersRead.clear();
  consumersRead.set(targetId, { at: Date.now(), consumers });
  return consumers;
}

type Envelope = { id?: unknown; eventType?: unknown; generatedDate?: unknown; payload?: unknown };

/** Verifies with each consumer's secret; the envelope, or the errors. */
function verifyWith(ring: KeyRing, consumers: readonly ConsumerRow[], body: string, headers: Record<string, string>): { envelope: Envelope | null; errors: unknown[] } {
  const errors: unknown[] = [];
  for (const consumer of consumers) {
    const verifier = verifierOf(ring, consumer);
    if (!verifier) continue;
    try {
      return { envelope: verifier.verify(body, headers) as Envelope, errors };
    } catch (error) {
      errors.push(error);
    }
  }
  return { envelope: null, errors };
}

function verifierOf(ring: KeyRing, consumer: ConsumerRow): Webhook | null {
  const known = verifiers.get(consumer.id);
  if (known) return known;
  try {
    const verifier = new Webhook(decryptSecret(ring, consumer.secretCipher, consumerSecretAad(consumer.id)));
    if (verifiers.size > 1_000) verifiers.clear();
    verifiers.set(consumer.id, verifier);
    return verifier;
  } catch {
    return null;
  }
}

/** The three signing headers, as the package reads them (absent ones empty: verification then fails). */
function signingHeaders(headers: Headers): Record<string, string> {
  return {
    "webhook-id": headers.get("webhook-id") ?? "",
    "webhook-timestamp": headers.get("webhook-timestamp") ?? "",
    "webhook-signature": headers.get("webhook-signature") ?? "",
  };
}

/** Why no secret verified it, in words for the target's page ("old timestamp" said as such). */
function refusalOf(errors: readonly unknown[], consumers: number): string {
  if (consumers === 0) return "A delivery arrived but the target has no webhook consumer registered: refused.";
  const message = errors.map((e) => (e instanceof WebhookVerificationError ? e.message : "")).find((m) => /timestamp/i.test(m));
  if (message) return `A delivery was refused: ${message.toLowerCase()} (more than 5 minutes from this machine's clock).`;
  if (errors.some((e) => e instanceof WebhookVerificationError && /header/i.test(e.message))) return "A delivery was refused: its signing headers are missing.";
  return "A delivery was refused: its signature matches none of the target's signing secrets.";
}

/** Verifies a delivery and writes it to the inbox (see the module comment). */
export async function receiveDelivery(database: Database, ring: KeyRing, params: { targetId: string; body: string; headers: Headers; now?: Date }): Promise<ReceiveAnswer> {
  const now = params.now ?? new Date();
  const { targetId } = params;
  const headers = signingHeaders(params.headers);
  let consumers = await consumersOf(database, targetId, false);
  let { envelope, errors } = verifyWith(ring, consumers, params.body, headers);
  if (!envelope) {
    // Before refusing: the consumers as they are now (one may have been registered this second).
    consumers = await consumersOf(database, targetId, true);
    ({ envelope, errors } = verifyWith(ring, consumers, params.body, headers));
  }
  if (!envelope) {
    const reason = refusalOf(errors, consumers.length);
    // A target with no consumer (or no such target) is not listening: refused, and nothing written.
    if (consumers.length === 0) return { status: 401, reason };
    await database.transaction((tx) => recordRefusal(tx, { targetId, reason, now }), { isolation: "read committed" });
    return { status: 401, reason };
  }
  const eventType = typeof envelope.eventType === "string" ? envelope.eventType : null;
  const payload = envelope.payload && typeof envelope.payload === "object" ? (envelope.payload as Record<string, unknown>) : null;
  if (!eventType || !payload) return { status: 400, reason: "The delivery is signed but is not an event envelope." };
  const generated = typeof envelope.generatedDate === "string" ? new Date(envelope.generatedDate) : null;
  const generatedAt = generated && !Number.isNaN(generated.getTime()) ? generated : null;
  const messageId = params.headers.get("webhook-id") ?? "";
  const rowId = randomUUID();
  const noteEvent = now.getTime() - (eventNoted.get(targetId) ?? 0) >= FRESH_MS;
  if (noteEvent) eventNoted.set(targetId, now.getTime());
  // Read committed: one insert-or-ignore on the unique (target, message id) (and the last event, once a second).
  const inserted = await database.transaction((tx) => insertDelivery(tx, { id: rowId, targetId, messageId, eventType, generatedAt, payload, now, noteEvent }), { isolation: "read committed" });
  return { status: 204, reason: null, duplicate: !inserted };
}

/** An event envelope is a few kilobytes: a body over 1 MB is not one. */
export const EVENT_BODY_LIMIT = 1_000_000;

/**
 * The endpoint's answer to one HTTP request (the route's whole body): a body over
 * EVENT_BODY_LIMIT is refused with 413 as soon as it is known to be — by its declared length or,
 * sent in chunks without one, by the bytes read so far, reading no further — and nothing of it is
 * stored; anything else is received as above.
 */
export async function answerDeliveryRequest(database: Database, ring: KeyRing, targetId: string, req: Request): Promise<Response> {
  const read = await readBodyWithin(req, EVENT_BODY_LIMIT);
  if (read.tooLarge) return plainAnswer(413, "Too large: an event is at most 1 MB.");
  const body = read.body ? new TextDecoder().decode(read.body) : "";
  const answer = await receiveDelivery(database, ring, { targetId, body, headers: req.headers });
  if (answer.status === 204) return new Response(null, { status: 204 });
  return plainAnswer(answer.status, answer.reason ?? "Refused.");
}

const plainAnswer = (status: number, text: string) =>
  new Response(`${text}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
