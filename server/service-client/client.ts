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
  ValidationResultSchema,
  ErrorBodySchema,
  ListCountSchema,
  pagedSchema,
  PullOperationSchema,
  type Company,
  type Connection,
  type DataRecord,
  type DataStatuses,
  type ValidationResult,
  type ErrorBody,
  type Paged,
  type PullOperation,
} from "./schemas";
import { classifyHttpError, readValidation, redact, ServiceError, withoutControlCharacters, type ServiceErrorKind } from "./service-error";
import type { AddressPolicy } from "./addresses";
import { AddressRefusedError, AnswerTooLargeError, createGuard, MAX_ANSWER_BYTES, readCapped, type Guard, type Resolve } from "./transport";

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

/** What a client holds for every call: its options, its key's header, the fetch and the address guard. */
type ClientState = {
  options: ServiceClientOptions;
  baseUrl: string;
  authorization: string;
  /** The key as given and as sent (base64): kept out of every error text. */
  keySecrets: readonly string[];
  doFetch: typeof fetch;
  guard: Guard;
  maxAnswerBytes: number;
};

/** One call: what its attempts share (they are made one after another, never at once). */
type CallState = {
  client: ClientState;
  operation: string;
  method: RawRequest<unknown>["method"];
  path: string;
  callOptions: CallOptions;
  /** The key and the call's own secrets, scrubbed from whatever a server says. */
  secrets: readonly string[];
  timeoutMs: number;
  /** The end of the call's time budget (epoch ms), or Infinity. */
  deadline: number;
  payload: string | undefined;
  headers: Record<string, string>;
  startedTick: number;
  attempts: number;
  /** The last attempt's error: the call ends with it when the time budget runs out during a backoff. */
  lastError: ServiceError | null;
  budgetSpent: () => boolean;
};

/** One attempt of a call. */
type AttemptState = {
  call: CallState;
  url: URL;
  /** Fires when the attempt's time is up: it tells a timeout from a network failure. */
  timeout: AbortSignal;
  timeoutMs: number;
  /** The attempt's timeout, the retry policy's signal and the caller's, together. */
  signal: AbortSignal;
  startedTick: number;
  /** Clears the attempt's timer and its listeners on the longer-lived signals, once it has ended. */
  dispose(): void;
};

/** What an attempt's outcome says of a failure (the call supplies the rest of its ServiceError). */
type FailureFields = {
  kind: ServiceErrorKind;
  status: number | null;
  error: string;
  service?: string | null;
  correlationId?: string | null;
  validation?: ServiceError["validation"];
  rateLimit?: RateLimitInfo | null;
};

/** A call's ServiceError from a failure's fields, with what a server said scrubbed of secrets and control characters. */
function callError(call: CallState, fields: FailureFields): ServiceError {
  const service = fields.service ?? null;
  const correlationId = fields.correlationId ?? null;
  const rateLimit = fields.rateLimit ?? null;
  return new ServiceError({
    kind: fields.kind,
    status: fields.status,
    validation: fields.validation ?? null,
    rateLimit,
    // What a server says is shown and stored: no control character of it can forge a line or hide words.
    error: withoutControlCharacters(redact(fields.error, call.secrets)),
    service: service === null ? null : withoutControlCharacters(service),
    correlationId: correlationId === null ? null : withoutControlCharacters(correlationId),
    operation: call.operation,
    method: call.method,
    path: call.path,
    retryAfterMs: rateLimit?.retryAfterMs ?? null,
    attempts: call.attempts,
    durationMs: Math.round(performance.now() - call.startedTick),
  });
}

/** Tells `onAttempt` how an attempt ended. */
function reportAttempt(attempt: AttemptState, outcome: { status: number | null; kind: ServiceErrorKind | null; correlationId: string | null }): void {
  const { call } = attempt;
  call.client.options.onAttempt?.({
    operation: call.operation,
    method: call.method,
    path: call.path,
    attempt: call.attempts,
    ...outcome,
    durationMs: Math.round(performance.now() - attempt.startedTick),
  });
}

/** Reports an attempt that failed with `error`, and returns the error for the caller to throw. */
function reported(attempt: AttemptState, status: number | null, error: ServiceError): ServiceError {
  reportAttempt(attempt, { status, kind: error.kind, correlationId: error.correlationId });
  return error;
}

/** The failure of an attempt that got no (whole) answer: refused address, timeout or network. */
function noAnswerError(attempt: AttemptState, thrown: unknown): ServiceError {
  const cause = thrown instanceof Error && thrown.cause instanceof Error ? thrown.cause : thrown;
  if (cause instanceof AddressRefusedError) return callError(attempt.call, { kind: "address_refused", status: null, error: cause.message });
  const timedOut = attempt.timeout.aborted;
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : null;
  const detail = code ?? (cause instanceof Error ? cause.message : "no answer");
  return callError(attempt.call, {
    kind: timedOut ? "timeout" : "network",
    status: null,
    error: timedOut ? `No answer within ${attempt.timeoutMs} ms.` : `The service could not be reached (${detail}).`,
  });
}

/** A new attempt of a call: its URL, and a timeout that never runs past the call's time budget. */
function startAttempt(call: CallState, policySignal: AbortSignal): AttemptState {
  const startedTick = performance.now();
  const timeoutMs = Math.max(1, Math.round(Math.min(call.timeoutMs, call.deadline - Date.now())));
  // Not AbortSignal.timeout and AbortSignal.any: a timeout's signal lives (with its timer) for the
  // whole timeout however soon the answer came, and `any` ties each attempt's signal, and what the
  // request hangs on it, to the long-lived ones (a bulk run's): at hundreds of requests a second a
  // worker held every request of the last minute. Here the timer and listeners go with the attempt.
  const timeout = new AbortController();
  const combined = new AbortController();
  const timer = setTimeout(() => {
    timeout.abort(new DOMException(`No answer within ${timeoutMs} ms.`, "TimeoutError"));
    combined.abort(timeout.signal.reason);
  }, timeoutMs);
  const sources = [policySignal, ...(call.callOptions.signal ? [call.callOptions.signal] : [])];
  const onAbort = (event: Event) => combined.abort((event.target as AbortSignal).reason);
  for (const source of sources) {
    if (source.aborted) combined.abort(source.reason);
    else source.addEventListener("abort", onAbort, { once: true });
  }
  const dispose = () => {
    clearTimeout(timer);
    for (const source of sources) source.removeEventListener("abort", onAbort);
  };
  return { call, url: new URL(`${call.client.baseUrl}${call.path}`), timeout: timeout.signal, timeoutMs, signal: combined.signal, startedTick, dispose };
}

/** Sends an attempt's request; an address written in the URL that the rule refuses is refused before anything is sent. */
async function send(attempt: AttemptState): Promise<Response> {
  const { call, url } = attempt;
  const { guard, doFetch } = call.client;
  const refused = guard.refusal(url);
  if (refused) throw reported(attempt, null, noAnswerError(attempt, refused));
  try {
    // `dispatcher` is undici's option of Node's fetch (not in the DOM's RequestInit).
    const init: RequestInit & { dispatcher: ReturnType<typeof guard.dispatcher> } = {
      method: call.method,
      headers: call.headers,
      body: call.payload,
      signal: attempt.signal,
      redirect: "manual",
      dispatcher: guard.dispatcher(url),
    };
    return await doFetch(url, init);
  } catch (thrown) {
    if (call.callOptions.signal?.aborted) throw call.callOptions.signal.reason;
    throw reported(attempt, null, noAnswerError(attempt, thrown));
  }
}

/** Where a redirect points, for its error: its Location resolved against the request's URL (as written when it is no URL). */
export function redirectTarget(location: string | null, url: URL): string {
  if (!location) return "no location";
  try {
    return new URL(location, url).toString();
  } catch {
    return location;
  }
}

/**
 * A redirect is never followed: the next request would carry the body (the tokens) to wherever it
 * points, over http too. Its body is not read.
 */
async function refuseRedirect(attempt: AttemptState, response: Response): Promise<ServiceError> {
  await response.body?.cancel().catch(() => {});
  const where = redirectTarget(response.headers.get("location"), attempt.url);
  const error = callError(attempt.call, {
    kind: "redirected",
    status: response.status,
    error: `The service answered ${response.status} redirecting to ${where.slice(0, 300)}: Ferry follows no redirect (the request would carry the key and tokens there), so nothing was sent on. Check the target's base URL.`,
    correlationId: response.headers.get("x-correlation-id"),
  });
  return reported(attempt, response.status, error);
}

/** The answer's body as text, up to the client's cap (past it, or cut off, the attempt fails). */
async function readText(attempt: AttemptState, response: Response): Promise<string> {
  const { call } = attempt;
  try {
    return await readCapped(response, call.client.maxAnswerBytes);
  } catch (thrown) {
    if (call.callOptions.signal?.aborted) throw call.callOptions.signal.reason;
    const error =
      thrown instanceof AnswerTooLargeError
        ? callError(call, { kind: "answer_too_large", status: response.status, error: thrown.message, correlationId: response.headers.get("x-correlation-id") })
        : noAnswerError(attempt, thrown);
    throw reported(attempt, response.status, error);
  }
}

/**
 * What an error answer says: its JSON error body where it has one (its validation scrubbed of
 * `secrets`), else its status in words; and the kind of error that makes it.
 */
export function readErrorAnswer(params: { status: number; statusText: string; text: string; secrets: readonly string[] }): {
  kind: ServiceErrorKind;
  error: string;
  service: string | null;
  /** The body's correlationId (null without one: the header's then stands). */
  correlationId: string | null;
  validation: ServiceError["validation"];
} {
  const { status, statusText } = params;
  let body: ErrorBody | null = null;
  try {
    const parsed = ErrorBodySchema.safeParse(JSON.parse(params.text));
    if (parsed.success) body = parsed.data;
  } catch {
    // Not JSON (e.g. a proxy's HTML page): the status speaks for itself.
  }
  const error = body?.error ?? `HTTP ${status}${statusText ? ` ${statusText}` : ""}`;
  const validation = readValidation(body, params.secrets);
  return { kind: classifyHttpError({ status, error, validation }), error, service: body?.service ?? null, correlationId: body?.correlationId ?? null, validation };
}

/**
 * A successful answer's data, checked with the call's schema: an empty body (204) is checked as
 * `undefined`, and so is one that is not JSON; a body the schema refuses is a problem in words.
 */
export function checkAnswer<T>(params: { schema: z.ZodType<T>; text: string; status: number; operation: string }): { data: T } | { problem: string } {
  const { status, operation } = params;
  let json: unknown;
  try {
    json = params.text.trim() === "" ? undefined : JSON.parse(params.text);
  } catch {
    json = undefined;
  }
  const parsed = params.schema.safeParse(json);
  if (parsed.success) return { data: parsed.data };
  return {
    problem:
      json === undefined
        ? `The service answered ${status} without the JSON body ${operation} expects.`
        : `The service answered ${status} with a body ${operation} does not recognise: ${describeIssues(parsed.error)}.`,
  };
}

/** One attempt of a call, from its request to its checked data, or the ServiceError it ends with. */
async function runAttempt<T>(call: CallState, schema: z.ZodType<T>, policySignal: AbortSignal): Promise<ServiceResult<T>> {
  const { callOptions } = call;
  callOptions.signal?.throwIfAborted();
  // The time budget ran out during the backoff: end with what the last attempt said.
  if (call.lastError && call.budgetSpent()) throw call.lastError;
  call.attempts += 1;
  const attempt = startAttempt(call, policySignal);
  try {
    return await answerOf(attempt, schema);
  } finally {
    attempt.dispose();
  }
}

/** An attempt's request sent, and its answer read and checked (or the ServiceError it ends with). */
async function answerOf<T>(attempt: AttemptState, schema: z.ZodType<T>): Promise<ServiceResult<T>> {
  const { call } = attempt;
  const { operation } = call;
  const response = await send(attempt);
  const { status } = response;
  if (status >= 300 && status < 400) throw await refuseRedirect(attempt, response);
  const text = await readText(attempt, response);

  const rateLimit = parseRateLimit(response.headers);
  if (rateLimit) call.client.options.onRateLimit?.(rateLimit, { operation, status });
  const headerCorrelationId = response.headers.get("x-correlation-id");

  if (!response.ok) {
    const answer = readErrorAnswer({ status, statusText: response.statusText, text, secrets: call.secrets });
    throw reported(attempt, status, callError(call, { ...answer, status, correlationId: answer.correlationId ?? headerCorrelationId, rateLimit }));
  }
  const checked = checkAnswer({ schema, text, status, operation });
  if ("problem" in checked) {
    throw reported(attempt, status, callError(call, { kind: "unexpected", status, error: checked.problem, correlationId: headerCorrelationId, rateLimit }));
  }
  reportAttempt(attempt, { status, kind: null, correlationId: headerCorrelationId });
  return {
    data: checked.data,
    meta: {
      operation,
      method: call.method,
      path: call.path,
      status,
      correlationId: headerCorrelationId,
      durationMs: Math.round(performance.now() - call.startedTick),
      attempts: call.attempts,
      rateLimit,
    },
  };
}

/** One call: its attempts under its retry policy, ending with the answer's data or one ServiceError. */
async function callService<T>(client: ClientState, raw: RawRequest<T>, callOptions: CallOptions): Promise<ServiceResult<T>> {
  const { options } = client;
  const { operation } = raw;
  const setting = callOptions.retry ?? options.retry ?? DEFAULT_RETRY;
  const startedAt = Date.now();
  const startedTick = performance.now();
  const deadline = callDeadline(setting, startedAt);
  const payload = raw.body === undefined ? undefined : JSON.stringify(raw.body);
  const { policy, budgetSpent } = buildRetryPolicy({
    setting,
    deadline,
    onRetry: options.onRetry && ((event) => options.onRetry?.({ ...event, operation })),
  });
  const call: CallState = {
    client,
    operation,
    method: raw.method,
    path: raw.path,
    callOptions,
    secrets: [...client.keySecrets, ...(raw.secrets ?? [])],
    timeoutMs: callOptions.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    deadline,
    payload,
    headers: {
      Authorization: client.authorization,
      Accept: "application/json",
      "User-Agent": "ferry-service-client",
      ...(payload === undefined ? {} : { "Content-Type": "application/json" }),
    },
    startedTick,
    attempts: 0,
    lastError: null,
    budgetSpent,
  };
  return policy.execute(async ({ signal }) => {
    try {
      return await runAttempt(call, raw.schema, signal);
    } catch (error) {
      if (error instanceof ServiceError) call.lastError = error;
      throw error;
    }
  }, callOptions.signal);
}

/** A call of any endpoint, its answer checked with the schema given (the client's `request`). */
type ServiceRequest = <T>(raw: RawRequest<T>, callOptions?: CallOptions) => Promise<ServiceResult<T>>;

const LIST_PAGE_SIZE = 100;

/** A list's answer, as far as paging goes. */
type PageAnswer = { results: readonly unknown[]; pageNumber: number; pageSize: number; totalResults: number };

/**
 * The page after an answer, by what the answer says — its `pageNumber`, `pageSize` and
 * `totalResults` — never by what was asked: the service may answer fewer a page than asked (the
 * spec caps an answer's page at 2,000 where a request may ask 5,000), and the next request then
 * asks for the next page of the answer's size. Null after the last page (or an empty one).
 */
export function nextPage(answer: PageAnswer): Required<PageParams> | null {
  if (answer.results.length === 0 || answer.pageNumber < 1 || answer.pageSize < 1) return null;
  if (answer.pageNumber * answer.pageSize >= answer.totalResults) return null;
  return { page: answer.pageNumber + 1, pageSize: answer.pageSize };
}

/** Every page of a list, for lookups that must see everything (a tag, a company's connections). */
async function allPages<T>(
  request: ServiceRequest,
  params: { operation: string; path: (paging: Required<PageParams>) => string; item: z.ZodType<T>; callOptions?: CallOptions },
): Promise<ServiceResult<T[]>> {
  const schema = pagedSchema(params.item);
  const results: T[] = [];
  let attempts = 0;
  const startedTick = performance.now();
  for (let asked: Required<PageParams> | null = { page: 1, pageSize: LIST_PAGE_SIZE }; ; ) {
    const { data, meta } = await request({ operation: params.operation, method: "GET", path: params.path(asked), schema }, params.callOptions);
    attempts += meta.attempts;
    results.push(...data.results);
    asked = nextPage(data);
    if (!asked) return { data: results, meta: { ...meta, attempts, durationMs: Math.round(performance.now() - startedTick) } };
  }
}

/** GET /companies, one page; `tag` keeps those that carry it. */
function listCompaniesCall(request: ServiceRequest) {
  return (params: PageParams & { tag?: { name: string; value: string } } = {}, callOptions?: CallOptions) =>
    request<Paged<Company>>(
      {
        operation: "listCompanies",
        method: "GET",
        path: `/companies${query({ tags: params.tag ? tagFilter(params.tag.name, params.tag.value) : undefined, page: params.page, pageSize: params.pageSize })}`,
        schema: pagedSchema(CompanySchema),
      },
      callOptions,
    );
}

/** The calls on companies. */
function companyCalls(request: ServiceRequest) {
  const listCompanies = listCompaniesCall(request);
  return {
    /** POST /companies: a company, with tags (Ferry tags each with its migration item). */
    createCompany: (params: { name: string; description?: string; tags?: Record<string, string> }, callOptions?: CallOptions) =>
      request<Company>({ operation: "createCompany", method: "POST", path: "/companies", body: params, schema: CompanySchema }, callOptions),

    /**
     * GET /companies, one page (pageSize 1 is the cheapest read that proves a key works), with their
     * connections; `tag` keeps those that carry it (a page of an engagement's companies).
     */
    listCompanies,

    /**
     * GET /companies (with `tag`), every page in turn, one request each: the first asks for
     * `pageSize` companies, each next one for the page after the answer by the answer's own
     * `pageNumber` and `pageSize` (`nextPage`), so a service answering fewer than asked misses none.
     */
    companyPages: async function* (params: { pageSize: number; tag?: { name: string; value: string } }, callOptions?: CallOptions): AsyncGenerator<ServiceResult<Paged<Company>>> {
      for (let asked: Required<PageParams> | null = { page: 1, pageSize: params.pageSize }; asked; ) {
        const answer = await listCompanies({ tag: params.tag, ...asked }, callOptions);
        yield answer;
        asked = nextPage(answer.data);
      }
    },

    /** GET /companies?page=1&pageSize=1: how many companies the account holds (e.g. to word a full free trial). */
    countCompanies: (callOptions?: CallOptions) =>
      request<number>(
        { operation: "countCompanies", method: "GET", path: `/companies${query({ page: 1, pageSize: 1 })}`, schema: ListCountSchema },
        callOptions,
      ),

    /** GET /companies?tags=name=value, every page, keeping only exact matches. */
    findCompaniesByTag: async (params: { name: string; value: string }, callOptions?: CallOptions): Promise<ServiceResult<Company[]>> => {
      const found = await allPages(request, {
        operation: "findCompaniesByTag",
        path: (paging) => `/companies${query({ tags: tagFilter(params.name, params.value), ...paging })}`,
        item: CompanySchema,
        callOptions,
      });
      return { ...found, data: found.data.filter((company) => company.tags[params.name] === params.value) };
    },

    /** GET /companies/{companyId}. */
    getCompany: (params: { companyId: string }, callOptions?: CallOptions) =>
      request<Company>({ operation: "getCompany", method: "GET", path: `/companies/${seg(params.companyId)}`, schema: CompanySchema }, callOptions),

    /** DELETE /companies/{companyId} (204): the company and its connections are gone from the service. */
    deleteCompany: (params: { companyId: string }, callOptions?: CallOptions) =>
      request<undefined>({ operation: "deleteCompany", method: "DELETE", path: `/companies/${seg(params.companyId)}`, schema: NO_BODY }, callOptions),
  };
}

/** The calls on a company's connections, the token migration among them. */
function connectionCalls(request: ServiceRequest) {
  return {
    /** GET /companies/{companyId}/connections, every page. */
    listConnections: (params: { companyId: string }, callOptions?: CallOptions) =>
      allPages(request, {
        operation: "listConnections",
        path: (paging) => `/companies/${seg(params.companyId)}/connections${query(paging)}`,
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
    /** PATCH /companies/{companyId}/connections/{connectionId} `{status: "Unlinked"}`: the service stops reading through it (it stays, Unlinked, and can be linked again). */
    unlinkConnection: (params: { companyId: string; connectionId: string }, callOptions?: CallOptions) =>
      request<Connection>(
        {
          operation: "unlinkConnection",
          method: "PATCH",
          path: `/companies/${seg(params.companyId)}/connections/${seg(params.connectionId)}`,
          body: { status: "Unlinked" },
          schema: ConnectionSchema,
        },
        callOptions,
      ),
  };
}

/** The calls on a company's data: syncs, their statuses and history, and the reads that prove data arrived. */
function dataCalls(request: ServiceRequest) {
  return {
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

    /**
     * GET /companies/{companyId}/sync/{datasetId}/validation: the warnings and errors the service's
     * validation found in one dataset (a data type's sync, its id from the data status). The path is
     * the OAS's (codatio/oas, get-read-validation-results), as the issue named it.
     */
    getValidationResults: (params: { companyId: string; datasetId: string }, callOptions?: CallOptions) =>
      request<ValidationResult>(
        {
          operation: "getValidationResults",
          method: "GET",
          path: `/companies/${seg(params.companyId)}/sync/${seg(params.datasetId)}/validation`,
          schema: ValidationResultSchema,
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

/** A client of the service at `baseUrl` with one API key. */
export function createServiceClient(options: ServiceClientOptions) {
  const client: ClientState = {
    options,
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    authorization: `Basic ${Buffer.from(options.apiKey).toString("base64")}`,
    keySecrets: [options.apiKey, Buffer.from(options.apiKey).toString("base64")],
    doFetch: options.fetch ?? globalThis.fetch,
    guard: createGuard({ policy: options.addresses ?? "public", ...(options.resolve ? { resolve: options.resolve } : {}), ...(options.ca ? { ca: options.ca } : {}) }),
    maxAnswerBytes: options.maxAnswerBytes ?? MAX_ANSWER_BYTES,
  };
  const request: ServiceRequest = (raw, callOptions = {}) => callService(client, raw, callOptions);
  return {
    /** Any endpoint, checked with the schema given; for calls the client has no method for. */
    request,
    ...companyCalls(request),
    ...connectionCalls(request),
    ...dataCalls(request),
  };
}

export type ServiceClient = ReturnType<typeof createServiceClient>;
