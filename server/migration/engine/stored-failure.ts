/**
 * Reading a failure the engine stored — an item's `lastError`, a test run's `failure` (both
 * pipeline.ts's StoredError, as JSON) — as the one shape every screen shows (core/migration/failure.ts).
 * Read leniently: unknown fields are left out and a malformed value reads as absent, so one odd row
 * (written by an older Ferry, or by hand) never breaks a report of thousands or a run's page.
 */
import { z } from "zod";
import type { Failure } from "@/core/migration/failure";

// The fields the handover report has always required are strict (a failure without them is not
// one); the others only add to it, so an odd value there reads as unknown rather than dropping it.
const ZStoredFailure = z.object({
  operation: z.string().nullish().catch(null),
  kind: z.string().nullish(),
  status: z.number().int().nullish(),
  service: z.string().nullish().catch(null),
  error: z.string().nullish(),
  correlationId: z.string().nullish(),
  validation: z
    .object({ errors: z.array(z.object({ itemId: z.string().nullish(), message: z.string() }).loose()).nullish() })
    .loose()
    .nullish(),
  at: z.string().nullish().catch(null),
});

/** The stored failure, or null when there is none or it cannot be read. */
export function readFailure(raw: unknown): Failure | null {
  if (raw === null || raw === undefined) return null;
  const parsed = ZStoredFailure.safeParse(raw);
  if (!parsed.success) return null;
  const e = parsed.data;
  if (!e.error && !e.kind && e.status == null) return null;
  const at = e.at ? new Date(e.at) : null;
  return {
    operation: e.operation ?? null,
    kind: e.kind ?? null,
    status: e.status ?? null,
    service: e.service ?? null,
    error: e.error ?? "",
    correlationId: e.correlationId ?? null,
    validation: (e.validation?.errors ?? []).map((v) => ({ itemId: v.itemId ?? null, message: v.message })),
    at: at && !Number.isNaN(at.getTime()) ? at : null,
  };
}
