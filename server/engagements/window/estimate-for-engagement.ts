/** The duration estimate for an engagement's current companies against its target's limits. */
import { ASSUMED_SERVICE_SYNC, DEFAULT_CONCURRENCY, DEFAULT_POLL_INTERVAL_SECONDS, DEFAULT_RECORDS_PER_COMPANY, estimateMigration, sandboxSyncModel, type MigrationEstimate } from "@/server/intake";
import { formatDuration } from "@/core/format";
import type { ManagedPlatform } from "@/server/platforms";
import type { Steps, Tx } from "@/db/database";
import { recordsSummary } from "../intake/intake-repository";
import type { EstimateView } from "@/core/engagements/window-schemas";
import type { TargetLimits } from "./target-limits";

/** The estimate and its view, or null when the engagement has no companies yet. */
export function* estimateForEngagement(
  tx: Tx,
  params: { engagementId: string; platform: ManagedPlatform; target: TargetLimits },
): Steps<{ estimate: MigrationEstimate; view: EstimateView } | null> {
  const summary = yield* recordsSummary(tx, params.engagementId);
  if (!summary.companies) return null;
  const estimate = estimateMigration({
    companies: summary.companies,
    records: { hintedSum: summary.hintedSum, hintedCompanies: summary.hintedCompanies, defaultPerCompany: DEFAULT_RECORDS_PER_COMPANY },
    limits: params.target.limits,
    sync: params.target.kind === "service" ? ASSUMED_SERVICE_SYNC : sandboxSyncModel(params.platform),
    pollIntervalSeconds: DEFAULT_POLL_INTERVAL_SECONDS,
    concurrency: DEFAULT_CONCURRENCY,
  });
  return {
    estimate,
    view: {
      totalSeconds: estimate.totalSeconds,
      total: formatDuration(estimate.totalSeconds),
      bottleneck: estimate.bottleneck,
      companies: summary.companies,
      inputs: estimate.inputs,
      formula: estimate.formula,
      worked: estimate.worked,
      limitsSource: params.target.source,
    },
  };
}
