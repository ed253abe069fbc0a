/** New tenants: an end customer's account at a simulated platform, with its identity values. */
import { randomUUID } from "node:crypto";
import type { Store, TenantRow } from "../store/store";
import type { ValidationIssueCounts } from "../store/tenants-table";
import { newIdentity, type PlatformProfile } from "./profiles";

/** Default number of records per data type in a new tenant. */
export const DEFAULT_TENANT_RECORDS = 50;
/** Default time a tenant's platform takes to process a write. */
export const DEFAULT_PUSH_DELAY_SECONDS = 1;

/** Stores a new tenant of the platform (synchronous: callers compose it in a transaction). */
export function createTenant(params: {
  store: Store;
  profile: PlatformProfile;
  name: string;
  now: number;
  records?: number;
  fetchErrorTypes?: string[];
  pushDelaySeconds?: number;
  /** Validation issues per data type (default: none). */
  validationIssues?: ValidationIssueCounts;
  /** Zoho Books: records per data type a fetch gets before the shared daily API limit runs out (default: all). */
  dailyLimitRecords?: number | null;
  /** Its identity values (default: new ones, see newIdentity). */
  identity?: Record<string, string>;
}): TenantRow {
  const tenant: TenantRow = {
    id: randomUUID(),
    platformKey: params.profile.platform.key,
    name: params.name,
    records: params.records ?? DEFAULT_TENANT_RECORDS,
    identity: params.identity ?? newIdentity(params.profile, params.name),
    fetchErrorTypes: params.fetchErrorTypes ?? [],
    validationIssues: params.validationIssues ?? {},
    dailyLimitRecords: params.dailyLimitRecords ?? null,
    pushDelayMs: Math.round((params.pushDelaySeconds ?? DEFAULT_PUSH_DELAY_SECONDS) * 1000),
    generation: 1,
    createdAt: params.now,
  };
  params.store.tenants.insert(tenant);
  return tenant;
}
