/**
 * Webhooks' tables: `webhook_consumers` (a client's endpoints, with their signing secrets),
 * `webhook_messages` (each event as the JSON text that is signed and sent), `webhook_deliveries`
 * (one per message and consumer: the outbox the dispatcher drains) and `webhook_quota_days`
 * (days a client went over its daily quota, to announce the reset once).
 */
import type Database from "better-sqlite3";

/** One attempt at a pending delivery, as recorded. */
type DeliveryAttempt = { messageId: string; consumerId: string; status: WebhookDeliveryStatus; nextAttemptAt: number | null; at: number; response: string };

export type WebhookConsumerRow = {
  id: string;
  clientId: string;
  url: string;
  eventTypes: string[];
  /** `tagKey:tagValue` filters; null or empty: every company (and events of no company). */
  companyTags: string[] | null;
  /** `whsec_<base64>`: the Standard Webhooks signing secret. */
  secret: string;
  disabled: boolean;
  /** Sandbox time of the first failed attempt since the last success; null when not failing. */
  failingSince: number | null;
  createdAt: number;
};

export type WebhookDeliveryStatus = "pending" | "delivered" | "failed" | "missed";

export type WebhookMessageRow = { id: string; clientId: string; eventType: string; body: string; createdAt: number };

/** A delivery with its message, as the dispatcher and the controls read it. */
export type WebhookDeliveryRow = {
  messageId: string;
  consumerId: string;
  seq: number;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastResponse: string | null;
  eventType: string;
  body: string;
  createdAt: number;
};

type RawConsumer = Omit<WebhookConsumerRow, "eventTypes" | "companyTags" | "disabled"> & {
  eventTypes: string;
  companyTags: string | null;
  disabled: number;
};

const CONSUMER_COLUMNS = `id, client_id AS clientId, url, event_types AS eventTypes, company_tags AS companyTags, secret,
  disabled, failing_since AS failingSince, created_at AS createdAt`;

const DELIVERY_COLUMNS = `d.message_id AS messageId, d.consumer_id AS consumerId, d.rowid AS seq, d.status, d.attempts,
  d.next_attempt_at AS nextAttemptAt, d.last_attempt_at AS lastAttemptAt, d.last_response AS lastResponse,
  m.event_type AS eventType, m.body, m.created_at AS createdAt`;

function toConsumer(raw: RawConsumer): WebhookConsumerRow {
  return {
    ...raw,
    eventTypes: JSON.parse(raw.eventTypes) as string[],
    companyTags: raw.companyTags === null ? null : (JSON.parse(raw.companyTags) as string[]),
    disabled: raw.disabled === 1,
  };
}

/** The tables' statements, prepared once. */
function prepare(db: Database.Database) {
  return {
    insertConsumer: db.prepare<Omit<RawConsumer, "failingSince">>(
      `INSERT INTO webhook_consumers (id, client_id, url, event_types, company_tags, secret, disabled, created_at)
       VALUES (@id, @clientId, @url, @eventTypes, @companyTags, @secret, @disabled, @createdAt)`,
    ),
    consumer: db.prepare<{ id: string }, RawConsumer>(`SELECT ${CONSUMER_COLUMNS} FROM webhook_consumers WHERE id = @id`),
    consumersOf: db.prepare<{ clientId: string }, RawConsumer>(
      `SELECT ${CONSUMER_COLUMNS} FROM webhook_consumers WHERE client_id = @clientId ORDER BY created_at, rowid`,
    ),
    allConsumers: db.prepare<[], RawConsumer>(`SELECT ${CONSUMER_COLUMNS} FROM webhook_consumers ORDER BY created_at, rowid`),
    countOf: db.prepare<{ clientId: string }, { n: number }>("SELECT COUNT(*) AS n FROM webhook_consumers WHERE client_id = @clientId"),
    deleteConsumer: db.prepare<{ id: string }>("DELETE FROM webhook_consumers WHERE id = @id"),
    setState: db.prepare<{ id: string; disabled: number; failingSince: number | null }>(
      "UPDATE webhook_consumers SET disabled = @disabled, failing_since = @failingSince WHERE id = @id",
    ),
    insertMessage: db.prepare<WebhookMessageRow>(
      `INSERT INTO webhook_messages (id, client_id, event_type, body, created_at) VALUES (@id, @clientId, @eventType, @body, @createdAt)`,
    ),
    insertDelivery: db.prepare<{ messageId: string; consumerId: string; status: WebhookDeliveryStatus; nextAttemptAt: number | null }>(
      `INSERT INTO webhook_deliveries (message_id, consumer_id, status, next_attempt_at)
       VALUES (@messageId, @consumerId, @status, @nextAttemptAt)`,
    ),
    due: db.prepare<{ now: number; limit: number }, WebhookDeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= @now ORDER BY d.next_attempt_at, d.rowid LIMIT @limit`,
    ),
    ofConsumer: db.prepare<{ consumerId: string }, WebhookDeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
       WHERE d.consumer_id = @consumerId ORDER BY d.rowid`,
    ),
    recordAttempt: db.prepare<DeliveryAttempt>(
      `UPDATE webhook_deliveries SET status = @status, attempts = attempts + 1, next_attempt_at = @nextAttemptAt,
        last_attempt_at = @at, last_response = @response
       WHERE message_id = @messageId AND consumer_id = @consumerId AND status = 'pending'`,
    ),
    failPending: db.prepare<{ consumerId: string }>(
      "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE consumer_id = @consumerId AND status = 'pending'",
    ),
    requeue: db.prepare<{ consumerId: string; since: number; now: number }>(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = @now
       WHERE consumer_id = @consumerId AND status IN ('failed', 'missed')
         AND message_id IN (SELECT id FROM webhook_messages WHERE created_at >= @since)`,
    ),
    pruneMessages: db.prepare<{ before: number }>("DELETE FROM webhook_messages WHERE created_at < @before"),
    markQuotaDay: db.prepare<{ clientId: string; day: number }>(
      "INSERT OR IGNORE INTO webhook_quota_days (client_id, day) VALUES (@clientId, @day)",
    ),
    quotaResetsDue: db.prepare<{ today: number }, { clientId: string; day: number }>(
      "SELECT client_id AS clientId, day FROM webhook_quota_days WHERE reset_sent = 0 AND day < @today",
    ),
    markQuotaReset: db.prepare<{ clientId: string; day: number }>(
      "UPDATE webhook_quota_days SET reset_sent = 1 WHERE client_id = @clientId AND day = @day",
    ),
    pruneQuotaDays: db.prepare<{ before: number }>("DELETE FROM webhook_quota_days WHERE reset_sent = 1 AND day < @before"),
  };
}

/** The webhook tables' repository. */
export function createWebhooksTable(db: Database.Database) {
  const s = prepare(db);
  return {
    insertConsumer: (row: Omit<WebhookConsumerRow, "failingSince">): void => {
      s.insertConsumer.run({
        ...row,
        eventTypes: JSON.stringify(row.eventTypes),
        companyTags: row.companyTags === null ? null : JSON.stringify(row.companyTags),
        disabled: row.disabled ? 1 : 0,
      });
    },
    getConsumer: (id: string): WebhookConsumerRow | undefined => {
      const raw = s.consumer.get({ id });
      return raw && toConsumer(raw);
    },
    listConsumers: (clientId: string): WebhookConsumerRow[] => s.consumersOf.all({ clientId }).map(toConsumer),
    listAllConsumers: (): WebhookConsumerRow[] => s.allConsumers.all().map(toConsumer),
    countConsumers: (clientId: string): number => s.countOf.get({ clientId })?.n ?? 0,
    /** Deletes the consumer with its deliveries (its messages stay for other consumers until pruned). */
    deleteConsumer: (id: string): void => {
      s.deleteConsumer.run({ id });
    },
    setConsumerState: (params: { id: string; disabled: boolean; failingSince: number | null }): void => {
      s.setState.run({ ...params, disabled: params.disabled ? 1 : 0 });
    },
    insertMessage: (row: WebhookMessageRow): void => {
      s.insertMessage.run(row);
    },
    insertDelivery: (params: { messageId: string; consumerId: string; status: WebhookDeliveryStatus; nextAttemptAt: number | null }): void => {
      s.insertDelivery.run(params);
    },
    /** Pending deliveries whose attempt is due by `now`, oldest due first, at most `limit`. */
    due: (now: number, limit: number): WebhookDeliveryRow[] => s.due.all({ now, limit }),
    listDeliveries: (consumerId: string): WebhookDeliveryRow[] => s.ofConsumer.all({ consumerId }),
    /** Records an attempt of a pending delivery; false when it was no longer pending (deleted, replayed). */
    recordAttempt: (params: DeliveryAttempt): boolean => s.recordAttempt.run(params).changes > 0,
    /** Ends every pending delivery of the consumer as failed (it was disabled). */
    failPending: (consumerId: string): void => {
      s.failPending.run({ consumerId });
    },
    /** Makes the consumer's failed and missed deliveries of messages made since `since` due now; returns how many. */
    requeue: (params: { consumerId: string; since: number; now: number }): number => s.requeue.run(params).changes,
    /** Forgets messages (and their deliveries) made before `before`. */
    pruneMessages: (before: number): void => {
      s.pruneMessages.run({ before });
    },
    /** Notes that the client went over its quota on `day`; true the first time for that day. */
    markQuotaDay: (params: { clientId: string; day: number }): boolean => s.markQuotaDay.run(params).changes > 0,
    quotaResetsDue: (today: number): { clientId: string; day: number }[] => s.quotaResetsDue.all({ today }),
    markQuotaReset: (params: { clientId: string; day: number }): void => {
      s.markQuotaReset.run(params);
    },
    pruneQuotaDays: (before: number): void => {
      s.pruneQuotaDays.run({ before });
    },
  };
}
