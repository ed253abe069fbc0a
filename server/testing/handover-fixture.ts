/**
 * The one set-up of the handover's tests: an engagement brought to step 6 on a real database,
 * with an accepted submission (its OAuth client secret sealed), one migration item per company
 * (credentials sealed by insertMigrationItems) and each item put in the state the engine would
 * have left it in, with the companyId, connectionId, checks and last error the engine writes.
 *
 * Steps 1–4 go through their real flows (server/testing/engagement-flows.ts); step 5 is recorded
 * as a passed single-company test records it.
 */
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { q, type Database } from "@/db/database";
import { migrationItems, serviceCalls } from "@/db/schema";
import { testConfig } from "@/server/testing/caller";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import type { ItemChecks, StoredError } from "@/server/migration/engine/pipeline";
import type { MigrationItemState } from "@/core/migration/states";
import { getManagedPlatform, type PlatformKey } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { engagementThroughFlows, FLOW_CLIENT_SECRET, passSingleCompanyTest, type EngagementThroughFlows, type FlowCompany } from "@/server/testing/engagement-flows";
import { asDatabase, type People } from "@/server/testing/test-db";

/** The last error as the engine stores it (pipeline.ts's StoredError; what a report reads of it, the rest optional). */
type LastError = Pick<StoredError, "kind" | "status" | "error" | "correlationId"> & Partial<StoredError>;
/** Checks as the engine stores them (server/migration/engine/pipeline.ts). */
export type StoredChecks = ItemChecks;

/** Where one company ends, and what the engine recorded on the way. */
export type CompanySpec = {
  state: MigrationItemState;
  name?: string;
  externalRef?: string | null;
  outcomeReason?: string;
  lastError?: LastError;
  checks?: StoredChecks;
  /** The old app's record counts per data type, as the token file gave them. */
  oldCounts?: Record<string, number>;
  /** Failed attempts in a row at its last call, as the engine keeps them (0 once a call succeeded). */
  attempts?: number;
  /** The calls the engine stored for it: answered, and failed (each one request). */
  calls?: { ok: number; failed: number };
};

export type HandoverFixture = {
  engagementId: string;
  reference: string;
  organizationId: string;
  submissionId: string;
  /** The OAuth client secret as submitted (plain, for scanning the database file). */
  clientSecret: string;
  /** The items in file order, with their plain credentials. */
  items: { id: string; name: string; state: MigrationItemState; credentials: Record<string, string> }[];
};

/** Checks of a company whose every data type passed (QuickBooks-like: one type not supported), as the engine stores them. */
export function passingChecks(records = 50): StoredChecks {
  const at = new Date().toISOString();
  return {
    connection: { status: "Linked", at },
    sync: { requestedAt: at, polls: 3, dataTypes: { chartOfAccounts: "Complete", invoices: "Complete", directIncomes: "NotSupported" }, finishedAt: at },
    read: { dataType: "chartOfAccounts", records, at },
  };
}

/** The customer of the test people's organisation (A or B) who submits the file. */
function customerOf(people: People, organizationId: string): Actor {
  if (organizationId === people.orgA) return people.customerA;
  if (organizationId === people.orgB) return people.customerB;
  throw new Error("handover fixture: the organisation must be the test people's A or B");
}

/**
 * Brings a new engagement to step 6: steps 1–4 through their real flows (the customer submits
 * `companies` — three sample ones by default — support accepts, a window is agreed, steps 3 and 4
 * confirmed), step 5 passed as its test records it.
 */
export async function engagementAtStep6(
  db: Db | Database["db"] | Database,
  people: People,
  params: { organizationId: string; platformKey?: PlatformKey; companies?: readonly FlowCompany[]; contacts?: readonly { name: string; email: string }[] },
): Promise<EngagementThroughFlows> {
  const flows = await engagementThroughFlows({
    db,
    config: testConfig(),
    support: people.support,
    customer: customerOf(people, params.organizationId),
    platformKey: params.platformKey ?? "qhyg",
    ...(params.companies ? { companies: params.companies } : {}),
    ...(params.contacts ? { contacts: params.contacts } : {}),
  });
  await passSingleCompanyTest(db, people.support, flows.engagementId);
  return flows;
}

let counter = 0;

/**
 * An engagement at step 6 whose companies ended as `companies` says (by default every final state
 * once and three verified). The platform is QuickBooks Online unless given. Set-up mail (the
 * flows') lands in the outbox like any other.
 */
export async function seedHandover(
  target: Db | Database["db"] | Database,
  people: People,
  params: { companies?: CompanySpec[]; organizationId?: string; platformKey?: PlatformKey; contacts?: { name: string; email: string }[] } = {},
): Promise<HandoverFixture> {
  const db = asDatabase(target).db;
  const platform = getManagedPlatform(params.platformKey ?? "qhyg");
  if (!platform) throw new Error("seedHandover: unknown platform");
  const organizationId = params.organizationId ?? people.orgA;
  const companies = params.companies ?? DEFAULT_COMPANIES;
  const base = (counter += 1) * 100_000;
  const rows = companies.map((c, i) => ({
    name: c.name ?? `Company ${i} Ltd`,
    externalRef: c.externalRef === undefined ? `REF-${i}` : c.externalRef,
    records: 50,
    credentials: credentialsFor(platform, base + i),
  }));
  const eng = await engagementAtStep6(db, people, { organizationId, platformKey: platform.key, companies: rows, contacts: params.contacts });
  const items = await db
    .select({ id: migrationItems.id, name: migrationItems.name, position: migrationItems.position })
    .from(migrationItems)
    .where(eq(migrationItems.engagementId, eng.engagementId))
    .orderBy(migrationItems.position);
  // Every company's end in one transaction: thousands of them are seconds of commits otherwise.
  // (Their calls go in 500 rows to an insert.)
  await asDatabase(target).transaction(function* (tx) {
    const calls: ReturnType<typeof itemEnd>["calls"] = [];
    for (const [i, item] of items.entries()) {
      const end = itemEnd(item.id, companies[i]!, i);
      yield* q.run(tx.update(migrationItems).set(end.item).where(eq(migrationItems.id, item.id)));
      calls.push(...end.calls);
    }
    for (let from = 0; from < calls.length; from += 500) yield* q.run(tx.insert(serviceCalls).values(calls.slice(from, from + 500)));
  }, { isolation: "read committed" });
  return {
    engagementId: eng.engagementId,
    reference: eng.reference,
    organizationId,
    submissionId: eng.submissionId,
    clientSecret: FLOW_CLIENT_SECRET,
    items: items.map((item, i) => ({ id: item.id, name: item.name, state: companies[i]!.state, credentials: rows[i]!.credentials })),
  };
}

const DEFAULT_COMPANIES: CompanySpec[] = [
  { state: "verified" },
  { state: "verified" },
  { state: "verified" },
  { state: "reauth_required" },
  { state: "failed" },
  { state: "set_aside", outcomeReason: "The customer closed this company last month." },
];

/** Writes what the engine would have written for an item that reached `spec.state`. */
export async function finishItem(target: Db | Database["db"] | Database, itemId: string, spec: CompanySpec, i = 0): Promise<void> {
  const end = itemEnd(itemId, spec, i);
  await asDatabase(target).transaction(function* (tx) {
    yield* q.run(tx.update(migrationItems).set(end.item).where(eq(migrationItems.id, itemId)));
    if (end.calls.length) yield* q.run(tx.insert(serviceCalls).values(end.calls));
  }, { isolation: "read committed" });
}

/** What `finishItem` writes: the item's columns and the calls it made. */
function itemEnd(itemId: string, spec: CompanySpec, i: number) {
  const created = spec.state !== "pending" && spec.state !== "set_aside";
  const ids = created ? { companyId: `c0a1b2c3-0000-4000-8000-${String(i).padStart(12, "0")}`, connectionId: `d0e1f2a3-0000-4000-8000-${String(i).padStart(12, "0")}` } : {};
  const defaults: Partial<CompanySpec> =
    spec.state === "verified"
      ? { checks: passingChecks(), attempts: 0, calls: { ok: 7, failed: 0 } }
      : spec.state === "reauth_required"
        ? {
            // The pipeline's account of a refusal, in the sandbox's words for tokens the old app refreshed
            // after the export: as the reason, and as the error of the authorization call that found it.
            outcomeReason: REFRESHED_WORDS,
            lastError: { operation: "authorizeConnection", kind: "reauthorization_required", status: null, error: REFRESHED_WORDS, correlationId: `corr-${itemId.slice(0, 8)}` },
            checks: { connection: { status: "Deauthorized", at: new Date().toISOString() } },
            attempts: 0,
            calls: { ok: 3, failed: 0 },
          }
        : spec.state === "failed"
          ? { lastError: { kind: "server_error", status: 500, error: "Internal server error", correlationId: `corr-${itemId.slice(0, 8)}` }, attempts: 5, calls: { ok: 2, failed: 5 } }
          : {};
  const s = { ...defaults, ...spec };
  const final = ["verified", "reauth_required", "failed", "set_aside"].includes(s.state);
  const item = {
    state: s.state,
    ...ids,
    attempts: s.attempts ?? 0,
    outcomeReason: s.outcomeReason ?? null,
    lastError: s.lastError ?? null,
    lastErrorAt: s.lastError ? new Date() : null,
    checks: s.checks ?? null,
    ...(s.oldCounts ? { oldCounts: s.oldCounts } : {}),
    finishedAt: final ? new Date() : null,
    updatedAt: new Date(),
  };
  const at = new Date();
  const call = (ok: boolean) => ({ runId: "fixture-run", itemId, at, operation: ok ? "getDataStatus" : "createConnection", method: "GET", path: "/", status: ok ? 200 : 500, ok, durationMs: 5, attempts: 1 });
  const calls = [...Array.from({ length: s.calls?.ok ?? 0 }, () => call(true)), ...Array.from({ length: s.calls?.failed ?? 0 }, () => call(false))];
  return { item, calls };
}

/** The sandbox's words for tokens the old app refreshed after the export, as the pipeline keeps them. */
const REFRESHED_WORDS =
  "400 Bad Request: QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used. The customer's own application refreshed the tokens after they were handed over, which retired every earlier token. Intuit answered {\"error\":\"invalid_grant\"}. Reauthorization is required.";
