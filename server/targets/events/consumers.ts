/**
 * Ferry's webhook consumers at the service (reference §11: `POST /webhooks {url, eventTypes,
 * companyTags}`, `DELETE /webhooks/{id}`): when an engagement's bulk run starts, one filtered on its
 * engagement tag for its companies' connection and sync events; beside it, one per target without
 * tags for the client's rate-limit events (which concern no company, so a tagged consumer never gets
 * them). Both post to the target's endpoint on Ferry's public URL; each secret the service answers
 * is encrypted at once and kept with the consumer's row. When the watch ends the engagement's
 * consumer is deleted, and the target's rate-limit one with the last of them.
 *
 * A target for which Ferry has no public URL (neither the target's own nor FERRY_PUBLIC_URL) gets
 * no consumer: its watch keeps polling. A registration that fails is logged and the run goes on,
 * polling; nothing here ever stops a migration.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Database } from "@/db/database";
import { encryptSecret, type KeyRing } from "@/server/security/secrets";
import { logSafe } from "@/server/security/log-safe";
import { ServiceError, type ServiceClient } from "@/server/service-client";
import { consumerSecretAad } from "./receiver";
import { engagementConsumer, eventStateOf, insertConsumer, liveConsumers, markConsumerRemoved, type ConsumerRow } from "./inbox-repository";

/** What an engagement's consumer listens to: its companies' connections and syncs. */
export const ENGAGEMENT_EVENT_TYPES = ["connection.connected", "connection.reconnected", "connection.disconnected", "connection.failed", "read.completed"] as const;
/** What the target's own consumer listens to. */
export const RATE_LIMIT_EVENT_TYPES = ["client.rateLimit.reached", "client.rateLimit.reset"] as const;

const CreatedConsumer = z.object({ id: z.string().min(1), secret: z.string().min(1) });
const READ_COMMITTED = { isolation: "read committed" } as const;

/** The target's endpoint on Ferry's public URL, or null when Ferry has none for it (the watch polls). */
export function eventsEndpoint(params: { targetId: string; targetPublicUrl: string | null; defaultPublicUrl: string | null | undefined }): string | null {
  const base = (params.targetPublicUrl ?? params.defaultPublicUrl ?? "").trim().replace(/\/+$/, "");
  if (!/^https?:\/\/[^\s/]+/i.test(base)) return null;
  return `${base}/api/targets/${encodeURIComponent(params.targetId)}/events`;
}

/** Creates one consumer at the service and stores it (its secret encrypted, bound to its row). */
async function createConsumer(
  deps: { database: Database; ring: KeyRing; client: ServiceClient },
  params: { targetId: string; engagementId: string | null; url: string; eventTypes: readonly string[]; companyTags?: string[] },
): Promise<ConsumerRow["id"]> {
  const { data } = await deps.client.request({
    operation: "createWebhookConsumer",
    method: "POST",
    path: "/webhooks",
    body: { url: params.url, eventTypes: params.eventTypes, ...(params.companyTags ? { companyTags: params.companyTags } : {}) },
    schema: CreatedConsumer,
  });
  const id = randomUUID();
  const secretCipher = encryptSecret(deps.ring, data.secret, consumerSecretAad(id));
  await deps.database.transaction((tx) => insertConsumer(tx, { id, targetId: params.targetId, engagementId: params.engagementId, consumerId: data.id, secretCipher, url: params.url, now: new Date() }), READ_COMMITTED);
  return id;
}

/**
 * At the start of an engagement's bulk run: its consumer (and the target's rate-limit one) unless
 * it has them; "polling" when Ferry has no public URL for the target; never throws.
 */
export async function ensureEventConsumers(
  deps: { database: Database; ring: KeyRing; client: ServiceClient; defaultPublicUrl: string | null | undefined; log: (line: string) => void },
  params: { targetId: string; engagementId: string; engagementTag: string },
): Promise<"registered" | "present" | "polling" | "failed"> {
  const { targetId, engagementId } = params;
  try {
    const { state, mine, all } = await deps.database.transaction(function* (tx) {
      return { state: yield* eventStateOf(tx, targetId), mine: yield* engagementConsumer(tx, engagementId), all: yield* liveConsumers(tx, targetId) };
    }, READ_COMMITTED);
    const url = eventsEndpoint({ targetId, targetPublicUrl: state.publicUrl, defaultPublicUrl: deps.defaultPublicUrl });
    if (!url) return "polling";
    if (!all.some((c) => c.engagementId === null)) await createConsumer(deps, { targetId, engagementId: null, url, eventTypes: RATE_LIMIT_EVENT_TYPES });
    if (mine) return "present";
    await createConsumer(deps, { targetId, engagementId, url, eventTypes: ENGAGEMENT_EVENT_TYPES, companyTags: [params.engagementTag] });
    return "registered";
  } catch (error) {
    deps.log(`webhook consumer for engagement ${engagementId} not registered (the watch polls): ${logSafe(error)}`);
    return "failed";
  }
}

/** Deletes a consumer at the service (already gone counts as deleted) and marks its row removed. */
async function removeConsumer(deps: { database: Database; client: ServiceClient }, consumer: ConsumerRow): Promise<void> {
  try {
    await deps.client.request({ operation: "deleteWebhookConsumer", method: "DELETE", path: `/webhooks/${encodeURIComponent(consumer.consumerId)}`, schema: z.unknown() });
  } catch (error) {
    if (!(error instanceof ServiceError && error.status === 404)) throw error;
  }
  await deps.database.transaction((tx) => markConsumerRemoved(tx, { id: consumer.id, now: new Date() }), READ_COMMITTED);
}

/** When the engagement's watch ends: its consumer goes, and the target's rate-limit one with the last engagement's; never throws. */
export async function removeEventConsumers(deps: { database: Database; client: ServiceClient; log: (line: string) => void }, params: { targetId: string; engagementId: string }): Promise<void> {
  try {
    const all = await deps.database.transaction((tx) => liveConsumers(tx, params.targetId), READ_COMMITTED);
    const mine = all.filter((c) => c.engagementId === params.engagementId);
    for (const consumer of mine) await removeConsumer(deps, consumer);
    const others = all.filter((c) => c.engagementId !== null && c.engagementId !== params.engagementId);
    if (others.length === 0) for (const consumer of all.filter((c) => c.engagementId === null)) await removeConsumer(deps, consumer);
  } catch (error) {
    deps.log(`webhook consumer of engagement ${params.engagementId} not removed: ${logSafe(error)}`);
  }
}
