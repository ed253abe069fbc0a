/**
 * The webhook inbox as the worker processes it (a PeriodicWork of engine/work.ts, modelled on the
 * mail outbox's sender): every second by default each worker claims due rows of the inbox under a
 * lease of its own (a fresh claim token per claim, inbox-repository.ts) and acts on each:
 *
 * - `connection.*` → the watch (watch/watch-events.ts), never moving a company backwards;
 * - `read.completed` → the company's next sync poll due now (event-effects.ts);
 * - `client.rateLimit.reached` / `.reset` → a pause of every run on the target until the reset.
 *
 * Each row is marked processed under its claim. A worker killed between claiming (or writing the
 * event's effect) and marking it leaves the claim to lapse; the next worker processes it again, and
 * the effects are idempotent or fenced forward-only (a connection event's time on the company), so
 * the event counts once. A row that fails is tried again with a growing delay, at most 8 times.
 */
import { randomUUID } from "node:crypto";
import { readSteps } from "@/db/database";
import { logSafe } from "@/server/security/log-safe";
import { createServiceClient, type ServiceClient } from "@/server/service-client";
import { createPacer } from "@/server/service-client/pacer";
import { pacerCeilingPerMinute } from "@/server/targets/limits";
import { targetAddressPolicy } from "@/server/targets/network";
import { claimInbox, dueInbox, markFailed, markProcessed, pruneProcessed, type InboxRow } from "@/server/targets/events/inbox-repository";
import type { EngineContext, PeriodicWork } from "../engine/work";
import { ENGAGEMENT_TAG } from "../engine/pipeline";
import { openRunSession } from "../engine/run-session";
import { latestBulkRun } from "../bulk/bulk-repository";
import { impliedStatus, reactToConnectionEvent } from "../watch/watch-events";
import { quotaReached, quotaReset, syncSettled } from "./event-effects";

export const WEBHOOK_INBOX = "webhook-inbox";

/** Rows claimed per look, the claim's lease, and the attempts before a row is given up. */
const BATCH = 200;
const CLAIM_MS = 60_000;
const MAX_ATTEMPTS = 8;
const MAX_BATCHES_PER_LOOK = 25;
/** Processed rows are kept for the service's replay window and a day more (a replayed id is then still known), pruned hourly. */
const KEEP_PROCESSED_MS = 15 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
const READ_COMMITTED = { isolation: "read committed" } as const;

export type InboxWorkOptions = { everyMs?: number };

type Payload = Record<string, unknown>;
const objectOf = (v: unknown): Payload | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Payload) : null);
const dateOf = (v: unknown): Date | null => {
  const d = typeof v === "string" ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
};

/** The company an event is about and the engagement its tag names (tags come as `{key: value}`). */
function companyOf(payload: Payload): { companyId: string; engagementId: string } | null {
  const company = objectOf(payload.referenceCompany);
  const tags = objectOf(company?.tags);
  const engagementId = tags?.[ENGAGEMENT_TAG];
  return typeof company?.id === "string" && typeof engagementId === "string" ? { companyId: company.id, engagementId } : null;
}

/** One worker's inbox processor: its service clients per engagement are kept while it lives (each key decrypted once, audited). */
export function createInboxProcessor(ctx: Pick<EngineContext, "database" | "ring" | "notify" | "log" | "client">) {
  const clients = new Map<string, Promise<ServiceClient>>();
  const { database } = ctx;
  let prunedAt = 0;

  /** The engagement's client on its bulk run's target (the one the event came through), opened once. */
  const clientOf = (engagementId: string, targetId: string) => () => {
    const key = `${engagementId}:${targetId}`;
    let client = clients.get(key);
    if (!client) {
      client = openClient(ctx, engagementId, targetId);
      client.catch(() => clients.delete(key));
      clients.set(key, client);
    }
    return client;
  };

  /** Acts on one row (see the module comment); an event about a company Ferry does not watch on this target is a no-op. */
  const act = async (row: InboxRow): Promise<void> => {
    const payload = row.payload as Payload;
    const at = row.generatedAt ?? row.receivedAt;
    if (row.eventType === "client.rateLimit.reached") {
      await database.transaction((tx) => quotaReached(tx, { targetId: row.targetId, generatedAt: row.generatedAt, receivedAt: row.receivedAt, expiryDate: dateOf(payload.expiryDate), dailyQuota: typeof payload.dailyQuota === "number" ? payload.dailyQuota : null }), READ_COMMITTED);
      return;
    }
    if (row.eventType === "client.rateLimit.reset") {
      await database.transaction((tx) => quotaReset(tx, { targetId: row.targetId, generatedAt: row.generatedAt }), READ_COMMITTED);
      return;
    }
    const company = companyOf(payload);
    if (!company) return;
    const run = await readSteps(database, (tx) => latestBulkRun(tx, company.engagementId));
    if (!run || run.serviceTargetId !== row.targetId) return;
    if (row.eventType === "read.completed") {
      await database.transaction((tx) => syncSettled(tx, { ...company, now: new Date() }), READ_COMMITTED);
      return;
    }
    const implied = impliedStatus(row.eventType);
    if (!implied) return;
    await reactToConnectionEvent({ database, notify: ctx.notify }, { ...company, implied, generatedAt: at, client: clientOf(company.engagementId, row.targetId) });
  };

  /** One batch: claims up to BATCH due rows and processes them; how many it claimed and marked processed. */
  const processDueBatch = async (now: Date): Promise<{ claimed: number; processed: number }> => {
    if (now.getTime() - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = now.getTime();
      await database.transaction((tx) => pruneProcessed(tx, { before: new Date(now.getTime() - KEEP_PROCESSED_MS) }), READ_COMMITTED);
    }
    const due = await database.transaction((tx) => dueInbox(tx, { now, limit: BATCH }), READ_COMMITTED);
    if (due.length === 0) return { claimed: 0, processed: 0 };
    const token = randomUUID();
    const claimed = new Set(await database.transaction((tx) => claimInbox(tx, { ids: due.map((r) => r.id), token, now, leaseMs: CLAIM_MS }), READ_COMMITTED));
    let processed = 0;
    for (const row of due) {
      if (!claimed.has(row.id)) continue;
      try {
        await act(row);
        if (await database.transaction((tx) => markProcessed(tx, { id: row.id, token, now: new Date() }), READ_COMMITTED)) processed += 1;
      } catch (error) {
        const attempts = row.attempts + 1;
        const retryAt = attempts >= MAX_ATTEMPTS ? null : new Date(Date.now() + Math.min(3_600_000, 1_000 * 2 ** attempts));
        ctx.log(`webhook ${row.eventType} ${row.messageId} not processed (attempt ${attempts}): ${logSafe(error)}`);
        await database.transaction((tx) => markFailed(tx, { id: row.id, token, error: logSafe(error), retryAt, now: new Date() }), READ_COMMITTED);
      }
    }
    return { claimed: claimed.size, processed };
  };

  return {
    /** Claims what is due (one batch) and processes it; answers how many rows it marked processed. */
    processDue: async (now = new Date()): Promise<number> => (await processDueBatch(now)).processed,
    processDueBatch: (now = new Date()) => processDueBatch(now),
  };
}

/** A slow client on the engagement's bulk-run target (a few GETs when events and Ferry disagree). */
async function openClient(ctx: Pick<EngineContext, "database" | "ring" | "client">, engagementId: string, targetId: string): Promise<ServiceClient> {
  const run = await readSteps(ctx.database, (tx) => latestBulkRun(tx, engagementId));
  if (!run || run.serviceTargetId !== targetId) throw new Error(`Engagement ${engagementId} no longer runs on target ${targetId}.`);
  const session = await openRunSession({
    database: ctx.database,
    ring: ctx.ring,
    run,
    purpose: (reference) => `check a connection of ${reference} a webhook reported`,
    connect: (t, apiKey) => {
      const pacer = createPacer({ initialConcurrency: 1, maxConcurrency: 2, maxPerMinute: pacerCeilingPerMinute(t), ...(ctx.client.fetch ? { fetch: ctx.client.fetch } : {}) });
      return createServiceClient({ timeoutMs: 30_000, ...ctx.client, baseUrl: t.baseUrl, apiKey, fetch: pacer.fetch, addresses: targetAddressPolicy(t) });
    },
  });
  if (!session.ok) throw new Error(session.refusal.kind === "no_target" ? "The engagement's bulk run has no service target." : session.refusal.reason);
  return session.connection;
}

/** The inbox, looked at every `everyMs` (1 s by default) by every worker, each row claimed by one. */
export function inboxWork(options: InboxWorkOptions = {}): PeriodicWork {
  return {
    name: WEBHOOK_INBOX,
    everyMs: options.everyMs ?? 1_000,
    start: (ctx) => {
      const processor = createInboxProcessor(ctx);
      return {
        // A backlog (a bulk run's connection events) is worked through in one look, batch after batch, up to a bound.
        async tick() {
          let done = 0;
          for (let batch = 0; batch < MAX_BATCHES_PER_LOOK; batch++) {
            const { processed, claimed } = await processor.processDueBatch();
            done += processed;
            if (claimed < BATCH) break;
          }
          return done;
        },
        close: async () => {},
      };
    },
  };
}

