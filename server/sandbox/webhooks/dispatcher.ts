/**
 * Sends the webhook outbox, off the request path: a timer ticks every `tickMs` (real time) and each
 * tick settles what fell due on the sandbox clock (so a sync that finished or a scheduled drop makes
 * its event without an API call), announces quota resets, then POSTs the deliveries due by the
 * sandbox clock — at most BATCH per tick, each endpoint's in order, one at a time; endpoints in
 * parallel. A tick that is still running when the next is due is not doubled.
 *
 * Each attempt is signed with the `standardwebhooks` package (the Standard Webhooks scheme the
 * service's Svix deliveries use: `webhook-id`, `webhook-timestamp`, `webhook-signature`) and goes to
 * the consumer's URL only: redirects are not followed (a 3xx is a failure, as with Svix), and a
 * 2xx within 15 s is a success. A failed attempt is retried on the documented schedule on the
 * sandbox clock; after the last one the delivery is `failed`. An endpoint whose attempts have all
 * failed for 5 days is disabled, its pending deliveries `failed`; the replay control sends them again.
 */
import { Webhook } from "standardwebhooks";
import type { SandboxApp } from "../context";
import type { Faults } from "../domain/faults";
import { dailyQuota } from "../domain/rate-limits";
import { settleDue } from "../simulators/settle";
import type { WebhookConsumerRow, WebhookDeliveryRow } from "../store/store";
import { ATTEMPT_TIMEOUT_MS, DISABLE_AFTER_FAILING_MS, MAX_ATTEMPTS, newWebhookSecret, REPLAY_WINDOW_MS, RETRY_DELAYS_MS } from "./events";

/** Deliveries attempted per tick at most: the outbox is read in slices, never all at once. */
const BATCH = 100;

/** How often messages past the replay window are forgotten (real time). */
const PRUNE_EVERY_MS = 60_000;

export type WebhookDispatcher = {
  /** One pass: settle, announce, send what is due. Resolves when its attempts have ended. */
  tick(): Promise<void>;
  start(): void;
  /** Stops the timer and aborts attempts in flight; resolves when the running tick has ended. */
  stop(): Promise<void>;
};

type AttemptResult = { ok: boolean; response: string };

/** One POST of the message to the consumer's URL, signed as of now (real time: see docs/sandbox.md). */
async function postDelivery(params: {
  consumer: WebhookConsumerRow;
  delivery: WebhookDeliveryRow;
  faults: Faults;
  stop: AbortSignal;
}): Promise<AttemptResult> {
  const { consumer, delivery, faults } = params;
  const timestamp = new Date();
  const signer = new Webhook(faults.webhookWrongSignature ? newWebhookSecret() : consumer.secret);
  try {
    const response = await fetch(consumer.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "Ferry-Sandbox-Webhooks/1",
        "webhook-id": delivery.messageId,
        "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
        "webhook-signature": signer.sign(delivery.messageId, timestamp, delivery.body),
      },
      body: delivery.body,
      redirect: "manual",
      signal: AbortSignal.any([AbortSignal.timeout(ATTEMPT_TIMEOUT_MS), params.stop]),
    });
    // The answer's body is not read: only the status counts.
    await response.body?.cancel().catch(() => {});
    return { ok: response.status >= 200 && response.status < 300, response: String(response.status) };
  } catch (error) {
    return { ok: false, response: `error: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The dispatcher of one sandbox. */
export function createWebhookDispatcher(params: { app: SandboxApp; tickMs: number }): WebhookDispatcher {
  const { app } = params;
  const { store } = app;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  let lastPrune = 0;
  const abort = new AbortController();

  /** Records an attempt's outcome: delivered, or the next attempt on the schedule, and the endpoint's health. */
  const record = (consumerId: string, delivery: WebhookDeliveryRow, result: AttemptResult, at: number): void => {
    store.transaction(() => {
      const consumer = store.webhooks.getConsumer(consumerId);
      if (!consumer) return;
      const key = { messageId: delivery.messageId, consumerId };
      if (result.ok) {
        store.webhooks.recordAttempt({ ...key, status: "delivered", nextAttemptAt: null, at, response: result.response });
        store.webhooks.setConsumerState({ id: consumerId, disabled: consumer.disabled, failingSince: null });
        return;
      }
      const attempts = delivery.attempts + 1;
      const retryIn = RETRY_DELAYS_MS[attempts];
      const next = attempts >= MAX_ATTEMPTS || retryIn === undefined ? null : at + retryIn;
      store.webhooks.recordAttempt({ ...key, status: next === null ? "failed" : "pending", nextAttemptAt: next, at, response: result.response });
      const failingSince = consumer.failingSince ?? at;
      const disable = at - failingSince >= DISABLE_AFTER_FAILING_MS;
      store.webhooks.setConsumerState({ id: consumerId, disabled: consumer.disabled || disable, failingSince });
      if (disable) {
        store.webhooks.failPending(consumerId);
        app.log(`sandbox: webhook endpoint ${consumerId} disabled: every attempt has failed since ${new Date(failingSince).toISOString()}`);
      }
    });
  };

  /** The endpoint's due deliveries, one after another (newest first under the out-of-order fault). */
  const sendTo = async (consumerId: string, deliveries: WebhookDeliveryRow[], faults: Faults): Promise<void> => {
    const ordered = faults.webhookOutOfOrder ? [...deliveries].reverse() : deliveries;
    for (const delivery of ordered) {
      if (stopped) return;
      // Read again before each attempt: the endpoint may have been deleted or disabled meanwhile.
      const consumer = store.webhooks.getConsumer(consumerId);
      if (!consumer || consumer.disabled) return;
      const result = await postDelivery({ consumer, delivery, faults, stop: abort.signal });
      if (result.ok && faults.webhookDuplicates && !stopped) await postDelivery({ consumer, delivery, faults, stop: abort.signal });
      if (stopped) return;
      record(consumerId, delivery, result, app.clock.now());
    }
  };

  const pass = async (): Promise<void> => {
    const now = app.clock.now();
    settleDue(store, now);
    app.webhooks.announceQuotaResets({ now, dailyQuota: (clientId) => dailyQuota(store.connections.countLinkedCompanies(clientId)) });
    if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = Date.now();
      store.webhooks.pruneMessages(now - REPLAY_WINDOW_MS);
    }
    const due = store.webhooks.due(now, BATCH);
    if (due.length === 0) return;
    const byConsumer = new Map<string, WebhookDeliveryRow[]>();
    for (const delivery of due) {
      const list = byConsumer.get(delivery.consumerId) ?? [];
      list.push(delivery);
      byConsumer.set(delivery.consumerId, list);
    }
    const faults = app.faults.get();
    await Promise.all([...byConsumer].map(([consumerId, deliveries]) => sendTo(consumerId, deliveries, faults)));
  };

  const tick = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= pass()
      .catch((error: unknown) => {
        if (!stopped) app.log(`sandbox: webhook dispatch failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  return {
    tick,
    start: () => {
      if (timer || stopped) return;
      timer = setInterval(() => void tick(), params.tickMs);
      timer.unref();
    },
    stop: async () => {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      abort.abort();
      await running;
    },
  };
}
