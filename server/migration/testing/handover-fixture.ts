/**
 * The one set-up of the handover's tests: an engagement brought to step 6 on a real database,
 * with an accepted submission (its OAuth client secret sealed), one migration item per company
 * (credentials sealed by insertMigrationItems) and each item put in the state the engine would
 * have left it in, with the companyId, connectionId, checks and last error the engine writes.
 *
 * Steps 1–5 are completed by staff with a note (actOnStep) today; once steps 1, 2 and 5 complete
 * only through their flows, this helper is the one place to switch.
 */
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { intakeSubmissions, migrationItems } from "@/db/schema";
import { actOnStep, applyStepAction } from "@/server/engagements/act-on-step";
import type { ItemChecks } from "@/server/migration/pipeline";
import { createEngagement } from "@/server/engagements/create-engagement";
import { credentialsFor } from "@/server/intake/test-support";
import { insertMigrationItems } from "@/server/migration/insert-items";
import { sealClientSecret } from "@/server/migration/item-credentials";
import type { MigrationItemState } from "@/server/migration/states";
import { getManagedPlatform } from "@/server/platforms";
import type { Actor } from "@/server/security/actor";
import { TEST_KEY_RING, type People } from "@/server/testing/test-db";

/** The last error as the engine stores it (the service client's error, never a secret). */
export type StoredError = { kind: string; status: number | null; error: string; correlationId: string | null; validation?: unknown };
/** Check results as the engine stores them. */
/** Checks as the engine stores them (server/migration/pipeline.ts). */
export type StoredChecks = ItemChecks;

/** Where one company ends, and what the engine recorded on the way. */
export type CompanySpec = {
  state: MigrationItemState;
  name?: string;
  externalRef?: string | null;
  outcomeReason?: string;
  lastError?: StoredError;
  checks?: StoredChecks;
  attempts?: number;
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

/** Brings a new engagement to step 6: steps 1–5 completed by staff with a note. */
export function engagementAtStep6(db: Db, staff: Actor, params: { organizationId: string; platformKey?: string }): { id: string; reference: string } {
  const eng = createEngagement(db, staff, { organizationId: params.organizationId, platformKey: params.platformKey ?? "qhyg" });
  for (const step of [1, 2, 3, 4] as const) {
    actOnStep(db, staff, { engagementId: eng.id, step, action: "complete", note: "Done for the handover test." });
  }
  // Step 5 completes only through a passed single-company test: its flow's evidence here.
  db.transaction((tx) =>
    applyStepAction(tx, staff, {
      engagementId: eng.id,
      step: 5,
      action: "complete",
      via: "flow",
      evidence: { kind: "test_passed", runId: "handover-fixture-run", itemId: "handover-fixture-item", companyId: "company-0", connectionId: "connection-0" },
    }),
  );
  return eng;
}

let counter = 0;

/**
 * An engagement at step 6 whose companies ended as `companies` says (by default every final state
 * once and three verified). The platform is QuickBooks Online unless given.
 */
export function seedHandover(
  db: Db,
  people: People,
  params: { companies?: CompanySpec[]; organizationId?: string; platformKey?: string; contacts?: { name: string; email: string }[] } = {},
): HandoverFixture {
  const platform = getManagedPlatform(params.platformKey ?? "qhyg");
  if (!platform) throw new Error("seedHandover: unknown platform");
  const organizationId = params.organizationId ?? people.orgA;
  const companies = params.companies ?? DEFAULT_COMPANIES;
  const eng = engagementAtStep6(db, people.support, { organizationId, platformKey: platform.key });
  const base = (counter += 1) * 100_000;
  const clientSecret = `oauth-client-secret-${base}-5f3c9a7e1d`;
  const at = new Date();
  const rows = companies.map((c, i) => ({
    line: i + 2,
    name: c.name ?? `Company ${i} Ltd`,
    externalRef: c.externalRef === undefined ? `REF-${i}` : c.externalRef,
    records: 50,
    credentials: credentialsFor(platform, base + i),
  }));
  const submissionId = db.transaction((tx) => {
    const submissionId = crypto.randomUUID();
    tx.insert(intakeSubmissions)
      .values({
        id: submissionId,
        engagementId: eng.id,
        status: "accepted",
        clientId: "client-id-123",
        clientSecretCipher: sealClientSecret(TEST_KEY_RING, { engagementId: eng.id, submissionId }, clientSecret),
        clientSecretMask: `••••${clientSecret.slice(-4)}`,
        contacts: params.contacts ?? [],
        fileName: "tokens.csv",
        fileKind: "csv",
        rowCount: rows.length,
        warningCount: 0,
        countsByKind: {},
        preview: [],
        submittedById: people.customerA.id,
        submittedAt: at,
        reviewedById: people.support.id,
        reviewedAt: at,
      })
      .run();
    insertMigrationItems(tx, { ring: TEST_KEY_RING, platform, engagementId: eng.id, submissionId, rows, at });
    return submissionId;
  });
  const items = db
    .select({ id: migrationItems.id, name: migrationItems.name, position: migrationItems.position })
    .from(migrationItems)
    .where(eq(migrationItems.engagementId, eng.id))
    .orderBy(migrationItems.position)
    .all();
  items.forEach((item, i) => finishItem(db, item.id, companies[i]!, i));
  return {
    engagementId: eng.id,
    reference: eng.reference,
    organizationId,
    submissionId,
    clientSecret,
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
export function finishItem(db: Db, itemId: string, spec: CompanySpec, i = 0): void {
  const created = spec.state !== "pending" && spec.state !== "set_aside";
  const ids = created ? { companyId: `c0a1b2c3-0000-4000-8000-${String(i).padStart(12, "0")}`, connectionId: `d0e1f2a3-0000-4000-8000-${String(i).padStart(12, "0")}` } : {};
  const defaults: Partial<CompanySpec> =
    spec.state === "verified"
      ? { checks: passingChecks() }
      : spec.state === "reauth_required"
        ? {
            outcomeReason: "Deauthorized: 400 invalid_grant — the refresh token is invalid, expired or revoked.",
            checks: { connection: { status: "Deauthorized", at: new Date().toISOString() } },
          }
        : spec.state === "failed"
          ? { lastError: { kind: "server_error", status: 500, error: "Internal server error", correlationId: `corr-${itemId.slice(0, 8)}` }, attempts: 5 }
          : {};
  const s = { ...defaults, ...spec };
  const final = ["verified", "reauth_required", "failed", "set_aside"].includes(s.state);
  db.update(migrationItems)
    .set({
      state: s.state,
      ...ids,
      attempts: s.attempts ?? (created ? 1 : 0),
      outcomeReason: s.outcomeReason ?? null,
      lastError: s.lastError ?? null,
      lastErrorAt: s.lastError ? new Date() : null,
      checks: s.checks ?? null,
      finishedAt: final ? new Date() : null,
      updatedAt: new Date(),
    })
    .where(eq(migrationItems.id, itemId))
    .run();
}
