/**
 * The one error every failed service call becomes, whatever went wrong: an HTTP error answer, a
 * timeout, a network failure or an answer that is not what the service documents. It keeps what
 * support needs to quote (status, service, error text, correlationId, validation) and a `kind`
 * that says what happened in Ferry's terms.
 *
 * Secrets are kept out by construction: the error is built only from the response and from the
 * call's name and path, never from the request body or headers, and every text taken from the
 * response is scrubbed of the call's secrets (API key, credentials) in case a server echoes one.
 */
import type { ErrorBody } from "./schemas";
import type { RateLimitInfo } from "./rate-limit";

/** What went wrong, in Ferry's terms. Each has its own handling in the pipeline and bulk runner. */
export const SERVICE_ERROR_KINDS = [
  /** 400: the request was refused as malformed; validation names what. */
  "bad_request",
  /** 401: the API key is wrong. */
  "unauthorized",
  /** 403: an outdated key, or one not allowed this resource or endpoint. */
  "forbidden",
  /** 402: a free trial already holds 50 companies. */
  "company_limit",
  /** 402: an hourly sync schedule on a free trial. */
  "sync_schedule_not_allowed",
  /** 402: a free account older than 365 days: every call fails. */
  "account_expired",
  /** 404: the company, connection or other resource does not exist. */
  "not_found",
  /** 404 `Datatype … not supported by platform(s) …`: the platform lacks the data type (not a failure). */
  "data_type_not_supported",
  /** 405: the endpoint does not take this method. */
  "method_not_allowed",
  /** 409: the data set was not requested or its sync has not finished: poll again later. */
  "not_ready",
  /** 409: over a permitted number of values (e.g. more than 10 API keys). */
  "too_many_values",
  /** 409: the company already has an active connection of that kind. */
  "active_connection_exists",
  /** 429: over the rate limit or daily quota; Retry-After says when to come back. */
  "rate_limited",
  /** 500: the service failed; a retry may work. */
  "server_error",
  /** 503: the service is offline for maintenance; a retry later will work. */
  "maintenance",
  /** No answer within the call's timeout. */
  "timeout",
  /** No answer at all: connection refused, reset, DNS. */
  "network",
  /** A 3xx: the client follows no redirect (it would carry the key and the tokens wherever it points). */
  "redirected",
  /** An answer larger than the cap (after decompression): reading stopped there. */
  "answer_too_large",
  /** Not sent: the target's address is one no service target may reach (link-local, metadata, private, http beyond loopback). */
  "address_refused",
  /** Any other status, or an answer whose body is not what the service documents. */
  "unexpected",
] as const;

export type ServiceErrorKind = (typeof SERVICE_ERROR_KINDS)[number];

/** Kinds a retry can fix; every other failure is final for this call. */
export const RETRYABLE_KINDS: ReadonlySet<ServiceErrorKind> = new Set<ServiceErrorKind>([
  "rate_limited",
  "server_error",
  "maintenance",
  "timeout",
  "network",
]);

export type ValidationItem = { itemId: string | null; message: string; validatorName: string | null };
export type Validation = { errors: ValidationItem[]; warnings: ValidationItem[] };

/** The kind of an HTTP error answer, from its status and (for 402, 404, 409) its text. */
export function classifyHttpError(params: { status: number; error: string; validation: Validation | null }): ServiceErrorKind {
  const { status, error } = params;
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 402: {
      // The seed's three 402 bodies differ only in their text.
      if (/company limit exceeded/i.test(error)) return "company_limit";
      if (/sync schedule not allowed/i.test(error)) return "sync_schedule_not_allowed";
      const messages = params.validation?.errors.map((e) => e.message).join(" ") ?? "";
      if (/^payment required$/i.test(error.trim()) || /expired/i.test(messages)) return "account_expired";
      return "unexpected";
    }
    case 403:
      return "forbidden";
    case 404:
      return /^datatype .+ not supported by platform/i.test(error.trim()) ? "data_type_not_supported" : "not_found";
    case 405:
      return "method_not_allowed";
    case 409:
      if (/DataConnectionValidationException|already has an active .*connection/i.test(error)) return "active_connection_exists";
      if (/maximum number of|too many values|exceeds? the (permitted|maximum) number/i.test(error)) return "too_many_values";
      // The seed's other 409: a data set not requested, or its sync not finished.
      return "not_ready";
    case 429:
      return "rate_limited";
    case 500:
      return "server_error";
    case 503:
      return "maintenance";
    default:
      return "unexpected";
  }
}

/**
 * Text from a server with its control characters removed (line breaks and tabs become spaces,
 * bidirectional overrides go too), so what is shown and stored can neither forge a line nor hide words.
 */
export function withoutControlCharacters(text: string): string {
  return text.replace(/[\r\n\t\v\f\u2028\u2029]+/g, " ").replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, "");
}

/** Replaces every occurrence of each secret (and its base64 form) in `text`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join("[redacted]");
  }
  return out;
}

/** Validation items from an error body, with their messages scrubbed. */
export function readValidation(body: ErrorBody | null, secrets: readonly string[]): Validation | null {
  if (!body?.validation) return null;
  const items = (list: NonNullable<NonNullable<ErrorBody["validation"]>["errors"]>) =>
    list.map((item) => ({
      itemId: item.itemId == null ? null : withoutControlCharacters(item.itemId),
      message: withoutControlCharacters(redact(item.message ?? "", secrets)),
      validatorName: item.validatorName == null ? null : withoutControlCharacters(item.validatorName),
    }));
  return { errors: items(body.validation.errors ?? []), warnings: items(body.validation.warnings ?? []) };
}

export type ServiceErrorParams = {
  kind: ServiceErrorKind;
  /** The client operation, e.g. "createCompany". */
  operation: string;
  method: string;
  /** The request path without the base URL (ids, no secrets). */
  path: string;
  /** HTTP status; null for timeout and network failures. */
  status: number | null;
  /** The component that raised it (the body's `service`); null when there was no error body. */
  service: string | null;
  /** The error text, already scrubbed of secrets. */
  error: string;
  correlationId: string | null;
  validation: Validation | null;
  /** Retry-After of the answer, in milliseconds. */
  retryAfterMs: number | null;
  rateLimit: RateLimitInfo | null;
  /** Attempts made (the last one failed with this error). */
  readonly attempts: number;
  /** Time from the call's start to this failure, retries included. */
  readonly durationMs: number;
};

/** A failed service call. See the module comment for what it carries and what it never does. */
export class ServiceError extends Error {
  readonly kind: ServiceErrorKind;
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly status: number | null;
  readonly service: string | null;
  readonly error: string;
  readonly correlationId: string | null;
  readonly validation: Validation | null;
  readonly retryAfterMs: number | null;
  readonly rateLimit: RateLimitInfo | null;
  readonly attempts: number;
  readonly durationMs: number;

  constructor(params: ServiceErrorParams) {
    super(ServiceError.describe(params));
    this.name = "ServiceError";
    this.kind = params.kind;
    this.operation = params.operation;
    this.method = params.method;
    this.path = params.path;
    this.status = params.status;
    this.service = params.service;
    this.error = params.error;
    this.correlationId = params.correlationId;
    this.validation = params.validation;
    this.retryAfterMs = params.retryAfterMs;
    this.rateLimit = params.rateLimit;
    this.attempts = params.attempts;
    this.durationMs = params.durationMs;
  }

  /** Whether a retry of the same call can succeed (429, 500, 503, timeout, network). */
  get retryable(): boolean {
    return RETRYABLE_KINDS.has(this.kind);
  }

  /** One line for people: operation, status and service, the error text and the correlationId to quote. */
  static describe(params: Pick<ServiceErrorParams, "operation" | "status" | "service" | "error" | "correlationId" | "kind">): string {
    const what = params.status === null ? params.kind : `${params.status}${params.service ? ` ${params.service}` : ""}`;
    const correlation = params.correlationId ? ` (correlationId ${params.correlationId})` : "";
    return `${params.operation} failed: ${what}: ${params.error}${correlation}`;
  }

  /** The fields, for logs and stored results (the same ones the error holds: no secret among them). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      operation: this.operation,
      method: this.method,
      path: this.path,
      status: this.status,
      service: this.service,
      error: this.error,
      correlationId: this.correlationId,
      validation: this.validation,
      retryAfterMs: this.retryAfterMs,
      rateLimit: this.rateLimit,
      attempts: this.attempts,
      durationMs: this.durationMs,
    };
  }
}
