/**
 * One company's timeline, as support and its customer read it in one drawer: every call Ferry made
 * to the service for it (with the answer's status, error and correlationId), what people did to it
 * (set aside, retried, fresh tokens sent and reviewed), and what happened to it on its own (a
 * reconnection, a drop). Calls in a row with the same answer (a sync's status polls) are one
 * entry with their count and span. Pure: the browser imports the schema.
 */
import { z } from "zod";
import { countOf } from "../words";

export const TIMELINE_SOURCES = ["call", "person", "system", "service"] as const;
export type TimelineSource = (typeof TIMELINE_SOURCES)[number];

export const ZTimelineEntry = z.object({
  /** When it happened (a folded run of calls: its first). */
  at: z.date(),
  /** A folded run of calls: its last. */
  until: z.date().nullable(),
  source: z.enum(TIMELINE_SOURCES),
  /** What happened, in words. */
  text: z.string(),
  /** Who did it (people), null for the machine. */
  actor: z.string().nullable(),
  /** A call's answer: its HTTP status, whether it went as the pipeline needed, the service's error text and correlationId. */
  call: z
    .object({
      method: z.string(),
      path: z.string(),
      status: z.number().int().nullable(),
      ok: z.boolean(),
      errorText: z.string().nullable(),
      correlationId: z.string().nullable(),
      count: z.number().int(),
      /** What the answer said that matters here (a connection's status and the platform's refusal, a sync's statuses, a count), in words. */
      answer: z.string().nullable(),
      /** The answer was a success for HTTP but not for the migration (the platform refused the tokens). */
      refused: z.boolean(),
    })
    .nullable(),
});
export type TimelineEntry = z.infer<typeof ZTimelineEntry>;

export const ZCompanyTimeline = z.object({
  itemId: z.string(),
  name: z.string(),
  /** Oldest first. */
  entries: z.array(ZTimelineEntry),
  /** Older calls left out (the newest are kept) when a company has more than the drawer shows. */
  olderCallsLeftOut: z.number().int(),
});
export type CompanyTimeline = z.infer<typeof ZCompanyTimeline>;

/** The service client's operations, in words. */
const CALL_WORDS: Record<string, string> = {
  findCompaniesByTag: "Looked for a company Ferry made before (by its tag)",
  getCompany: "Read the company",
  createCompany: "Created the company on the service",
  listConnections: "Listed the company's connections",
  getConnection: "Read the connection's status",
  createConnection: "Created the data connection",
  authorizeConnection: "Gave the connection the company's tokens",
  refreshAllData: "Asked the service to sync the company's data",
  getDataStatus: "Read the sync's status",
  listPullOperations: "Read the sync's results",
};

/** The data types counted after a sync (a page of one of each list), by their list's operation. */
const COUNTED: Record<string, string> = {
  listAccounts: "accounts",
  listInvoices: "invoices",
  listCustomers: "customers",
  listSuppliers: "suppliers",
  listBills: "bills",
  listPurchaseOrders: "purchase orders",
  listCommerceOrders: "orders",
  listCommerceProducts: "products",
  listCommerceCustomers: "commerce customers",
};

/** A call's operation in words (an operation Ferry no longer knows: its name). */
export function callWords(operation: string): string {
  const counted = COUNTED[operation];
  return counted ? `Read the ${counted} back (a page of one, for their count)` : (CALL_WORDS[operation] ?? operation);
}

export type StoredCall = {
  at: Date;
  operation: string;
  method: string;
  path: string;
  status: number | null;
  ok: boolean;
  errorText: string | null;
  correlationId: string | null;
  /** What the runner kept of the answer (ids, statuses, counts; never a secret). */
  detail: Record<string, unknown> | null;
};

const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);

/** The platform's refusal the runner kept from an authorization's answer, in its words. */
function refusalOf(detail: Record<string, unknown>): string | null {
  if (!Array.isArray(detail.errors) || !detail.errors.length) return null;
  const words = detail.errors
    .map((e: unknown) => (e && typeof e === "object" ? e : {}) as Record<string, unknown>)
    .map((e) => [text(e.statusCode), text(e.statusText) ?? text(e.errorMessage)].filter(Boolean).join(" "))
    .filter(Boolean);
  return words.length ? words.join("; ") : "refused";
}

/** What a call's answer said, in words (null: nothing beyond its status). */
export function answerOf(detail: Record<string, unknown> | null): { answer: string | null; refused: boolean } {
  if (!detail) return { answer: null, refused: false };
  const refusal = refusalOf(detail);
  if (text(detail.status)) return { answer: `Connection ${String(detail.status)}${refusal ? `: ${refusal}` : ""}`, refused: !!refusal };
  if (detail.counts && typeof detail.counts === "object") {
    const parts = Object.entries(detail.counts as Record<string, unknown>).map(([status, n]) => `${status} ${String(n)}`);
    return { answer: parts.length ? `Data types: ${parts.join(", ")}` : null, refused: false };
  }
  if (typeof detail.records === "number") return { answer: countOf(detail.records, "record", "records"), refused: false };
  if (typeof detail.found === "number") return { answer: detail.found ? `Found ${countOf(detail.found, "company", "companies")}` : "None found", refused: false };
  return { answer: null, refused: false };
}

/**
 * Calls as entries, oldest first: calls in a row of one operation with the same answer (status,
 * outcome and error) fold into one entry that counts them and spans their times; the entry keeps
 * the last call's correlationId.
 */
export function foldCalls(calls: readonly StoredCall[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  let last: { key: string; entry: TimelineEntry } | null = null;
  for (const c of calls) {
    const { answer, refused } = answerOf(c.detail);
    const key = [c.operation, c.method, c.path, c.status, c.ok, c.errorText, answer].join("\u0000");
    if (last && last.key === key && last.entry.call) {
      last.entry.call.count += 1;
      last.entry.until = c.at;
      last.entry.call.correlationId = c.correlationId ?? last.entry.call.correlationId;
      last.entry.text = `${callWords(c.operation)} (${countOf(last.entry.call.count, "time", "times")})`;
      continue;
    }
    const entry: TimelineEntry = {
      at: c.at,
      until: null,
      source: "call",
      text: callWords(c.operation),
      actor: null,
      call: { method: c.method, path: c.path, status: c.status, ok: c.ok, errorText: c.errorText, correlationId: c.correlationId, count: 1, answer, refused },
    };
    out.push(entry);
    last = { key, entry };
  }
  return out;
}

const EVENT_WORDS: Record<string, string> = {
  "connection.connected": "The service said the connection was linked",
  "connection.reconnected": "The service said the connection was reconnected",
  "connection.disconnected": "The service said the connection dropped",
  "connection.failed": "The service said the connection failed",
  "connection.deleted": "The service said the connection was deleted",
  "read.completed": "The service said a sync finished",
};

/** A service event (a webhook) about the company, in words: what it said, and what became of it in Ferry. */
export function serviceEventWords(e: { eventType: string; payload: Record<string, unknown>; processed: boolean; error: string | null }): string {
  const said = EVENT_WORDS[e.eventType] ?? `The service sent ${e.eventType}`;
  const connection = e.payload.connection && typeof e.payload.connection === "object" ? (e.payload.connection as Record<string, unknown>) : null;
  const status = text(connection?.status);
  const dataTypes = Array.isArray(e.payload.dataTypes) ? (e.payload.dataTypes as unknown[]) : [];
  const statuses = new Map<string, number>();
  for (const d of dataTypes) {
    const st = d && typeof d === "object" ? text((d as Record<string, unknown>).status) : null;
    if (st) statuses.set(st, (statuses.get(st) ?? 0) + 1);
  }
  const detail = status ? ` (${status})` : statuses.size ? ` (${[...statuses].map(([st, n]) => `${st} ${n}`).join(", ")})` : "";
  const fate = e.error ? `; Ferry could not act on it yet: ${e.error}` : e.processed ? "" : "; Ferry has not acted on it yet";
  return `${said}${detail} [${e.eventType}]${fate}`;
}

/** An open of the company's reconnect link, in words (db: reconnect_link_opens). */
export function linkOpenWords(o: { outcome: "redirected" | "closed" | "service_error"; detail: string | null }): string {
  switch (o.outcome) {
    case "redirected":
      return "Its reconnect link was opened: Ferry asked the service for a fresh Link URL and sent the browser there";
    case "closed":
      return `Its reconnect link was opened after it had closed: ${o.detail ?? "the engagement no longer watches its companies"}`;
    case "service_error":
      return "Its reconnect link was opened, but the service gave no Link URL: the end customer was asked to try again";
  }
}

/** Entries of every source in one order: by time, calls before what they led to at the same instant. */
export function mergeTimeline(...lists: TimelineEntry[][]): TimelineEntry[] {
  const rank = (e: TimelineEntry) => (e.source === "call" ? 0 : 1);
  return lists.flat().sort((a, b) => a.at.getTime() - b.at.getTime() || rank(a) - rank(b));
}
