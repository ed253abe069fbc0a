/** What the screens show of an item's stored checks (read from the engine's JSON by server/migration/handover/item-results.ts). */
import { z } from "zod";

/** An item's checks as the report shows them. */
export const ZItemChecks = z.object({
  /** The connection's status at the check (Linked, Deauthorized…), or null when not checked. */
  connection: z.string().nullable(),
  dataTypes: z.array(z.object({ dataType: z.string(), status: z.string(), records: z.number().nullable() })),
});
export type ItemChecks = z.infer<typeof ZItemChecks>;
