/**
 * THE one place the engine's tests get "an engagement ready for step 5 with these companies": an
 * organisation, an engagement on a sandbox service target, simulated tenants whose credentials the
 * customer exports into a token file (some of them rotated after the export, as when the customer's
 * old app refreshed them), and steps 1–4 done through the real flows
 * (server/testing/engagement-flows.ts): the customer submits the file, support accepts it, a window
 * is proposed and accepted (one under way now), the customer confirms steps 3 and 4.
 */
import type { Db } from "@/db/client";
import type { Database } from "@/db/database";
import { asc, eq } from "drizzle-orm";
import { migrationItems, users } from "@/db/schema";
import { createOrganization } from "@/server/accounts/organizations";
import type { AppConfig } from "@/server/config";
import { getManagedPlatform, type PlatformKey } from "@/server/platforms";
import type { CredentialKind, SandboxControl, SyncMode, Tenant, TenantOptions } from "@/server/sandbox/controls/control-client";
import type { Actor } from "@/core/accounts/actor";
import type { KeyRing } from "@/server/security/secrets";
import { createServiceTarget } from "@/server/targets/targets";
import { engagementThroughFlows } from "@/server/testing/engagement-flows";
import { realItems } from "../items/item-scope";
import { asDatabase } from "./test-db";

/** The test sandbox's default limit per client (10,000 requests a second), as a target's known per-minute limit. */
export const SANDBOX_CLIENT_REQUESTS_PER_MINUTE = 600_000;
/** The test sandbox keeps no daily quota (unless a fault sets one): a target's known quota far above any test's needs. */
export const SANDBOX_CLIENT_DAILY_QUOTA = 100_000_000;

export type ReadyCompany = {
  name: string;
  /** Records per data type of the simulated tenant (and the file's `records` hint). */
  records?: number;
  externalRef?: string;
  /** The customer's old app refreshed the tokens after the file was exported. */
  rotatedAfterExport?: boolean;
  /** Data types whose syncs end FetchError on this tenant. */
  fetchErrorDataTypes?: string[];
  /**
   * Wrong tokens in the file for this tenant, of the sandbox's kind (never issued, another app's,
   * revoked…); by default the file holds the tenant's own tokens.
   */
  tokens?: Exclude<CredentialKind, "valid">;
  /** More of the simulated tenant's options (validation issues, a Zoho Books reduced dataset). */
  tenant?: Pick<TenantOptions, "validationIssues" | "dailyLimitRecords">;
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
  /** That client's id on the sandbox, when it was made here (to change how its syncs go: setSyncs, releaseSyncs). */
  sandboxClientId: string | null;
  /** The customer who submitted the file (and confirmed steps 3 and 4 when it went that far). */
  customer: Actor;
  /** One per company, in file order: the item, its tenant on the sandbox. */
  items: { id: string; name: string; tenantId: string; records: number | null }[];
};

/**
 * Makes an engagement ready for its single-company test (see the module comment). `support` acts
 * on the checklist; `target` is an existing service target (with its API key), or one is made on
 * a new sandbox client of the given plan.
 */
export async function readyEngagement(
  on: Db | Database["db"] | Database,
  params: {
    ring: KeyRing;
    support: Actor;
    sandbox: { url: string; control: SandboxControl };
    companies: readonly ReadyCompany[];
    platformKey?: PlatformKey;
    organizationId?: string;
    /**
     * An existing target (with its API key), a target of the engagement's organisation for this
     * API key, or (default) one on a new sandbox client of the given plan.
     */
    target?: { id: string; apiKey: string } | { apiKey: string; name?: string } | { plan: "free" | "paid" };
    /** Stops after step 1 (the file accepted, the window and confirmations still to come). */
    stopAfterStep1?: boolean;
    /** The customer who submits the file and confirms steps 3 and 4 (default: a new one of the organisation). */
    customer?: Actor;
    /**
     * How the new sandbox client's syncs go (default "instant": a sync is complete when it is
     * queued, so no test waits on simulated fetch time it does not test; "timed" for tests of a sync
     * under way, "held" until released).
     */
    syncs?: SyncMode;
  },
): Promise<ReadyEngagement> {
  const { ring, support, sandbox } = params;
  const database = asDatabase(on);
  const db = database.db;
  const platform = getManagedPlatform(params.platformKey ?? "qhyg");
  if (!platform) throw new Error(`${params.platformKey} is not a managed platform`);
  const suffix = crypto.randomUUID().slice(0, 8);

  const organizationId = params.organizationId ?? (await createOrganization(database, support, { name: `Ready Org ${suffix}` })).id;
  // A sandbox client is the customer's own account there, so its target is the organisation's. Its
  // known limits are the test sandbox's (10,000 requests a second per client): the run paces to the
  // sandbox's headers as on the built-in sandbox, not to the real service's 1,000 a minute.
  const ownTarget = async (apiKey: string, name: string) => ({
    apiKey,
    ...(await createServiceTarget(database, ring, null, { name, baseUrl: sandbox.url, apiKey, kind: "sandbox", organizationId, requestsPerMinute: SANDBOX_CLIENT_REQUESTS_PER_MINUTE, dailyQuota: SANDBOX_CLIENT_DAILY_QUOTA })),
  });
  let target: { id: string; apiKey: string };
  let sandboxClientId: string | null = null;
  if (params.target && "id" in params.target) {
    target = params.target;
  } else if (params.target && "apiKey" in params.target) {
    target = await ownTarget(params.target.apiKey, params.target.name ?? `Sandbox ${suffix}`);
  } else {
    const { apiKey, clientId } = await sandbox.control.createClient({ plan: params.target?.plan ?? "paid", name: `Test client ${suffix}`, syncs: params.syncs ?? "instant" });
    sandboxClientId = clientId;
    target = await ownTarget(apiKey, `Sandbox ${suffix}`);
  }

  // The customer's export: each tenant's credentials as they were when the file was made.
  const exported: { company: ReadyCompany; tenant: Tenant; credentials: Record<string, string> }[] = [];
  for (const company of params.companies) {
    const tenant = await sandbox.control.createTenant(platform.key, {
      name: company.name,
      ...(company.records === undefined ? {} : { records: company.records }),
      ...(company.fetchErrorDataTypes ? { fetchErrorDataTypes: company.fetchErrorDataTypes } : {}),
      ...company.tenant,
    });
    const credentials = company.tokens ? (await sandbox.control.issueCredentials(platform.key, tenant.tenantId, company.tokens)).credentials : tenant.credentials;
    exported.push({ company, tenant, credentials });
  }
  for (const { company, tenant } of exported) {
    if (company.rotatedAfterExport) await sandbox.control.rotate(platform.key, tenant.tenantId);
  }

  const customer = params.customer ?? (await customerOf(db, organizationId, suffix));
  const config: AppConfig = {
    appUrl: "http://ferry.test",
    mail: { from: "Ferry <ferry@test>", log: () => {}, keyRing: ring },
    keyRing: ring,
    purgeAfterDays: 14,
  };
  const flows = await engagementThroughFlows({
    db: database,
    config,
    support,
    customer,
    platformKey: platform.key,
    serviceTargetId: target.id,
    upTo: params.stopAfterStep1 ? 1 : 4,
    // The engagement is readied for its migration now: the agreed window is under way (proposed
    // the day before, started an hour ago, a week long), so a bulk run starts inside it.
    window: { proposedAt: new Date(Date.now() - 86_400_000), startsAt: new Date(Date.now() - 3_600_000), endsAt: new Date(Date.now() + 7 * 86_400_000) },
    companies: exported.map(({ company, credentials }) => ({
      name: company.name,
      credentials,
      externalRef: company.externalRef ?? null,
      records: company.records ?? null,
    })),
  });
  const eng = { id: flows.engagementId, reference: flows.reference };
  const submissionId = flows.submissionId;

  const rows = await db.select().from(migrationItems).where(realItems(eng.id)).orderBy(asc(migrationItems.position));
  return {
    engagementId: eng.id,
    reference: eng.reference,
    organizationId,
    platformKey: platform.key,
    submissionId,
    serviceTargetId: target.id,
    apiKey: target.apiKey,
    sandboxClientId,
    customer,
    items: rows.map((r, i) => ({ id: r.id, name: r.name, tenantId: exported[i]!.tenant.tenantId, records: r.recordsHint })),
  };
}

let customers = 0;

/** A customer of the organisation for the flows: an existing one, or a new one who never signs in (no password). */
async function customerOf(db: Database["db"], organizationId: string, suffix: string): Promise<Actor> {
  const [existing] = await db.select().from(users).where(eq(users.organizationId, organizationId)).limit(1);
  if (existing) return { id: existing.id, email: existing.email, name: existing.name, role: existing.role, organizationId };
  customers += 1;
  const [u] = await db
    .insert(users)
    .values({
      email: `customer-${suffix}-${customers}@ready.test`,
      name: `Customer ${suffix}`,
      role: "customer",
      organizationId,
    })
    .returning();
  if (!u) throw new Error("readyEngagement: the customer was not made");
  return { id: u.id, email: u.email, name: u.name, role: u.role, organizationId };
}
