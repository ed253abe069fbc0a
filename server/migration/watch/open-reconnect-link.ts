/**
 * Opening a company's reconnect link (reconnect-link.ts): the end customer's browser arrives with
 * the link's token; Ferry checks it, checks that the engagement still watches its companies, asks
 * the service for the company (its `redirect` is a fresh Link URL, one-time where the client has
 * one-time Link URLs on) and sends the browser there. Every open is recorded per company
 * (reconnect_link_opens), with why it was closed or what the service answered; the company's
 * timeline and the reconnections table show them.
 *
 * A link is open from the moment its company exists on the service until the engagement's watch
 * ends (the hypercare days after the handover), and closed once the engagement is cancelled.
 */
import { randomUUID } from "node:crypto";
import { and, count, desc, eq, gte, inArray, max } from "drizzle-orm";
import { q, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { engagements, migrationItems, organizations, reconnectLinkOpens } from "@/db/schema";
import type { ReconnectLinkOutcome } from "@/core/migration/states";
import type { KeyRing } from "@/server/security/secrets";
import { logSafe } from "@/server/security/log-safe";
import { createServiceClient, ServiceError, type ServiceClient, type ServiceClientOptions } from "@/server/service-client";
import { targetAddressPolicy } from "@/server/targets/network";
import { openRunSession } from "../engine/run-session";
import { latestBulkRun } from "../bulk/bulk-repository";
import { verifyReconnectLinkToken } from "./reconnect-link";
import { findWatch } from "./watch-repository";

/** What the end customer's browser gets. */
export type ReconnectLinkAnswer =
  | { kind: "redirect"; url: string }
  /** No such link (a mistyped or forged token): nothing is said about any company. */
  | { kind: "unknown" }
  | { kind: "closed"; companyName: string; customerName: string; reason: string }
  /** Opened too often just now (each open costs a request from the target's quota): try again shortly. */
  | { kind: "busy"; companyName: string; retryAfterSeconds: number }
  | { kind: "service_error"; companyName: string; customerName: string; status: number | null; error: string; correlationId: string | null };

type LinkFacts = {
  itemId: string;
  engagementId: string;
  companyId: string | null;
  name: string;
  rehearsal: boolean;
  engagementStatus: string;
  customerName: string;
  watchEnded: boolean;
};

function* linkFacts(tx: Tx, itemId: string): Steps<LinkFacts | undefined> {
  const row = yield* q.get(
    tx
      .select({
        itemId: migrationItems.id,
        engagementId: migrationItems.engagementId,
        companyId: migrationItems.companyId,
        name: migrationItems.name,
        rehearsalRunId: migrationItems.rehearsalRunId,
        engagementStatus: engagements.status,
        customerName: organizations.name,
      })
      .from(migrationItems)
      .innerJoin(engagements, eq(engagements.id, migrationItems.engagementId))
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .where(eq(migrationItems.id, itemId)),
  );
  if (!row) return undefined;
  const watch = yield* findWatch(tx, row.engagementId);
  return {
    itemId: row.itemId,
    engagementId: row.engagementId,
    companyId: row.companyId,
    name: row.name,
    rehearsal: row.rehearsalRunId !== null,
    engagementStatus: row.engagementStatus,
    customerName: row.customerName,
    watchEnded: watch?.status === "ended",
  };
}

/** Why the link no longer leads anywhere, in the end customer's words; null while it is open. */
export function closedReason(f: Pick<LinkFacts, "companyId" | "engagementStatus" | "watchEnded" | "customerName">): string | null {
  if (f.engagementStatus === "cancelled") return `${f.customerName} stopped this migration, so this link no longer leads anywhere.`;
  if (f.watchEnded) return `This link was for the weeks after ${f.customerName} moved its connections, and that time has ended.`;
  if (!f.companyId) return "Your company is not ready to reconnect yet.";
  return null;
}

type OpenRecord = { outcome: ReconnectLinkOutcome; detail?: string | null; status?: number | null; correlationId?: string | null };

async function record(database: Database, f: LinkFacts, r: OpenRecord, at: Date): Promise<void> {
  const id = randomUUID();
  await database.transaction(function* (tx) {
    yield* q.run(
      tx.insert(reconnectLinkOpens).values({ id, engagementId: f.engagementId, itemId: f.itemId, at, outcome: r.outcome, detail: r.detail ?? null, status: r.status ?? null, correlationId: r.correlationId ?? null }),
    );
  }, { isolation: "read committed" });
}

/** A browser may be sent only to an http(s) address. */
function safeLinkUrl(raw: string | undefined | null): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    return u.protocol === "https:" || u.protocol === "http:" ? u.toString() : null;
  } catch {
    return null;
  }
}

export type ReconnectLinkOpenerDeps = {
  database: Database;
  ring: KeyRing;
  /** Passed to the service client (tests: a fetch). */
  client?: Partial<ServiceClientOptions>;
  /** How long a session (the target's decrypted key) is kept for further opens on the same engagement. */
  sessionTtlMs?: number;
  /** At most this many opens of one company's link a minute reach the service (default 10). */
  opensPerMinute?: number;
  log?: (line: string) => void;
  now?: () => Date;
};

/**
 * An opener of reconnect links that keeps each engagement's service session for a few minutes, so
 * a burst of opens decrypts the target's key (and audits it) once.
 */
export function createReconnectLinkOpener(deps: ReconnectLinkOpenerDeps) {
  const sessions = new Map<string, { client: ServiceClient; until: number }>();
  const ttl = deps.sessionTtlMs ?? 10 * 60_000;
  const now = deps.now ?? (() => new Date());

  async function clientFor(engagementId: string): Promise<ServiceClient | string> {
    const cached = sessions.get(engagementId);
    if (cached && cached.until > Date.now()) return cached.client;
    const run = await readSteps(deps.database, (tx) => latestBulkRun(tx, engagementId));
    if (!run) return "The engagement has no bulk run.";
    const session = await openRunSession({
      database: deps.database,
      ring: deps.ring,
      run,
      purpose: (reference) => `give an end customer of ${reference} a fresh Link URL`,
      connect: (t, apiKey) => createServiceClient({ timeoutMs: 15_000, ...deps.client, baseUrl: t.baseUrl, apiKey, addresses: targetAddressPolicy(t) }),
    });
    if (!session.ok) return session.refusal.kind === "no_target" ? "The engagement's bulk run has no service target." : session.refusal.reason;
    sessions.set(engagementId, { client: session.connection, until: Date.now() + ttl });
    return session.connection;
  }

  return {
    async open(token: string): Promise<ReconnectLinkAnswer> {
      const itemId = verifyReconnectLinkToken(deps.ring, token);
      if (!itemId) return { kind: "unknown" };
      const f = await readSteps(deps.database, (tx) => linkFacts(tx, itemId));
      if (!f || f.rehearsal) return { kind: "unknown" };
      const at = now();
      // Each open asks the service (a request from the target's daily quota): a link opened in a loop
      // (a script, a scanner gone wrong) is held to a few a minute, before anything is asked or written.
      const recent = await readSteps(deps.database, (tx) => opensSince(tx, f.itemId, new Date(at.getTime() - 60_000)));
      if (recent >= (deps.opensPerMinute ?? 10)) return { kind: "busy", companyName: f.name, retryAfterSeconds: 60 };
      const closed = closedReason(f);
      if (closed) {
        await record(deps.database, f, { outcome: "closed", detail: closed }, at);
        return { kind: "closed", companyName: f.name, customerName: f.customerName, reason: closed };
      }
      const refuse = async (e: { status: number | null; error: string; correlationId: string | null }): Promise<ReconnectLinkAnswer> => {
        await record(deps.database, f, { outcome: "service_error", detail: e.error, status: e.status, correlationId: e.correlationId }, at);
        return { kind: "service_error", companyName: f.name, customerName: f.customerName, ...e };
      };
      const client = await clientFor(f.engagementId);
      if (typeof client === "string") return refuse({ status: null, error: client, correlationId: null });
      try {
        const company = await client.getCompany({ companyId: f.companyId! });
        const url = safeLinkUrl(company.data.redirect);
        if (!url) return refuse({ status: null, error: "The service's answer had no Link URL for the company.", correlationId: null });
        await record(deps.database, f, { outcome: "redirected" }, at);
        return { kind: "redirect", url };
      } catch (error) {
        if (error instanceof ServiceError) {
          if (error.status === 401 || error.status === 403) sessions.delete(f.engagementId);
          return refuse({ status: error.status, error: error.error, correlationId: error.correlationId });
        }
        deps.log?.(`reconnect link of item ${f.itemId}: ${logSafe(error)}`);
        return refuse({ status: null, error: "Ferry could not reach the service.", correlationId: null });
      }
    },
  };
}

function* opensSince(tx: Tx, itemId: string, since: Date): Steps<number> {
  const row = yield* q.get(tx.select({ n: count() }).from(reconnectLinkOpens).where(and(eq(reconnectLinkOpens.itemId, itemId), gte(reconnectLinkOpens.at, since))));
  return Number(row?.n ?? 0);
}

/** Per company: how often its link was opened (any outcome) and when last. */
export type LinkOpenTally = { opens: number; lastOpenedAt: Date | null };

/** The opens of the given companies' links, by item id (companies never opened are absent). */
export function* linkOpenTallies(tx: Tx, itemIds: readonly string[]): Steps<Map<string, LinkOpenTally>> {
  const out = new Map<string, LinkOpenTally>();
  for (let from = 0; from < itemIds.length; from += 500) {
    const rows = yield* q.all(
      tx
        .select({ itemId: reconnectLinkOpens.itemId, opens: count(), last: max(reconnectLinkOpens.at) })
        .from(reconnectLinkOpens)
        .where(inArray(reconnectLinkOpens.itemId, itemIds.slice(from, from + 500)))
        .groupBy(reconnectLinkOpens.itemId),
    );
    for (const r of rows) out.set(r.itemId, { opens: Number(r.opens), lastOpenedAt: r.last ?? null });
  }
  return out;
}

/** A company's link opens, oldest first (its timeline). */
export function* linkOpensOf(tx: Tx, itemId: string) {
  const rows = yield* q.all(tx.select().from(reconnectLinkOpens).where(eq(reconnectLinkOpens.itemId, itemId)).orderBy(desc(reconnectLinkOpens.at)).limit(200));
  return rows.reverse();
}
