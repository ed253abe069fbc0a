/**
 * The accounting rule: one active (not Unlinked) accounting connection per company. Shared by the
 * API (a second one answers 409) and the Link flow (which says so on its page).
 */
import { getManagedPlatform, type ManagedPlatform } from "../../platforms";
import type { Store } from "../store/store";

/**
 * Why the company cannot take another active connection to `platform`, in the service's words,
 * or null when it can. `except` is the connection being (re)linked itself.
 */
export function accountingSlotConflict(params: {
  store: Store;
  companyId: string;
  platform: ManagedPlatform;
  except?: string;
}): string | null {
  if (params.platform.sourceType !== "Accounting") return null;
  const active = params.store.connections
    .listByCompany(params.companyId)
    .find((c) => c.id !== params.except && c.status !== "Unlinked" && getManagedPlatform(c.platformKey)?.sourceType === "Accounting");
  if (!active) return null;
  const name = getManagedPlatform(active.platformKey)?.name ?? active.platformKey;
  return `DataConnectionValidationException: Company ${params.companyId} already has an active accounting connection (${active.id}, ${name}, ${active.status}). A company may hold one accounting connection; unlink or delete it first.`;
}
