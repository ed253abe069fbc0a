/**
 * The service's response shapes, as zod schemas: what Ferry relies on is required, the rest
 * optional, unknown keys dropped. Enums are read case-insensitively (reference §4: the live casing
 * of `PendingAuth` is unconfirmed) and null is accepted wherever the reference shows it.
 */
import { z } from "zod";
import { CONNECTION_STATUSES, PULL_STATUSES } from "../platforms";

/** An enum of `values`, matched without regard to letter case and returned in its listed casing. */
function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const byLower = new Map(values.map((v) => [v.toLowerCase(), v]));
  return z.preprocess((raw) => (typeof raw === "string" ? (byLower.get(raw.toLowerCase()) ?? raw) : raw), z.enum(values));
}

export const ConnectionStatusSchema = caseInsensitiveEnum(CONNECTION_STATUSES);
export const PullStatusSchema = caseInsensitiveEnum(PULL_STATUSES);

const stringMap = z.record(z.string(), z.string());

/** One entry of a connection's `dataConnectionErrors`: the platform's refusal, in its words. */
export const DataConnectionErrorSchema = z.object({
  statusCode: z.union([z.string(), z.number()]).transform(String).nullish(),
  statusText: z.string().nullish(),
  errorMessage: z.string().nullish(),
  erroredOnUtc: z.string().nullish(),
  status: z.string().nullish(),
  resolvedOnUtc: z.string().nullish(),
});

export const ConnectionSchema = z.object({
  id: z.string().min(1),
  integrationId: z.string().nullish(),
  integrationKey: z.string().nullish(),
  sourceId: z.string().nullish(),
  platformName: z.string(),
  linkUrl: z.string().nullish(),
  status: ConnectionStatusSchema,
  created: z.string().nullish(),
  sourceType: z.string().nullish(),
  lastSync: z.string().nullish(),
  dataConnectionErrors: z.array(DataConnectionErrorSchema).nullish(),
  connectionInfo: z.record(z.string(), z.unknown()).nullish(),
});
export type Connection = z.infer<typeof ConnectionSchema>;

export const CompanySchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  description: z.string().nullish(),
  redirect: z.string().nullish(),
  created: z.string().nullish(),
  lastSync: z.string().nullish(),
  tags: stringMap.nullish().transform((tags) => tags ?? {}),
  dataConnections: z.array(ConnectionSchema).nullish().transform((list) => list ?? []),
});
export type Company = z.infer<typeof CompanySchema>;

export type Paged<T> = { results: T[]; pageNumber: number; pageSize: number; totalResults: number };

/** The paging envelope of every list (reference §2.2). */
export function pagedSchema<T>(item: z.ZodType<T>): z.ZodType<Paged<T>> {
  return z.object({
    results: z.array(item).nullish().transform((list) => list ?? []),
    pageNumber: z.number().int(),
    pageSize: z.number().int(),
    totalResults: z.number().int(),
  });
}

/** How many a list holds: its `totalResults` (read from a page of one; the items are not needed). */
export const ListCountSchema = z.object({ totalResults: z.number().int().nonnegative() }).transform((page) => page.totalResults);

/** One data type's sync status; `currentStatus` is absent for a type never synced (reference §6). */
export const DataStatusSchema = z.object({
  dataType: z.string(),
  currentStatus: PullStatusSchema.nullish(),
  lastSuccessfulSync: z.string().nullish(),
  latestSyncId: z.string().nullish(),
  latestSuccessfulSyncId: z.string().nullish(),
});
export type DataStatus = z.infer<typeof DataStatusSchema>;

/** Data status per data type; null entries (allowed by the schema) are left out. */
export const DataStatusesSchema = z
  .record(z.string(), DataStatusSchema.nullable())
  .transform((all) => Object.fromEntries(Object.entries(all).filter((e): e is [string, DataStatus] => e[1] !== null)));
export type DataStatuses = z.infer<typeof DataStatusesSchema>;

/** A pull operation (dataset): one sync of one data type. */
export const PullOperationSchema = z.object({
  id: z.string().min(1),
  companyId: z.string(),
  connectionId: z.string(),
  dataType: z.string(),
  status: PullStatusSchema,
  requested: z.string(),
  progress: z.number(),
  isCompleted: z.boolean(),
  isErrored: z.boolean(),
  statusDescription: z.string().nullish(),
  errorMessage: z.string().nullish(),
  completed: z.string().nullish(),
});
export type PullOperation = z.infer<typeof PullOperationSchema>;

/** A record of a data read: its fields differ per data type; Ferry only needs to see that it exists. */
export const DataRecordSchema = z.record(z.string(), z.unknown());
export type DataRecord = z.infer<typeof DataRecordSchema>;

const ValidationItemSchema = z.object({
  itemId: z.string().nullish(),
  message: z.string().nullish(),
  validatorName: z.string().nullish(),
});

/**
 * A dataset's validation results (`GET /companies/{companyId}/sync/{datasetId}/validation`,
 * get-read-validation-results in codatio/oas `Codat-Platform.json`, schema `ValidationResult`):
 * `errors` (critical: the data type cannot be relied on) and `warnings`, each item
 * `{ruleId, itemId, message, validatorName}`. Every field is optional in the OAS.
 */
export const ValidationResultSchema = z.object({
  errors: z.array(ValidationItemSchema.extend({ ruleId: z.string().nullish() })).nullish().transform((list) => list ?? []),
  warnings: z.array(ValidationItemSchema.extend({ ruleId: z.string().nullish() })).nullish().transform((list) => list ?? []),
});
export type ValidationResult = z.infer<typeof ValidationResultSchema>;

/** The service's error body (seed §2), read leniently: any field may be missing. */
export const ErrorBodySchema = z.object({
  statusCode: z.number().nullish(),
  service: z.string().nullish(),
  error: z.string().nullish(),
  correlationId: z.string().nullish(),
  validation: z
    .object({
      errors: z.array(ValidationItemSchema).nullish(),
      warnings: z.array(ValidationItemSchema).nullish(),
    })
    .nullish(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
