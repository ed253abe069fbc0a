/**
 * THE one place tests get "an engagement ready for step 5 with these companies": an organisation,
 * an engagement on a sandbox service target, an accepted token file of simulated tenants (some of
 * them rotated after the export, as when the customer's old app refreshed them), and steps 1–4
 * done. Used by the engine's tests and, through e2e/fixtures.ts, by Playwright.
 *
 * Today it completes steps 1–4 by staff with a note and inserts the items directly; once the real
 * step 1–4 flows exist (server/testing/engagement-flows.ts) this file switches over to them, and
 * nothing else changes.
 */
import type { Db } from "@/db/client";
import { asc } from "drizzle-orm";
import { intakeSubmissions, migrationItems } from "@/db/schema";
import { createOrganization } from "@/server/accounts/organizations";
import { actOnStep } from "@/server/engagements/act-on-step";
import { changeTarget } from "@/server/engagements/change-target";
import { createEngagement } from "@/server/engagements/create-engagement";
import { getManagedPlatform, type PlatformKey } from "@/server/platforms";
import type { SandboxControl, Tenant } from "@/server/sandbox/controls/control-client";
import type { Actor } from "@/server/security/actor";
import type { KeyRing } from "@/server/security/secrets";
import { createServiceTarget } from "@/server/targets/targets";
import { insertMigrationItems } from "../insert-items";
import { realItems } from "../item-scope";

export type ReadyCompany = {
  name: string;
  /** Records per data type of the simulated tenant (and the file's `records` hint). */
  records?: number;
  externalRef?: string;
  /** The customer's old app refreshed the tokens after the file was exported. */
  rotatedAfterExport?: boolean;
  /** Data types whose syncs end FetchError on this tenant. */
  fetchErrorDataTypes?: string[];
};

export type ReadyEngagement = {
  engagementId: string;
  reference: string;
  organizationId: string;
  platformKey: PlatformKey;
  submissionId: string;
  serviceTargetId: string;
  /** The sandbox client the target's API key belongs to. */
  apiKey: string;
  /** One per company, in file order: the item, its tenant on the sandbox. */
  items: { id: string; name: string; tenantId: string; records: number | null }[];
};

/**
 * Makes an engagement ready for its single-company test (see the module comment). `support` acts
 * on the checklist; `target` is an existing service target (with its API key), or one is made on
 * a new sandbox client of the given plan.
 */
export async function readyEngagement(
  db: Db,
  params: {
    ring: KeyRing;
    support: Actor;
    sandbox: { url: string; control: SandboxControl };
    companies: readonly ReadyCompany[];
    platformKey?: PlatformKey;
    organizationId?: string;
    target?: { id: string; apiKey: string } | { plan: "free" | "paid" };
    /** Stops after step 1 (the file accepted, the window and confirmations still to come). */
    stopAfterStep1?: boolean;
  },
): Promise<ReadyEngagement> {
  const { ring, support, sandbox } = params;
  const platform = getManagedPlatform(params.platformKey ?? "qhyg");
  if (!platform) throw new Error(`${params.platformKey} is not a managed platform`);
  const suffix = crypto.randomUUID().slice(0, 8);

  let target: { id: string; apiKey: string };
  if (params.target && "id" in params.target) {
    target = params.target;
  } else {
    const { apiKey } = await sandbox.control.createClient({ plan: params.target?.plan ?? "paid", name: `Test client ${suffix}` });
    target = { apiKey, ...createServiceTarget(db, ring, null, { name: `Sandbox ${suffix}`, baseUrl: sandbox.url, apiKey, kind: "sandbox" }) };
  }

  // The customer's export: each tenant's credentials as they were when the file was made.
  const exported: { company: ReadyCompany; tenant: Tenant }[] = [];
  for (const company of params.companies) {
    const tenant = await sandbox.control.createTenant(platform.key, {
      name: company.name,
      ...(company.records === undefined ? {} : { records: company.records }),
      ...(company.fetchErrorDataTypes ? { fetchErrorDataTypes: company.fetchErrorDataTypes } : {}),
    });
    exported.push({ company, tenant });
  }
  for (const { company, tenant } of exported) {
    if (company.rotatedAfterExport) await sandbox.control.rotate(platform.key, tenant.tenantId);
  }

  const organizationId =
    params.organizationId ?? createOrganization(db, support, { name: `Ready Org ${suffix}` }).id;
  const eng = createEngagement(db, support, { organizationId, platformKey: platform.key });
  changeTarget(db, support, { engagementId: eng.id, serviceTargetId: target.id });
  actOnStep(db, support, { engagementId: eng.id, step: 1, action: "start" });

  const now = new Date();
  const submissionId = crypto.randomUUID();
  db.transaction((tx) => {
    tx.insert(intakeSubmissions)
      .values({
        id: submissionId,
        engagementId: eng.id,
        status: "accepted",
        clientId: `client-${suffix}`,
        clientSecretMask: "••••",
        contacts: [],
        fileName: "tokens.csv",
        fileKind: "csv",
        rowCount: params.companies.length,
        warningCount: 0,
        countsByKind: {},
        preview: [],
        submittedAt: now,
        reviewedById: support.id,
        reviewedAt: now,
      })
      .run();
    insertMigrationItems(tx, {
      ring,
      platform,
      engagementId: eng.id,
      submissionId,
      at: now,
      rows: exported.map(({ company, tenant }, i) => ({
        line: i + 2,
        name: company.name,
        externalRef: company.externalRef ?? null,
        records: company.records ?? null,
        credentials: tenant.credentials,
      })),
    });
  });
  actOnStep(db, support, { engagementId: eng.id, step: 1, action: "complete", note: `Token file of ${params.companies.length} companies accepted.` });
  if (!params.stopAfterStep1) {
    for (const step of [2, 3, 4] as const) {
      actOnStep(db, support, { engagementId: eng.id, step, action: "complete", note: `The customer confirmed step ${step} (test set-up).` });
    }
  }

  const rows = db.select().from(migrationItems).where(realItems(eng.id)).orderBy(asc(migrationItems.position)).all();
  return {
    engagementId: eng.id,
    reference: eng.reference,
    organizationId,
    platformKey: platform.key,
    submissionId,
    serviceTargetId: target.id,
    apiKey: target.apiKey,
    items: rows.map((r, i) => ({ id: r.id, name: r.name, tenantId: exported[i]!.tenant.tenantId, records: r.recordsHint })),
  };
}
