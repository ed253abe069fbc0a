/**
 * The typed HTTP client of the service: every call Ferry makes, with zod-validated answers, a
 * timeout on every attempt, retries only where they help (retry.ts) and one error type for every
 * failure (ServiceError). Works against any base URL, including one with a path prefix (a proxy
 * or the sandbox's SANDBOX_BASE_PATH).
 *
 *   const client = createServiceClient({ baseUrl, apiKey });
 *   const { data: company, meta } = await client.createCompany({ name: "Acme", tags: { ferryItem: id } });
 *   meta.correlationId; meta.durationMs; meta.rateLimit?.remaining;
 *
 * Nothing here logs. The API key is sent only as `Authorization: Basic base64(apiKey)` and never
 * kept anywhere an error or event could carry it.
 */
import { z } from "zod";
import type { PlatformKey } from "../platforms";
import { parseRateLimit, type RateLimitInfo } from "./rate-limit";
import { buildRetryPolicy, callDeadline, DEFAULT_RETRY, type RetryEvent, type RetrySetting } from "./retry";
import {
  CompanySchema,
  ConnectionSchema,
  DataRecordSchema,
  DataStatusesSchema,
  ErrorBodySchema,
  ListCountSchema,
  pagedSchema,
  PullOperationSchema,
  type Company,
  type Connection,
  type DataRecord,
  type DataStatuses,
  type Paged,
  type PullOperation,
} from "./schemas";
import { classifyHttpError, readValidation, redact, ServiceError, withoutControlCharacters, type ServiceErrorKind } from "./service-error";
import type { AddressPolicy } from "./addresses";
import { AddressRefusedError, AnswerTooLargeError, createGuard, MAX_ANSWER_BYTES, readCapped, type Resolve } from "./transport";

/** Default time one attempt may take, answer body included. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** What every successful call returns beside its data (the pipeline stores it). */
export type CallMeta = {
  operation: string;
  method: string;
  path: string;
  status: number;
  /** The answer's X-Correlation-Id, when the service sends one. */
  correlationId: string | null;
  /** From the call's start to its answer, retries and waits included. */
  durationMs: number;
  attempts: number;
  rateLimit: RateLimitInfo | null;
};

export type ServiceResult<T> = { data: T; meta: CallMeta };

/** One HTTP attempt, for counting requests and watching them happen. */
export type AttemptEvent = {
  operation: string;
  method: string;
  path: string;
  /** 1 for the first attempt of a call. */
  attempt: number;
  /** null when no answer came (timeout, network). */
  status: number | null;
  /** null on success. */
  kind: ServiceErrorKind | null;
  durationMs: number;
  correlationId: string | null;
};

export type ServiceClientOptions = {
  /** e.g. `https://api.codat.io` or `http://127.0.0.1:4010/codat` (a path prefix is kept). */
  baseUrl: string;
  apiKey: string;
  /** Time one attempt may take (default 30 s). */
  timeoutMs?: number;
  /** Default retry behaviour of every call (default: 4 attempts, 500 ms–30 s backoff, 2 min in all). */
  retry?: RetrySetting;
  /** The fetch to use (e.g. a pacer's); the global one by default. Requests go with this client's dispatcher and `redirect: "manual"` whatever it is. */
  fetch?: typeof fetch;
  /**
   * The addresses the client may connect to (addresses.ts): `public` by default (public and
   * loopback); `private` for a target inside a private network the operator allows; `any` only for
   * the built-in sandbox.
   */
  addresses?: AddressPolicy;
  /** Resolves host names for the address rule (the system's resolver by default; tests pass their own). */
  resolve?: Resolve;
  /** The most an answer may hold after decompression (MAX_ANSWER_BYTES by default). */
  maxAnswerBytes?: number;
  /** Certificates (PEM) to trust beyond the system's, for a service behind a private certificate authority (and tests). */
  ca?: string;
  /** Called after every HTTP attempt. */
  onAttempt?: (event: AttemptEvent) => void;
  /** Called before a retry waits. */
  onRetry?: (event: RetryEvent & { operation: string }) => void;
  /** Called with the X-Rate-Limit-* headers of every answer that has them, success or error. */
  onRateLimit?: (info: RateLimitInfo, context: { operation: string; status: number }) => void;
};

/** Per-call overrides. */
export type CallOptions = {
  /** Cancels the call; the promise then rejects with the signal's reason (not a ServiceError). */
  signal?: AbortSignal;
  timeoutMs?: number;
  retry?: RetrySetting;
};

export type PageParams = { page?: number; pageSize?: number };

/** A request for an endpoint the client has no method for; the answer is checked with `schema`. */
export type RawRequest<T> = {
  operation: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below the base URL, starting with `/`, query string included. */
  path: string;
  body?: unknown;
  /** Checks the answer's JSON (`undefined` when the body is empty, as with 204). */
  schema: z.ZodType<T>;
  /** Values of the body to keep out of errors (the API key always is). */
  secrets?: readonly string[];
};

const seg = encodeURIComponent;

/** An answer whose body, if any, means nothing (POST data/all: 204). */
const NO_BODY = z.unknown().transform((): undefined => undefined);

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** The text of a tags filter `name=value`; values other than plain words are quoted. */
function tagFilter(name: string, value: string): string {
  return /^[A-Za-z0-9_.:-]+$/.test(value) ? `${name}=${value}` : `${name}="${value.replaceAll('"', "")}"`;
}

/** A short account of a zod failure: paths and messages, never the values. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(body)"}: ${issue.message}`)
    .join("; ");
}

/**
 * The data types the service lists as records, with the path of their list and whether it is read
 * per connection (commerce) or per company (accounting): a page of one gives their count.
 */
export const DATA_LISTS = {
  chartOfAccounts: { path: "accounts", perConnection: false, operation: "listAccounts" },
  invoices: { path: "invoices", perConnection: false, operation: "listInvoices" },
  customers: { path: "customers", perConnection: false, operation: "listCustomers" },
  suppliers: { path: "suppliers", perConnection: false, operation: "listSuppliers" },
  bills: { path: "bills", perConnection: false, operation: "listBills" },
  purchaseOrders: { path: "purchaseOrders", perConnection: false, operation: "listPurchaseOrders" },
  "commerce-orders": { path: "commerce-orders", perConnection: true, operation: "listCommerceOrders" },
  "commerce-products": { path: "commerce-products", perConnection: true, operation: "listCommerceProducts" },
  "commerce-customers": { path: "commerce-customers", perConnection: true, operation: "listCommerceCustomers" },
} as const satisfies Record<string, { path: string; perConnection: boolean; operation: string }>;
export type ListedDataType = keyof typeof DATA_LISTS;

/** Whether the service lists a data type's records. */
export const isListedDataType = (dataType: string): dataType is ListedDataType => Object.hasOwn(DATA_LISTS, dataType);

/** A client of the service at `baseUrl` with one API key. */
export function createServiceClient(options: ServiceClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const authorization = `Basic ${Buffer.from(options.apiKey).toString("base64")}`;
  const keySecrets = [options.apiKey, Buffer.from(options.apiKey).toString("base64")];
  const doFetch = options.fetch ?? globalThis.fetch;
  const guard = createGuard({ policy: options.addresses ?? "public", ...(options.resolve ? { resolve: options.resolve } : {}), ...(options.ca ? { ca: options.ca } : {}) });
  const maxAnswerBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;

  async function request<T>(raw: RawRequest<T>, callOptions: CallOptions = {}): Promise<ServiceResult<T>> {
    const { operation, method, path } = raw;
    const secrets = [...keySecrets, ...(raw.secrets ?? [])];
    const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const setting = callOptions.retry ?? options.retry ?? DEFAULT_RETRY;
    const startedAt = Date.now();
    const startedTick = performance.now();
    const deadline = callDeadline(setting, startedAt);
    const payload = raw.body === undefined ? undefined : JSON.stringify(raw.body);
    const headers: Record<string, string> = {
      Authorization: authorization,
      Accept: "application/json",
      "User-Agent": "ferry-service-client",
      ...(payload === undefined ? {} : { "Content-Type": "application/json" }),
    };
    let attempts = 0;

    const fail = (params: {
      kind: ServiceErrorKind;
      status: number | null;
      service: string | null;
      error: string;
      correlationId: string | null;
      validation: ServiceError["validation"];
      rateLimit: RateLimitInfo | null;
    }) =>
      new ServiceError({
        ...params,
        // What a server says is shown and stored: no control character of it can forge a line or hide words.
        error: withoutControlCharacters(redact(params.error, secrets)),
        service: params.service === null ? null : withoutControlCharacters(params.service),
        correlationId: params.correlationId === null ? null : withoutControlCharacters(params.correlationId),
        operation,
        method,
        path,
        retryAfterMs: params.rateLimit?.retryAfterMs ?? null,
        attempts,
        durationMs: Math.round(performance.now() - startedTick),
      });

    let lastError: ServiceError | null = null;
    const { policy, budgetSpent } = buildRetryPolicy({
      setting,
      deadline,
      onRetry: options.onRetry && ((event) => options.onRetry?.({ ...event, operation })),
    });

    const attempt = async (policySignal: AbortSignal): Promise<ServiceResult<T>> => {
      callOptions.signal?.throwIfAborted();
      // The time budget ran out during the backoff: end with what the last attempt said.
      if (lastError && budgetSpent()) throw lastError;
      attempts += 1;
      const attemptTick = performance.now();
      const report = (status: number | null, kind: ServiceErrorKind | null, correlationId: string | null) =>
        options.onAttempt?.({
          operation,
          method,
          path,
          attempt: attempts,
          status,
          kind,
          durationMs: Math.round(performance.now() - attemptTick),
          correlationId,
        });
      const attemptTimeoutMs = Math.max(1, Math.round(Math.min(timeoutMs, deadline - Date.now())));
      const timeout = AbortSignal.timeout(attemptTimeoutMs);
      const signal = AbortSignal.any([timeout, policySignal, ...(callOptions.signal ? [callOptions.signal] : [])]);

      const url = new URL(`${baseUrl}${path}`);
      /** The failure of an attempt that got no (whole) answer: refused address, timeout or network. */
      const noAnswer = (thrown: unknown): ServiceError => {
        const cause = thrown instanceof Error && thrown.cause instanceof Error ? thrown.cause : thrown;
        if (cause instanceof AddressRefusedError) {
          return fail({ kind: "address_refused", status: null, service: null, error: cause.message, correlationId: null, validation: null, rateLimit: null });
        }
        const timedOut = timeout.aborted;
        const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : null;
        const detail = code ?? (cause instanceof Error ? cause.message : "no answer");
        return fail({
          kind: timedOut ? "timeout" : "network",
          status: null,
          service: null,
          error: timedOut ? `No answer within ${attemptTimeoutMs} ms.` : `The service could not be reached (${detail}).`,
          correlationId: null,
          validation: null,
          rateLimit: null,
        });
      };
      const refused = guard.refusal(url);
      if (refused) {
        const error = noAnswer(refused);
        report(null, error.kind, null);
        throw error;
      }

      let response: Response;
      try {
        // `dispatcher` is undici's option of Node's fetch (not in the DOM's RequestInit).
        const init: RequestInit & { dispatcher: ReturnType<typeof guard.dispatcher> } = { method, headers, body: payload, signal, redirect: "manual", dispatcher: guard.dispatcher(url) };
        response = await doFetch(url, init);
      } catch (thrown) {
        if (callOptions.signal?.aborted) throw callOptions.signal.reason;
        const error = noAnswer(thrown);
        report(null, error.kind, null);
        throw error;
      }

      // A redirect is never followed: the next request would carry the body (the tokens) to
      // wherever it points, over http too. Its body is not read.
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => {});
        const location = response.headers.get("location");
        let where = "no location";
        if (location) {
          try {
            where = new URL(location, url).toString();
          } catch {
            where = location;
          }
        }
        const error = fail({
          kind: "redirected",
          status: response.status,
          service: null,
          error: `The service answered ${response.status} redirecting to ${where.slice(0, 300)}: Ferry follows no redirect (the request would carry the key and tokens there), so nothing was sent on. Check the target's base URL.`,
          correlationId: response.headers.get("x-correlation-id"),
          validation: null,
          rateLimit: null,
        });
        report(response.status, error.kind, error.correlationId);
        throw error;
      }

      let text: string;
      try {
        text = await readCapped(response, maxAnswerBytes);
      } catch (thrown) {
        if (callOptions.signal?.aborted) throw callOptions.signal.reason;
        const error =
          thrown instanceof AnswerTooLargeError
            ? fail({ kind: "answer_too_large", status: response.status, service: null, error: thrown.message, correlationId: response.headers.get("x-correlation-id"), validation: null, rateLimit: null })
            : noAnswer(thrown);
        report(response.status, error.kind, error.correlationId);
        throw error;
      }

      const rateLimit = parseRateLimit(response.headers);
      if (rateLimit) options.onRateLimit?.(rateLimit, { operation, status: response.status });
      const headerCorrelationId = response.headers.get("x-correlation-id");

      if (!response.ok) {
        let body: z.infer<typeof ErrorBodySchema> | null = null;
        try {
          const parsed = ErrorBodySchema.safeParse(JSON.parse(text));
          if (parsed.success) body = parsed.data;
        } catch {
          // Not JSON (e.g. a proxy's HTML page): the status speaks for itself.
        }
        const errorText = body?.error ?? `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
        const validation = readValidation(body, secrets);
        const error = fail({
          kind: classifyHttpError({ status: response.status, error: errorText, validation }),
          status: response.status,
          service: body?.service ?? null,
          error: errorText,
          correlationId: body?.correlationId ?? headerCorrelationId,
          validation,
          rateLimit,
        });
        report(response.status, error.kind, error.correlationId);
        throw error;
      }

      let json: unknown;
      try {
        json = text.trim() === "" ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      const parsed = raw.schema.safeParse(json);
      if (!parsed.success) {
        const error = fail({
          kind: "unexpected",
          status: response.status,
          service: null,
          error:
            json === undefined
              ? `The service answered ${response.status} without the JSON body ${operation} expects.`
              : `The service answered ${response.status} with a body ${operation} does not recognise: ${describeIssues(parsed.error)}.`,
          correlationId: headerCorrelationId,
          validation: null,
          rateLimit,
        });
        report(response.status, error.kind, error.correlationId);
        throw error;
      }
      const data = parsed.data;
      report(response.status, null, headerCorrelationId);
      return {
        data,
        meta: {
          operation,
          method,
          path,
          status: response.status,
          correlationId: headerCorrelationId,
          durationMs: Math.round(performance.now() - startedTick),
          attempts,
          rateLimit,
        },
      };
    };

    return policy.execute(async ({ signal }) => {
      try {
        return await attempt(signal);
      } catch (error) {
        if (error instanceof ServiceError) lastError = error;
        throw error;
      }
    }, callOptions.signal);
  }

  /** Every page of a list, for lookups that must see everything (a tag, a company's connections). */
  async function allPages<T>(params: {
    operation: string;
    path: (page: number) => string;
    item: z.ZodType<T>;
    callOptions?: CallOptions;
  }): Promise<ServiceResult<T[]>> {
    const schema = pagedSchema(params.item);
    const results: T[] = [];
    let attempts = 0;
    const startedTick = performance.now();
    for (let page = 1; ; page++) {
      const { data, meta } = await request({ operation: params.operation, method: "GET", path: params.path(page), schema }, params.callOptions);
      attempts += meta.attempts;
      results.push(...data.results);
      if (data.results.length === 0 || page * data.pageSize >= data.totalResults) {
        return { data: results, meta: { ...meta, attempts, durationMs: Math.round(performance.now() - startedTick) } };
      }
    }
  }

  const LIST_PAGE_SIZE = 100;

  return {
    /** Any endpoint, checked with the schema given; for calls the client has no method for. */
    request,

    /** POST /companies: a company, with tags (Ferry tags each with its migration item). */
    createCompany: (params: { name: string; description?: string; tags?: Record<string, string> }, callOptions?: CallOptions) =>
      request<Company>({ operation: "createCompany", method: "POST", path: "/companies", body: params, schema: CompanySchema }, callOptions),

    /**
     * GET /companies, one page (pageSize 1 is the cheapest read that proves a key works), with their
     * connections; `tag` keeps those that carry it (a page of an engagement's companies).
     */
    listCompanies: (params: PageParams & { tag?: { name: string; value: string } } = {}, callOptions?: CallOptions) =>
      request<Paged<Company>>(
        {
          operation: "listCompanies",
          method: "GET",
          path: `/companies${query({ tags: params.tag ? tagFilter(params.tag.name, params.tag.value) : undefined, page: params.page, pageSize: params.pageSize })}`,
          schema: pagedSchema(CompanySchema),
        },
        callOptions,
      ),

    /** GET /companies?page=1&pageSize=1: how many companies the account holds (e.g. to word a full free trial). */
    countCompanies: (callOptions?: CallOptions) =>
      request<number>(
        { operation: "countCompanies", method: "GET", path: `/companies${query({ page: 1, pageSize: 1 })}`, schema: ListCountSchema },
        callOptions,
      ),

    /** GET /companies?tags=name=value, every page, keeping only exact matches. */
    findCompaniesByTag: async (params: { name: string; value: string }, callOptions?: CallOptions): Promise<ServiceResult<Company[]>> => {
      const found = await allPages({
        operation: "findCompaniesByTag",
        path: (page) => `/companies${query({ tags: tagFilter(params.name, params.value), page, pageSize: LIST_PAGE_SIZE })}`,
        item: CompanySchema,
        callOptions,
      });
      return { ...found, data: found.data.filter((company) => company.tags[params.name] === params.value) };
    },

    /** GET /companies/{companyId}. */
    getCompany: (params: { companyId: string }, callOptions?: CallOptions) =>
      request<Company>({ operation: "getCompany", method: "GET", path: `/companies/${seg(params.companyId)}`, schema: CompanySchema }, callOptions),

    /** GET /companies/{companyId}/connections, every page. */
    listConnections: (params: { companyId: string }, callOptions?: CallOptions) =>
      allPages({
        operation: "listConnections",
        path: (page) => `/companies/${seg(params.companyId)}/connections${query({ page, pageSize: LIST_PAGE_SIZE })}`,
        item: ConnectionSchema,
        callOptions,
      }),

    /** POST /companies/{companyId}/connections with the platform key. */
    createConnection: (params: { companyId: string; platformKey: PlatformKey | string }, callOptions?: CallOptions) =>
      request<Connection>(
        {
          operation: "createConnection",
          method: "POST",
          path: `/companies/${seg(params.companyId)}/connections`,
          body: { platformKey: params.platformKey },
          schema: ConnectionSchema,
        },
        callOptions,
      ),

    /** GET /companies/{companyId}/connections/{connectionId}. */
    getConnection: (params: { companyId: string; connectionId: string }, callOptions?: CallOptions) =>
      request<Connection>(
        {
          operation: "getConnection",
          method: "GET",
          path: `/companies/${seg(params.companyId)}/connections/${seg(params.connectionId)}`,
          schema: ConnectionSchema,
        },
        callOptions,
      ),

    /**
     * PUT …/authorization: the token migration. The credentials go in the body only; their values
     * are scrubbed from any error text.
     */
    authorizeConnection: (
      params: { companyId: string; connectionId: string; credentials: Readonly<Record<string, string>> },
      callOptions?: CallOptions,
    ) =>
      request<Connection>(
        {
          operation: "authorizeConnection",
          method: "PUT",
          path: `/companies/${seg(params.companyId)}/connections/${seg(params.connectionId)}/authorization`,
          body: params.credentials,
          schema: ConnectionSchema,
          secrets: Object.values(params.credentials),
        },
        callOptions,
      ),

    /** POST /companies/{companyId}/data/all: queue a sync of every data type (204). */
    refreshAllData: (params: { companyId: string }, callOptions?: CallOptions) =>
      request<undefined>(
        { operation: "refreshAllData", method: "POST", path: `/companies/${seg(params.companyId)}/data/all`, schema: NO_BODY },
        callOptions,
      ),

    /** GET /companies/{companyId}/dataStatus: per data type, its latest sync's status. */
    getDataStatus: (params: { companyId: string }, callOptions?: CallOptions) =>
      request<DataStatuses>(
        { operation: "getDataStatus", method: "GET", path: `/companies/${seg(params.companyId)}/dataStatus`, schema: DataStatusesSchema },
        callOptions,
      ),

    /** GET /companies/{companyId}/data/history: pull operations, newest first (one page). */
    listPullOperations: (params: { companyId: string } & PageParams, callOptions?: CallOptions) =>
      request<Paged<PullOperation>>(
        {
          operation: "listPullOperations",
          method: "GET",
          path: `/companies/${seg(params.companyId)}/data/history${query({ page: params.page, pageSize: params.pageSize })}`,
          schema: pagedSchema(PullOperationSchema),
        },
        callOptions,
      ),

    /** GET /companies/{companyId}/data/accounts: the accounting read that proves data arrived. */
    listAccounts: (params: { companyId: string } & PageParams, callOptions?: CallOptions) =>
      request<Paged<DataRecord>>(
        {
          operation: "listAccounts",
          method: "GET",
          path: `/companies/${seg(params.companyId)}/data/accounts${query({ page: params.page, pageSize: params.pageSize })}`,
          schema: pagedSchema(DataRecordSchema),
        },
        callOptions,
      ),

    /**
     * One page of a data type's records — accounting ones per company (`…/data/invoices`),
     * commerce ones per connection (`…/connections/{id}/data/commerce-products`) — for the
     * `totalResults` the service counts. Only the data types of DATA_LISTS have such a list.
     */
    listDataRecords: (params: { companyId: string; connectionId: string; dataType: ListedDataType } & PageParams, callOptions?: CallOptions) => {
      const list = DATA_LISTS[params.dataType];
      const base = list.perConnection ? `/companies/${seg(params.companyId)}/connections/${seg(params.connectionId)}` : `/companies/${seg(params.companyId)}`;
      return request<Paged<DataRecord>>(
        {
          operation: list.operation,
          method: "GET",
          path: `${base}/data/${list.path}${query({ page: params.page, pageSize: params.pageSize })}`,
          schema: pagedSchema(DataRecordSchema),
        },
        callOptions,
      );
    },

    /** GET …/connections/{connectionId}/data/commerce-orders: the commerce read that proves data arrived. */
    listCommerceOrders: (params: { companyId: string; connectionId: string } & PageParams, callOptions?: CallOptions) =>
      request<Paged<DataRecord>>(
        {
          operation: "listCommerceOrders",
          method: "GET",
          path: `/companies/${seg(params.companyId)}/connections/${seg(params.connectionId)}/data/commerce-orders${query({ page: params.page, pageSize: params.pageSize })}`,
          schema: pagedSchema(DataRecordSchema),
        },
        callOptions,
      ),
  };
}

export type ServiceClient = ReturnType<typeof createServiceClient>;
