/** What the screens show of an item's stored checks and last error (read from the engine's JSON by server/migration/handover/item-results.ts). */
import { z } from "zod";

/** An item's checks as the report shows them. */
export const ZItemChecks = z.object({
  /** The connection's status at the check (Linked, Deauthorized…), or null when not checked. */
  connection: z.string().nullable(),
  dataTypes: z.array(z.object({ dataType: z.string(), status: z.string(), records: z.number().nullable() })),
});
export type ItemChecks = z.infer<typeof ZItemChecks>;

/** An item's last error as the report shows it: status, text and correlationId, as the service gave them. */
export const ZItemError = z.object({
  kind: z.string().nullable(),
  status: z.number().int().nullable(),
  text: z.string(),
  correlationId: z.string().nullable(),
  /** Validation messages, "field: message". */
  validation: z.array(z.string()),
});
export type ItemError = z.infer<typeof ZItemError>;
