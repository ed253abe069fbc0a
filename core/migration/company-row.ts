/**
 * A company of the migration as every table of companies shows it (the bulk run's and the handover
 * report's): who it is, where it stands, its ids on the service and the calls made for it. Each
 * table's schema extends it with its own columns.
 */
import { z } from "zod";
import { MIGRATION_ITEM_STATES } from "./states";

export const ZCompanyRowBase = z.object({
  id: z.string(),
  /** The company's name in the token file, and the name it has on the service (the same unless the service could not keep it). */
  name: z.string(),
  serviceName: z.string(),
  externalRef: z.string().nullable(),
  state: z.enum(MIGRATION_ITEM_STATES),
  companyId: z.string().nullable(),
  connectionId: z.string().nullable(),
  /** Failed attempts in a row at its last call (a good answer starts the count again). */
  attempts: z.number().int(),
  /** Every request Ferry sent the service for it, in every run (retries included). */
  attemptsInAll: z.number().int(),
});
