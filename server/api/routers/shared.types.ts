/** Schemas and constants every router shares. */
import { z } from "zod";

/** The answer of a mutation that has nothing else to say. */
export const ZOk = z.object({ ok: z.literal(true) });
export const OK = { ok: true } as const;

/** Rows per page of every list, unless the caller asks otherwise (the UI's prefetches use it too). */
export const PAGE_SIZE = 25;

/** Page number and size of a list request. */
export const ZPageRequest = z.object({
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(100).default(PAGE_SIZE),
});

/** Input of every procedure about one engagement. */
export const engagementInput = z.object({ engagementId: z.string().min(1).max(64) });
