/**
 * Test support: an engagement taken through steps 1–4 by the real flows, as people would — the
 * customer submits a token file (built from given rows, or from real sandbox tenants created with
 * the control client), support accepts it, support proposes a window and the customer accepts it,
 * and the customer confirms steps 3 and 4. Returns the engagement and its migration items, ready
 * for the single-company test. Each flow queues its mail in the outbox (the config's).
 */
import type { Db } from "@/db/client";
import { readSteps, type Database } from "@/db/database";
import type { AppConfig } from "@/server/config";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { changeTarget } from "@/server/engagements/change-target";
import { createEngagement } from "@/server/engagements/create-engagement";
import {
  acceptSubmission,
  acceptWindow,
  confirmCallbackUrl,
  confirmSyncingDisabled,
  proposeWindow,
  submitIntake,
} from "@/server/engagements/flows";
import { realItemIds } from "@/server/engagements/intake/intake-repository";
import { getEngagement } from "@/server/engagements/get-engagement";
import { tokenFileCsv, type TokenFileCompany } from "@/server/intake";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { getManagedPlatform, type PlatformKey } from "@/server/platforms";
import type { SandboxControl, Tenant, TenantOptions } from "@/server/sandbox/controls/control-client";
import type { Actor } from "@/core/accounts/actor";
import { asDatabase } from "./test-db";

export type FlowCompany = TokenFileCompany;

export type EngagementThroughFlows = {
  engagementId: string;
  reference: string;
  submissionId: string;
  /** The migration items, in file order. */
  itemIds: string[];
  /** The accepted window (null when stopped before step 2). */
  windowId: string | null;
  /** The sandbox tenants behind the companies, in file order (empty when rows were given). */
  tenants: Tenant[];
};

/** The details every test submission uses (the secret is a known value tests may scan for). */
export const FLOW_CLIENT_SECRET = "cs_test_flow_secret_0123456789";

/** `n` valid companies for a platform (distinct credentials, a `records` hint each). */
export function sampleCompanies(platformKey: PlatformKey, n: number): FlowCompany[] {
  const platform = getManagedPlatform(platformKey)!;
  return Array.from({ length: n }, (_, i) => ({ name: `Company ${i + 1} Ltd`, credentials: credentialsFor(platform, i), externalRef: `REF-${i + 1}`, records: 20 + i }));
}

type FlowDeps = { db: Db | Database["db"] | Database; config: AppConfig; support: Actor; customer: Actor };

/** Step 1 on an existing engagement: the customer submits a token file of `companies`, support accepts it. */
export async function completeIntake(
  deps: FlowDeps,
  params: { engagementId: string; companies?: readonly FlowCompany[]; fileName?: string; contacts?: readonly { name: string; email: string }[] },
): Promise<{ submissionId: string }> {
  const { db, config, support, customer } = deps;
  const database = asDatabase(db);
  const { engagementId } = params;
  const eng = await getEngagement(database, support, engagementId);
  const platformKey = eng.platform.key as PlatformKey;
  const submitted = await submitIntake(database, { ring: config.keyRing, notify: config }, customer, {
    engagementId,
    form: {
      clientId: "flow-client-id",
      clientSecret: FLOW_CLIENT_SECRET,
      contacts: params.contacts ? [...params.contacts] : [{ name: customer.name, email: customer.email || "contact@example.test" }],
    },
    file: { name: params.fileName ?? "companies.csv", bytes: tokenFileCsv({ platformKey, companies: params.companies ?? sampleCompanies(platformKey, 3) }) },
  });
  if (!submitted.ok) {
    const problems = submitted.check.problems.map((p) => `${p.line ?? "-"}: ${p.message}`).join("\n");
    throw new Error(`completeIntake: the token file was refused:\n${problems}`);
  }
  await acceptSubmission(database, { notify: config }, support, { engagementId, submissionId: submitted.submissionId });
  return { submissionId: submitted.submissionId };
}

/**
 * Step 2 on an engagement whose step 1 is done: support proposes a window, the customer accepts it.
 * `proposedAt` is when support proposed it (default now): a window must start after its proposal,
 * so one already under way is agreed as proposed earlier.
 */
export async function agreeWindow(deps: FlowDeps, params: { engagementId: string; startsAt?: Date; endsAt?: Date; proposedAt?: Date }): Promise<{ windowId: string }> {
  const { db, config, support, customer } = deps;
  const database = asDatabase(db);
  const { engagementId } = params;
  const startsAt = params.startsAt ?? new Date(Date.now() + 7 * 86_400_000);
  const endsAt = params.endsAt ?? new Date(startsAt.getTime() + 8 * 3_600_000);
  const proposed = await proposeWindow(database, { sandbox: config.sandbox, notify: config }, support, { engagementId, windows: [{ startsAt, endsAt }], now: params.proposedAt });
  const windowId = proposed.windowIds[0]!;
  await acceptWindow(database, { notify: config }, customer, { engagementId, windowId });
  return { windowId };
}

/**
 * Takes a new engagement through steps 1 to `upTo` (default 4). Give `companies` (credentials
 * included), or `sandbox` with the tenants to create there (their credentials become the file);
 * neither gives three sample companies.
 */
export async function engagementThroughFlows(params: {
  db: Db | Database["db"] | Database;
  config: AppConfig;
  support: Actor;
  /** A customer of the organisation the engagement is for. */
  customer: Actor;
  platformKey?: PlatformKey;
  companies?: readonly FlowCompany[];
  sandbox?: { control: SandboxControl; tenants: readonly TenantOptions[] };
  /** Points the engagement at this service target before anything else (e.g. a test sandbox's). */
  serviceTargetId?: string;
  upTo?: 1 | 2 | 3 | 4;
  /** The window agreed in step 2 (default: 7 days on, 8 hours long); see agreeWindow for `proposedAt`. */
  window?: { startsAt: Date; endsAt: Date; proposedAt?: Date };
  fileName?: string;
  /** The contacts for the migration window the customer names (default: the customer). */
  contacts?: readonly { name: string; email: string }[];
}): Promise<EngagementThroughFlows> {
  const { db, config, support, customer } = params;
  const database = asDatabase(db);
  const platformKey = params.platformKey ?? "qhyg";
  const upTo = params.upTo ?? 4;
  if (!customer.organizationId) throw new Error("engagementThroughFlows: the customer needs an organisation");

  const tenants: Tenant[] = [];
  let companies: FlowCompany[] = [...(params.companies ?? sampleCompanies(platformKey, 3))];
  if (params.sandbox) {
    for (const options of params.sandbox.tenants) tenants.push(await params.sandbox.control.createTenant(platformKey, options));
    companies = tenants.map((t, i) => ({
      name: params.sandbox!.tenants[i]!.name,
      credentials: t.credentials,
      externalRef: `T-${i + 1}`,
      records: params.sandbox!.tenants[i]!.records ?? null,
    }));
  }

  const created = await createEngagement(database, { notify: config }, support, { organizationId: customer.organizationId, platformKey });
  const engagementId = created.id;
  if (params.serviceTargetId) await changeTarget(database, { notify: config }, support, { engagementId, serviceTargetId: params.serviceTargetId });

  const deps = { db, config, support, customer };
  const { submissionId } = await completeIntake(deps, { engagementId, companies, fileName: params.fileName, contacts: params.contacts });
  const windowId = upTo >= 2 ? (await agreeWindow(deps, { engagementId, ...params.window })).windowId : null;
  if (upTo >= 3) await confirmCallbackUrl(database, { notify: config }, customer, { engagementId });
  if (upTo >= 4) await confirmSyncingDisabled(database, { notify: config }, customer, { engagementId });

  return { engagementId, reference: created.reference, submissionId, itemIds: await readSteps(database, (tx) => realItemIds(tx, engagementId)), windowId, tenants };
}

/** Step 5 passed, as the single-company test records it (its flow's evidence). */
export async function passSingleCompanyTest(db: Db | Database["db"] | Database, staff: Actor, engagementId: string): Promise<void> {
  await asDatabase(db).transaction(
    (tx) =>
      applyStepAction(tx, staff, {
        engagementId,
        step: 5,
        action: "complete",
        via: "flow",
        evidence: { kind: "test_passed", runId: "fixture-run", itemId: "fixture-item", companyId: "company-0", connectionId: "connection-0" },
      }),
    { isolation: "read committed" },
  );
}
