/**
 * The supplementary token file as the screens see it: after the bulk run, the customer sends fresh
 * tokens for the companies that failed on theirs; support reviews the file and accepts it (the
 * companies are retried) or sends it back. Both sides read the same shapes; secrets appear only
 * masked. The file itself goes through /api/engagements/[id]/supplementary-file (files go up to
 * 20 MB, beyond tRPC's body cap).
 */
import { z } from "zod";
import { ZAllowed, ZIntakeProblem, ZPersonRef, ZTemplateColumn, ZTokenFileCheck } from "../engagements/intake-schemas";
import { ZFailure } from "./failure";
import { MIGRATION_ITEM_STATES, SUPPLEMENTARY_STATUSES } from "./states";

/** Companies listed as waiting for fresh tokens (the count covers every one). */
export const MAX_LISTED_WAITING = 200;
/** A file's rows shown with it (the count covers every one). */
export const MAX_LISTED_ROWS = 500;

/** How a row of the file found its company: by the engagement's external reference, or by its name. */
export const MATCHED_BY = ["externalRef", "name"] as const;
export type MatchedBy = (typeof MATCHED_BY)[number];

/** A company of the engagement, as the supplementary file names it. */
export const ZSupplementaryCompany = z.object({
  id: z.string(),
  name: z.string(),
  externalRef: z.string().nullable(),
  state: z.enum(MIGRATION_ITEM_STATES),
});

/** A company that failed on its tokens and may get fresh ones: who it is, and why it failed. */
export const ZWaitingCompany = ZSupplementaryCompany.extend({
  /** Where it was in the accepted token file ("line 7"). */
  sourceRef: z.string(),
  /** Why it ended where it is, in words (the platform's reason). */
  reason: z.string().nullable(),
  /** The call that failed, with the service's status, text and correlationId. */
  failure: ZFailure.nullable(),
});
export type WaitingCompany = z.infer<typeof ZWaitingCompany>;

/** Checking a supplementary file: the token file's check, and which company each row names. */
export const ZSupplementaryCheck = ZTokenFileCheck.extend({
  /** The rows matched to the engagement's companies, in file order (empty when the file has blocking problems). */
  matches: z.array(ZSupplementaryCompany.extend({ sourceRef: z.string(), matchedBy: z.enum(MATCHED_BY) })),
});
export type SupplementaryCheck = z.infer<typeof ZSupplementaryCheck>;

/** One company's fresh tokens in a file: masked, and when they were purged (once used, or with the file). */
export const ZSupplementaryRow = z.object({
  id: z.string(),
  /** Where the row was in the file ("line 3", "cell A3"). */
  sourceRef: z.string(),
  company: ZSupplementaryCompany,
  credentialsMask: z.record(z.string(), z.string()),
  accessTokenExpiresAt: z.date().nullable(),
  credentialsPurgedAt: z.date().nullable(),
});

export const ZSupplementaryFile = z.object({
  id: z.string(),
  status: z.enum(SUPPLEMENTARY_STATUSES),
  fileName: z.string(),
  /** Companies in the file. */
  rowCount: z.number().int(),
  /** The warnings by line, as the customer saw them. */
  warnings: z.array(ZIntakeProblem),
  submittedBy: ZPersonRef,
  submittedAt: z.date(),
  decidedBy: ZPersonRef,
  decidedAt: z.date().nullable(),
  /** Support's note when it was sent back. */
  note: z.string().nullable(),
  /** The first MAX_LISTED_ROWS rows, in file order. */
  rows: z.array(ZSupplementaryRow),
});
export type SupplementaryFileView = z.infer<typeof ZSupplementaryFile>;

/** Step 6's supplementary file as the viewer sees it, and what the viewer may do now. */
export const ZSupplementaryView = z.object({
  platform: z.object({ key: z.string(), name: z.string() }),
  limits: z.object({ maxFileBytes: z.number().int(), maxRows: z.number().int() }),
  columns: z.array(ZTemplateColumn),
  /** The companies that may get fresh tokens now: the first MAX_LISTED_WAITING, and how many in all. */
  waiting: z.object({ companies: z.array(ZWaitingCompany), total: z.number().int() }),
  /** The newest file that was not replaced, or null. */
  current: ZSupplementaryFile.nullable(),
  /** Earlier files, newest first. */
  history: z.array(ZSupplementaryFile.pick({ id: true, status: true, fileName: true, rowCount: true, submittedBy: true, submittedAt: true, note: true })),
  /** Customers: send a (new) file now. */
  submit: ZAllowed,
  /** Staff: accept the current file (its companies are retried), or send it back with a note. */
  accept: ZAllowed,
  sendBack: ZAllowed,
});
export type SupplementaryView = z.infer<typeof ZSupplementaryView>;
