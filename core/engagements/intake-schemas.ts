/**
 * Step 1's shapes, defined once as zod: the form a customer submits beside the token file, the
 * result of checking a file, and the submission as the portal and support's review show it. Every
 * value here is safe for a browser: secrets appear only masked (last four characters).
 */
import { z } from "zod";
import { PROBLEM_KINDS } from "../intake/problems";
import { SUBMISSION_STATUSES } from "./flow-states";

/** Most contacts for the migration window. */
export const MAX_CONTACTS = 10;

const ZContact = z.object({
  name: z.string().trim().min(1, "Give the contact's name.").max(120),
  email: z.email("Give a valid email address.").trim().max(254),
});

/** The details a customer submits with the token file: their OAuth app and who to reach during the window. */
export const ZIntakeForm = z.object({
  clientId: z
    .string()
    .trim()
    .min(1, "Give your OAuth app's client id.")
    .max(500)
    .regex(/^\S+$/, "The client id has no spaces."),
  clientSecret: z
    .string()
    .min(1, "Give your OAuth app's client secret.")
    .max(1000)
    .regex(/^\S+$/, "The client secret has no spaces (check for a space copied at either end)."),
  contacts: z
    .array(ZContact)
    .min(1, "Name at least one contact for the migration window.")
    .max(MAX_CONTACTS, `Name at most ${MAX_CONTACTS} contacts.`),
});
export type IntakeForm = z.infer<typeof ZIntakeForm>;

export const ZProblemKind = z.enum(PROBLEM_KINDS);

/** One problem of a token file, where it is (line, or cell in a workbook) and what to do. */
export const ZIntakeProblem = z.object({
  kind: ZProblemKind,
  severity: z.enum(["error", "warning"]),
  message: z.string(),
  line: z.number().int().optional(),
  cell: z.string().optional(),
  column: z.string().optional(),
  value: z.string().optional(),
  becomes: z.string().optional(),
});

/** The first rows of a file: every secret masked, every value neutralised for spreadsheets. */
export const ZIntakePreview = z.object({
  columns: z.array(z.string()),
  rows: z.array(
    z.object({
      sourceRef: z.string(),
      values: z.record(z.string(), z.string()),
      /** The name the company gets on the service, when it is not the file's (accents folded, signs removed, or a stand-in). */
      becomes: z.string().optional(),
    }),
  ),
});
export type IntakePreview = z.infer<typeof ZIntakePreview>;

/** What checking a token file found (nothing is stored by a check). */
export const ZTokenFileCheck = z.object({
  /** No blocking error: the file can be submitted. */
  ok: z.boolean(),
  fileName: z.string(),
  fileKind: z.enum(["csv", "xlsx"]).nullable(),
  rowCount: z.number().int(),
  errorCount: z.number().int(),
  warningCount: z.number().int(),
  countsByKind: z.record(z.string(), z.number().int()),
  /** Problems in file order, at most MAX_SHOWN_PROBLEMS (the counts cover every one). */
  problems: z.array(ZIntakeProblem),
  /** Problems found but not listed. */
  moreProblems: z.number().int(),
  preview: ZIntakePreview,
});
export type TokenFileCheck = z.infer<typeof ZTokenFileCheck>;

/** Problems listed in a check's answer (a file of 100,000 bad rows is summarised by its counts). */
export const MAX_SHOWN_PROBLEMS = 500;
/** Warnings kept with a submission for support's review. */
export const MAX_STORED_WARNINGS = 500;

/** A person named on a record (who submitted, reviewed, proposed…), or null. */
export const ZPersonRef = z.object({ id: z.string(), name: z.string() }).nullable();

/** A submission as the portal and support's review show it. */
export const ZSubmissionView = z.object({
  id: z.string(),
  status: z.enum(SUBMISSION_STATUSES),
  clientId: z.string(),
  clientSecretMasked: z.string(),
  contacts: z.array(z.object({ name: z.string(), email: z.string() })),
  fileName: z.string(),
  fileKind: z.enum(["csv", "xlsx"]),
  rowCount: z.number().int(),
  warningCount: z.number().int(),
  countsByKind: z.record(z.string(), z.number().int()),
  warnings: z.array(ZIntakeProblem),
  preview: ZIntakePreview,
  submittedBy: ZPersonRef,
  submittedAt: z.date(),
  reviewedBy: ZPersonRef,
  reviewedAt: z.date().nullable(),
  returnNote: z.string().nullable(),
  /** Companies of the previous submission this one replaced. */
  replacedItemCount: z.number().int().nullable(),
});
export type SubmissionView = z.infer<typeof ZSubmissionView>;

/** Whether the viewer may do something now, and why not. */
export const ZAllowed = z.object({ allowed: z.boolean(), reason: z.string().nullable() });
export type Allowed = z.infer<typeof ZAllowed>;

export const ZTemplateColumn = z.object({ name: z.string(), required: z.boolean(), description: z.string(), example: z.string() });

/** Step 1 as the viewer sees it: the current submission, older ones, and what the viewer may do. */
export const ZIntakeView = z.object({
  platform: z.object({ key: z.string(), name: z.string() }),
  limits: z.object({ maxFileBytes: z.number().int(), maxRows: z.number().int() }),
  columns: z.array(ZTemplateColumn),
  current: ZSubmissionView.nullable(),
  /** Earlier submissions, newest first (replaced ones). */
  history: z.array(ZSubmissionView.pick({ id: true, status: true, fileName: true, rowCount: true, warningCount: true, submittedAt: true, submittedBy: true, returnNote: true })),
  /** Customers: whether a (new) submission is possible now. */
  submit: ZAllowed,
  /** A new submission would reopen step 1 and the steps gated on it (the current one is accepted). */
  submitReopens: z.boolean(),
  /** Staff: accept the current submission / send it back. */
  accept: ZAllowed,
  return: ZAllowed,
});
export type IntakeView = z.infer<typeof ZIntakeView>;

export const ZIntakeItem = z.object({
  id: z.string(),
  position: z.number().int(),
  sourceRef: z.string(),
  name: z.string(),
  externalRef: z.string().nullable(),
  recordsHint: z.number().int().nullable(),
  credentialsMask: z.record(z.string(), z.string()),
  accessTokenExpiresAt: z.date().nullable(),
  state: z.string(),
});

export const ZIntakeItemsPage = z.object({
  items: z.array(ZIntakeItem),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type IntakeItemsPage = z.infer<typeof ZIntakeItemsPage>;
