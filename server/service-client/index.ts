/** The service client: see client.ts. */
export { createServiceClient, DATA_LISTS, DEFAULT_TIMEOUT_MS, isListedDataType, nextPage } from "./client";
export type { AttemptEvent, CallMeta, CallOptions, ListedDataType, PageParams, RawRequest, ServiceClient, ServiceClientOptions, ServiceResult } from "./client";
export { parseRateLimit, parseRetryAfter } from "./rate-limit";
export type { RateLimitInfo } from "./rate-limit";
export { DEFAULT_RETRY } from "./retry";
export type { RetryEvent, RetryOptions, RetrySetting } from "./retry";
export type { Company, Connection, DataRecord, DataStatus, DataStatuses, Paged, PullOperation, ValidationResult } from "./schemas";
export { RETRYABLE_KINDS, SERVICE_ERROR_KINDS, ServiceError } from "./service-error";
export type { ServiceErrorKind, Validation, ValidationItem } from "./service-error";
