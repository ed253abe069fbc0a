/**
 * The service's error bodies, with the exact texts of seed/service-interface.md and
 * reference/service-api.md §2.1. Every error the sandbox answers is built here, so a text lives in
 * one place and the contract tests can name it.
 */

export type ValidationItem = {
  itemId?: string;
  message: string;
  validatorName?: string;
};

export type Validation = {
  errors: ValidationItem[];
  warnings: ValidationItem[];
};

/** The body of every error response: exactly these keys, `validation` only where one applies. */
export type ErrorBody = {
  statusCode: number;
  service: string;
  error: string;
  correlationId: string;
  validation?: Validation;
};

/** Component names seen in the service's error bodies (reference §2.1). */
export type ServiceName = "PublicApi" | "ClientsApi" | "PullApi" | "SandboxControls";

const LEARN_MORE = "Learn more at https://docs.codat.io/using-the-api/errors";

/** Exact error texts, shared with the tests. */
export const ERROR_TEXT = {
  unauthorized: "Unauthorized",
  forbidden: "You are using an outdated API key or a key not associated with that resource.",
  badRequest: "Error processing request - not valid.",
  malformedQuery: "Error parsing query - Malformed query.",
  companyLimit: "CompanyValidationException: Company limit exceeded",
  companyLimitMessage: `Company limit exceeded. ${LEARN_MORE}`,
  syncSchedule: "SyncSettingsValidationException: Sync schedule not allowed",
  paymentRequired: "Payment Required",
  accountExpiredMessage: `Account expired. ${LEARN_MORE}`,
  apiKeyLimit:
    "Maximum number of API keys reached. To create a new API key, delete an unused key and try again.",
  datasetNotRequested: "The data set has not been requested.",
  tooManyRequests: "You have made too many requests in a given amount of time; please retry later.",
  internal: "There is a problem with our server. Please try again later.",
  maintenance: "The Codat API is temporarily offline for maintenance. Please try again later.",
} as const;

/** An error answer; thrown by handlers and turned into a response by the server. */
export class ApiError extends Error {
  readonly status: number;
  readonly service: ServiceName;
  readonly validation: Validation | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(params: {
    status: number;
    error: string;
    service?: ServiceName;
    validation?: Validation;
    headers?: Record<string, string>;
  }) {
    super(params.error);
    this.status = params.status;
    this.service = params.service ?? "PublicApi";
    this.validation = params.validation;
    this.headers = params.headers ?? {};
  }

  /** The response body, stamped with this response's correlation id. */
  toBody(correlationId: string): ErrorBody {
    const body: ErrorBody = {
      statusCode: this.status,
      service: this.service,
      error: this.message,
      correlationId,
    };
    if (this.validation) body.validation = this.validation;
    return body;
  }
}

function validation(errors: ValidationItem[]): Validation {
  return { errors, warnings: [] };
}

/** 401: missing, malformed or unknown API key. */
export function unauthorized(service: ServiceName = "PublicApi"): ApiError {
  return new ApiError({ status: 401, error: ERROR_TEXT.unauthorized, service });
}

/** 403: deleted key, or a key used on another client's resource. */
export function forbidden(service: ServiceName = "PublicApi"): ApiError {
  return new ApiError({ status: 403, error: ERROR_TEXT.forbidden, service });
}

/** 400 with one validation item per problem. */
export function badRequest(items: ValidationItem[], error: string = ERROR_TEXT.badRequest): ApiError {
  return new ApiError({ status: 400, error, validation: validation(items) });
}

/** 400 for a `query`, `orderBy` or `tags` expression the parser cannot read. */
export function malformedQuery(params: { service: ServiceName; itemId: string; detail: string }): ApiError {
  return new ApiError({
    status: 400,
    error: ERROR_TEXT.malformedQuery,
    service: params.service,
    validation: validation([{ itemId: params.itemId, message: params.detail, validatorName: "Query" }]),
  });
}

/** 400 for a query naming a property the entity does not have (reference: PullApi example). */
export function unresolvedProperty(params: { service: ServiceName; property: string; entity: string }): ApiError {
  return new ApiError({
    status: 400,
    error: `Error parsing query - Could not resolve property ${params.property} on ${params.entity}`,
    service: params.service,
    validation: validation([
      { itemId: "query", message: `${params.entity} has no property ${params.property}.`, validatorName: "Query" },
    ]),
  });
}

/** 402: the 51st company on a free trial (seed §7). */
export function companyLimitExceeded(): ApiError {
  return new ApiError({
    status: 402,
    error: ERROR_TEXT.companyLimit,
    validation: validation([
      { itemId: "Company", message: ERROR_TEXT.companyLimitMessage, validatorName: "CreateCompany" },
    ]),
  });
}

/** 402: an hourly (sub-daily) sync schedule on a free trial; one item per offending setting. */
export function syncScheduleNotAllowed(dataTypes: readonly string[]): ApiError {
  return new ApiError({
    status: 402,
    error: ERROR_TEXT.syncSchedule,
    validation: validation(
      dataTypes.map((dataType) => ({
        itemId: dataType,
        message: `Sync schedule not allowed: ${dataType} asks for a schedule shorter than 24 hours, which a free trial does not include. ${LEARN_MORE}`,
        validatorName: "SyncSettings",
      })),
    ),
  });
}

/** 402: a free account older than 365 days, on every endpoint. */
export function accountExpired(): ApiError {
  return new ApiError({
    status: 402,
    error: ERROR_TEXT.paymentRequired,
    validation: validation([{ message: ERROR_TEXT.accountExpiredMessage }]),
  });
}

/** 404: unknown company id (reference: service ClientsApi). */
export function companyNotFound(companyId: string): ApiError {
  return new ApiError({ status: 404, error: `No company was found with ID ${companyId}`, service: "ClientsApi" });
}

/** 404: unknown or deleted data connection. */
export function connectionNotFound(connectionId: string): ApiError {
  return new ApiError({ status: 404, error: `Data connection ${connectionId} not found` });
}

/** 404: any other missing resource, named in words. */
export function notFound(error: string, service: ServiceName = "PublicApi"): ApiError {
  return new ApiError({ status: 404, error, service });
}

/** 404: a path no endpoint serves. */
export function pathNotFound(path: string, service: ServiceName = "PublicApi"): ApiError {
  return new ApiError({ status: 404, error: `No endpoint exists at ${path}.`, service });
}

/** 404: the data type exists but the connection's platform(s) do not offer it (seed §7 message form). */
export function dataTypeNotSupported(dataType: string, platformNames: readonly string[]): ApiError {
  return new ApiError({
    status: 404,
    error: `Datatype ${dataType} not supported by platform(s) ${platformNames.join(", ")}`,
  });
}

/** 405 with the methods the path does allow. */
export function methodNotAllowed(params: {
  method: string;
  path: string;
  allowed: readonly string[];
  service?: ServiceName;
}): ApiError {
  return new ApiError({
    status: 405,
    error: `Method Not Allowed: ${params.method} is not allowed on ${params.path}; allowed: ${params.allowed.join(", ")}.`,
    service: params.service ?? "PublicApi",
    headers: { Allow: params.allowed.join(", ") },
  });
}

/** 413: a request body over the sandbox's limit (in the error-body shape, without validation). */
export function payloadTooLarge(maxBytes: number, service: ServiceName = "PublicApi"): ApiError {
  return new ApiError({
    status: 413,
    error: `Payload Too Large: the request body is larger than ${maxBytes / 1_048_576} MB (${maxBytes} bytes).`,
    service,
  });
}

/** 409: any conflict, with the text given (keys limit, data set not ready, ...). */
export function conflict(error: string): ApiError {
  return new ApiError({ status: 409, error });
}

/** 429 with Retry-After in seconds. */
export function tooManyRequests(retryAfterSeconds: number): ApiError {
  return new ApiError({
    status: 429,
    error: ERROR_TEXT.tooManyRequests,
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

/** 500: an injected fault or an unexpected failure. */
export function internalError(): ApiError {
  return new ApiError({ status: 500, error: ERROR_TEXT.internal });
}

/** 503: maintenance mode. */
export function maintenance(): ApiError {
  return new ApiError({ status: 503, error: ERROR_TEXT.maintenance, headers: { "Retry-After": "30" } });
}
