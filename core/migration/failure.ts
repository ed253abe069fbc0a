/**
 * A failed call as every screen shows it — a company's last error (bulk run, handover report) and
 * a test run's failure are one thing: the service's status, error text and correlationId kept
 * intact for support to quote. Read from what the engine stored by
 * server/migration/engine/stored-failure.ts; shown by app/_components/migration/failure-details.tsx.
 */
import { z } from "zod";

export const ZFailure = z.object({
  /** The call that failed (createCompany, authorizeConnection…), when known. */
  operation: z.string().nullable(),
  /** What went wrong in Ferry's words (server_error, company_limit, reauthorization_required…), when known. */
  kind: z.string().nullable(),
  /** The service's HTTP status; null when no answer came (a timeout, a network fault) or none applies. */
  status: z.number().int().nullable(),
  /** The part of the service that answered (its error's `service` field), when it said. */
  service: z.string().nullable(),
  /** The service's error text as it gave it (or Ferry's words when no answer came). */
  error: z.string(),
  correlationId: z.string().nullable(),
  /** The service's validation messages, each with the field it names (itemId) when it names one. */
  validation: z.array(z.object({ itemId: z.string().nullable(), message: z.string() })),
  /** When it happened, when known. */
  at: z.date().nullable(),
});
export type Failure = z.infer<typeof ZFailure>;

/** The validation messages as lines: "realmId: must be digits", or the message alone. */
export function validationLines(failure: Pick<Failure, "validation">): string[] {
  return failure.validation.map((v) => (v.itemId ? `${v.itemId}: ${v.message}` : v.message));
}

/** The service's words in one line: "409 Company … already has an active connection (field: message)". */
export function failureWords(failure: Failure): string {
  const status = failure.status !== null ? `${failure.status} ` : "";
  const lines = validationLines(failure);
  return `${status}${failure.error}${lines.length ? ` (${lines.join("; ")})` : ""}`.trim();
}
