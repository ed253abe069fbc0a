/**
 * The service's webhook events (reference §11; PLATFORM-OAS `webhooks`): their names, the
 * envelope `{id, eventType, generatedDate, payload}`, the delivery schedule and limits, and which
 * consumers a message goes to. No store, no clock.
 */
import { randomBytes } from "node:crypto";
import { isDataType } from "../../platforms";

/** Every event type the service documents (a consumer may subscribe to any of them). */
export const EVENT_TYPES = [
  "company.created",
  "company.deleted",
  "company.product.added",
  "company.product.removed",
  "connection.created",
  "connection.connected",
  "connection.disconnected",
  "connection.reconnected",
  "connection.failed",
  "connection.deleted",
  "read.completed",
  "read.completed.initial",
  "client.rateLimit.reached",
  "client.rateLimit.reset",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const WRITE_EVENT = /^([A-Za-z-]+)\.write\.(successful|unsuccessful)$/;

/** A documented event type: one of the names above or `{dataType}.write.successful|unsuccessful`. */
export function isEventType(name: string): boolean {
  if ((EVENT_TYPES as readonly string[]).includes(name)) return true;
  const write = WRITE_EVENT.exec(name);
  return write?.[1] !== undefined && isDataType(write[1]);
}

/** The retry schedule (reference §11, Svix's): the wait before each attempt after the first failed. */
export const RETRY_DELAYS_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** Attempts in all: the first plus one per entry of the schedule after it. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/** An endpoint whose attempts have all failed for this long is disabled (reference §11). */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;

/** Missed messages can be replayed for this long (reference §11); older ones are forgotten. */
export const REPLAY_WINDOW_MS = 14 * 86_400_000;

/** An attempt that has not answered 2xx in this long has failed (reference §11). */
export const ATTEMPT_TIMEOUT_MS = 15_000;

/** Consumers per client and tags per consumer (PLATFORM-OAS `WebhookConsumer`, create-webhook-consumer). */
export const MAX_CONSUMERS = 50;
export const MAX_COMPANY_TAGS = 10;
export const MAX_COMPANY_TAG_LENGTH = 128;

/** A new signing secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

export type Envelope = { id: string; eventType: string; generatedDate: string; payload: Record<string, unknown> };

/** The company's tags as `tagKey:tagValue` strings, the form consumers filter on. */
export function companyTagStrings(tags: Record<string, string>): string[] {
  return Object.entries(tags).map(([key, value]) => `${key}:${value}`);
}

/**
 * Whether a consumer gets a message: it subscribes to the event type, and, when it names company
 * tags, the message is about a company carrying one of them (case-sensitive, as the OAS says). A
 * message about no company (the client's rate limit) reaches only consumers without tags, as
 * Svix's channels work.
 */
export function consumerWants(
  consumer: { eventTypes: readonly string[]; companyTags: readonly string[] | null },
  message: { eventType: string; companyTags: readonly string[] | null },
): boolean {
  if (!consumer.eventTypes.includes(message.eventType)) return false;
  if (!consumer.companyTags || consumer.companyTags.length === 0) return true;
  const tags = message.companyTags;
  return tags !== null && consumer.companyTags.some((tag) => tags.includes(tag));
}

/** Which connection event a write of a connection makes, if any (reference §11 statuses). */
export function connectionEventOf(params: {
  before: { status: string; errors: readonly { status: string }[] } | undefined;
  after: { status: string; errors: readonly { status: string }[] };
  firstLinked: boolean;
}): EventType | null {
  const { before, after } = params;
  if (!before) return after.status === "Linked" ? "connection.connected" : "connection.created";
  if (after.status === "Linked" && before.status !== "Linked") return params.firstLinked ? "connection.connected" : "connection.reconnected";
  if (before.status === "Linked" && (after.status === "Unlinked" || after.status === "Deauthorized")) return "connection.disconnected";
  // A linking attempt that did not end Linked and added an error (a refused migration).
  if (after.status !== "Linked" && after.errors.length > before.errors.length) return "connection.failed";
  return null;
}
