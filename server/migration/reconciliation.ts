/**
 * The one reconciliation of an engagement's migration (see core/migration/reconciliation.ts):
 * what the bulk panel, the handover card, the timeline's bulk and handover entries and the
 * handover report all show. A transaction step: callers that record it with a change read it
 * inside their transaction; reads outside one run it through `readSteps`.
 */
import type { Steps, Tx } from "@/db/database";
import type { Reconciliation } from "@/core/migration/reconciliation";
import { reconciliationCounts, reconciliationPilot, type ReconciliationCounts } from "./reconciliation-repository";

/** The reconciliation from its counts: the companies not in a final state are what is left of those supplied. */
export function toReconciliation(counts: ReconciliationCounts, pilot: Reconciliation["pilot"]): Reconciliation {
  const final = counts.verified + counts.reconnectPending + counts.reauthRequired + counts.setAside + counts.failed;
  return { ...counts, inProgress: counts.supplied - final, pilot };
}

/** The engagement's reconciliation now. */
export function* reconcile(tx: Tx, engagementId: string): Steps<Reconciliation> {
  return toReconciliation(yield* reconciliationCounts(tx, engagementId), yield* reconciliationPilot(tx, engagementId));
}
