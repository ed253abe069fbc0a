/**
 * Turns the sandbox's state changes into webhook messages: the store tells it of each connection
 * write and settled sync inside the transaction that makes it (transactional outbox), the server of
 * a client going over its daily quota, and the dispatcher's timer of quota days that ended. Each
 * message is stored once with one delivery row per consumer that wants it; the dispatcher sends them.
 * Nothing is stored when no consumer wants an event.
 *
 * Synchronous: every method runs inside (or as) one store transaction.
 */
import { randomUUID } from "node:crypto";
import { iso } from "../domain/clock";
import type { FaultState } from "../domain/faults";
import { linkUrls, type LinkUrls } from "../link/link-urls";
import { connectionView } from "../routes/views";
import type { CompanyRow, ConnectionRow, PullRow, Store, StoreObserver } from "../store/store";
import { companyTagStrings, connectionEventOf, consumerWants, type Envelope, type EventType } from "./events";

const DAY_MS = 86_400_000;

export type WebhookEmitter = StoreObserver & {
  /** The client's request went over its daily quota on `day`; announced once per day. */
  quotaExceeded(params: { clientId: string; day: number; dailyQuota: number; now: number }): void;
  /** Announces the reset of every quota day that has ended by `now` (`dailyQuota` of the client now). */
  announceQuotaResets(params: { now: number; dailyQuota: (clientId: string) => number }): void;
};

/** The company as events show it (`Company.companyReference`). */
function referenceCompany(company: CompanyRow, links: LinkUrls): Record<string, unknown> {
  const reference: Record<string, unknown> = { id: company.id, name: company.name };
  if (company.description !== null) reference.description = company.description;
  // The sandbox has no Portal: its page for a company is the Link page.
  reference.links = { portal: links.company(company.id) };
  reference.tags = company.tags;
  return reference;
}

/**
 * The emitter for one sandbox; `publicUrl` is read when an event is made (it is known once the
 * server listens). `linkSecret` signs the tokens of a one-time-Link-URL client's links (link/link-token.ts).
 */
export function createWebhookEmitter(params: {
  store: Store;
  now: () => number;
  faults: FaultState;
  publicUrl: () => string;
  linkSecret: string;
}): WebhookEmitter {
  const { store } = params;
  /** The company's client's Link addresses for a message made now (a one-time one's tokens issued now). */
  const linksOf = (company: CompanyRow): LinkUrls =>
    linkUrls({ publicUrl: params.publicUrl(), secret: params.linkSecret, oneTime: store.clients.oneTimeLinkUrls(company.clientId), now: params.now() });
  /** Quota days already announced, so a client's every refused request does not write to the store. */
  const announced = new Set<string>();

  const enqueue = (event: { clientId: string; eventType: EventType; company: CompanyRow | null; payload: Record<string, unknown> }): void => {
    const companyTags = event.company ? companyTagStrings(event.company.tags) : null;
    const consumers = store.webhooks
      .listConsumers(event.clientId)
      .filter((c) => consumerWants(c, { eventType: event.eventType, companyTags }));
    if (consumers.length === 0) return;
    const now = params.now();
    const envelope: Envelope = { id: randomUUID(), eventType: event.eventType, generatedDate: iso(now), payload: event.payload };
    store.webhooks.insertMessage({ id: envelope.id, clientId: event.clientId, eventType: event.eventType, body: JSON.stringify(envelope), createdAt: now });
    const firstAttemptAt = now + params.faults.get().webhookDelaySeconds * 1000;
    for (const consumer of consumers) {
      store.webhooks.insertDelivery({
        messageId: envelope.id,
        consumerId: consumer.id,
        status: consumer.disabled ? "missed" : "pending",
        nextAttemptAt: consumer.disabled ? null : firstAttemptAt,
      });
    }
  };

  const connectionEvent = (eventType: EventType, connection: ConnectionRow): void => {
    const company = store.companies.get(connection.companyId);
    if (!company) return;
    const links = linksOf(company);
    enqueue({
      clientId: company.clientId,
      eventType,
      company,
      payload: { referenceCompany: referenceCompany(company, links), connection: connectionView(connection, links) },
    });
  };

  /** One read.completed per request's syncs, once the last of them has settled. */
  const readCompleted = (ops: readonly PullRow[]): void => {
    const batches = new Map<string, { companyId: string; requestedAt: number }>();
    for (const op of ops) batches.set(`${op.companyId}:${op.requestedAt}`, { companyId: op.companyId, requestedAt: op.requestedAt });
    for (const batch of batches.values()) {
      const all = store.pulls.batch(batch);
      if (all.some((op) => op.settled === 0)) continue;
      const company = store.companies.get(batch.companyId);
      if (!company) continue;
      const completedAt = Math.max(...all.map((op) => op.completeAt));
      enqueue({
        clientId: company.clientId,
        eventType: "read.completed",
        company,
        payload: {
          referenceCompany: referenceCompany(company, linksOf(company)),
          modifiedFromDate: iso(completedAt),
          dataTypes: all.map((op) => ({
            connectionId: op.connectionId,
            dataType: op.dataType,
            recordsModified: op.outcome === "Complete" && op.records > 0,
            status: op.outcome,
            issues: [],
          })),
        },
      });
    }
  };

  return {
    connectionSaved: ({ before, after, firstLinked }) => {
      const eventType = connectionEventOf({ before, after, firstLinked });
      if (eventType) connectionEvent(eventType, after);
    },
    connectionDeleted: (before) => connectionEvent("connection.deleted", before),
    pullsSettled: readCompleted,
    quotaExceeded: ({ clientId, day, dailyQuota, now }) => {
      const key = `${clientId}:${day}`;
      if (announced.has(key)) return;
      if (announced.size > 10_000) announced.clear();
      announced.add(key);
      store.transaction(() => {
        if (!store.webhooks.markQuotaDay({ clientId, day })) return;
        enqueue({
          clientId,
          eventType: "client.rateLimit.reached",
          company: null,
          payload: { dailyQuota, quotaRemaining: 0, expiryDate: iso((Math.floor(now / DAY_MS) + 1) * DAY_MS) },
        });
      });
    },
    announceQuotaResets: ({ now, dailyQuota }) => {
      const today = Math.floor(now / DAY_MS);
      const due = store.webhooks.quotaResetsDue(today);
      if (due.length === 0) return;
      store.transaction(() => {
        for (const { clientId, day } of due) {
          store.webhooks.markQuotaReset({ clientId, day });
          if (!store.clients.get(clientId)) continue;
          const quota = dailyQuota(clientId);
          const used = store.quotaUsage.used({ clientId, day: today });
          enqueue({
            clientId,
            eventType: "client.rateLimit.reset",
            company: null,
            payload: { dailyQuota: quota, quotaRemaining: Math.max(0, quota - used), expiryDate: iso((today + 1) * DAY_MS) },
          });
        }
        store.webhooks.pruneQuotaDays(today - 30);
      });
    },
  };
}
