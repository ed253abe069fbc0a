/**
 * The service's query language (reference §2.2, DOCS querying.md) for `query`, `tags` and
 * `orderBy`, and the paged list envelope. Lists are filtered, ordered and paged here, in memory:
 * sandbox lists are small, and this keeps one behaviour for every list endpoint.
 *
 * Grammar: `expr := and ('||' and)*`, `and := factor ('&&' factor)*`,
 * `factor := '{' expr '}' | property op value`, ops `= != ~ > < >= <=`. A value runs to the next
 * `&&`, `||`, `}` or the end and may be quoted. String comparisons ignore case; `~` is "contains";
 * ISO dates compare as instants; numbers as numbers.
 */
import { badRequest, malformedQuery, unresolvedProperty, type ServiceName } from "./errors";

type Operator = "=" | "!=" | "~" | ">" | "<" | ">=" | "<=";

export type QueryNode =
  | { kind: "cmp"; property: string; op: Operator; value: string }
  | { kind: "and" | "or"; left: QueryNode; right: QueryNode };

const OPERATORS: readonly Operator[] = ["!=", ">=", "<=", "=", "~", ">", "<"];
const MAX_QUERY_LENGTH = 2048;

/** Why a query could not be parsed, with the position for the validation message. */
export class QueryParseError extends Error {}

/** Parses a query expression; throws QueryParseError on malformed input. */
export function parseQuery(text: string): QueryNode {
  if (text.length > MAX_QUERY_LENGTH) throw new QueryParseError(`The query is longer than ${MAX_QUERY_LENGTH} characters.`);
  let pos = 0;
  const skipSpaces = () => {
    while (pos < text.length && /\s/.test(text[pos] ?? "")) pos++;
  };
  const peek = (token: string) => text.startsWith(token, pos);

  const parseComparison = (): QueryNode => {
    skipSpaces();
    const start = pos;
    while (pos < text.length && /[A-Za-z0-9_.]/.test(text[pos] ?? "")) pos++;
    const property = text.slice(start, pos);
    if (!property) throw new QueryParseError(`Expected a property name at position ${start + 1}.`);
    skipSpaces();
    const op = OPERATORS.find((o) => peek(o));
    if (!op) throw new QueryParseError(`Expected an operator (= != ~ > < >= <=) after ${property} at position ${pos + 1}.`);
    pos += op.length;
    const valueStart = pos;
    while (pos < text.length && !peek("&&") && !peek("||") && !peek("}")) pos++;
    let value = text.slice(valueStart, pos).trim();
    if (value.length >= 2 && (value[0] === "'" || value[0] === '"') && value.at(-1) === value[0]) {
      value = value.slice(1, -1);
    }
    if (value === "") throw new QueryParseError(`Expected a value after ${property}${op} at position ${valueStart + 1}.`);
    return { kind: "cmp", property, op, value };
  };

  const parseFactor = (): QueryNode => {
    skipSpaces();
    if (!peek("{")) return parseComparison();
    pos++;
    const inner = parseOr();
    skipSpaces();
    if (!peek("}")) throw new QueryParseError(`Expected } at position ${pos + 1}.`);
    pos++;
    return inner;
  };

  const parseAnd = (): QueryNode => {
    let node = parseFactor();
    skipSpaces();
    while (peek("&&")) {
      pos += 2;
      node = { kind: "and", left: node, right: parseFactor() };
      skipSpaces();
    }
    return node;
  };

  function parseOr(): QueryNode {
    let node = parseAnd();
    skipSpaces();
    while (peek("||")) {
      pos += 2;
      node = { kind: "or", left: node, right: parseAnd() };
      skipSpaces();
    }
    return node;
  }

  const node = parseOr();
  skipSpaces();
  if (pos < text.length) throw new QueryParseError(`Unexpected "${text.slice(pos, pos + 10)}" at position ${pos + 1}.`);
  return node;
}

function properties(node: QueryNode): string[] {
  if (node.kind === "cmp") return [node.property];
  return [...properties(node.left), ...properties(node.right)];
}

function operators(node: QueryNode): Operator[] {
  if (node.kind === "cmp") return [node.op];
  return [...operators(node.left), ...operators(node.right)];
}

function resolve(item: unknown, property: string): unknown {
  let current: unknown = item;
  for (const part of property.split(".")) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

function compare(actual: unknown, op: Operator, expected: string): boolean {
  if (actual === undefined || actual === null) return op === "!=";
  let order: number;
  if (typeof actual === "number") {
    const n = Number(expected);
    if (Number.isNaN(n)) return op === "!=";
    order = actual === n ? 0 : actual < n ? -1 : 1;
  } else if (typeof actual === "boolean") {
    order = String(actual) === expected.toLowerCase() ? 0 : 1;
    if (op !== "=" && op !== "!=") return false;
  } else if (typeof actual === "string") {
    const a = actual.toLowerCase();
    const e = expected.toLowerCase();
    if (op === "~") return a.includes(e);
    if (ISO_DATE.test(actual) && ISO_DATE.test(expected) && !Number.isNaN(Date.parse(expected))) {
      const diff = Date.parse(actual) - Date.parse(expected);
      order = diff === 0 ? 0 : diff < 0 ? -1 : 1;
    } else {
      order = a === e ? 0 : a < e ? -1 : 1;
    }
  } else {
    return op === "!=";
  }
  switch (op) {
    case "=":
      return order === 0;
    case "!=":
      return order !== 0;
    case "~":
      return false;
    case ">":
      return order > 0;
    case "<":
      return order < 0;
    case ">=":
      return order >= 0;
    case "<=":
      return order <= 0;
    default: {
      const never: never = op;
      return never;
    }
  }
}

/** True when `item` satisfies the parsed query. */
export function matches(node: QueryNode, item: unknown): boolean {
  switch (node.kind) {
    case "cmp":
      return compare(resolve(item, node.property), node.op, node.value);
    case "and":
      return matches(node.left, item) && matches(node.right, item);
    case "or":
      return matches(node.left, item) || matches(node.right, item);
    default: {
      const never: never = node;
      return never;
    }
  }
}

export type Paging = { page: number; pageSize: number };

/** The largest `pageSize` a request may ask for (the spec's `pageSize` parameter). */
const MAX_PAGE_SIZE = 5000;
/**
 * The largest page an answer holds (the spec's `PagingInfo.pageSize`, maximum 2,000): a request
 * asking for more is answered 2,000 at a time, its `pageSize` and `_links` saying so.
 */
export const MAX_ANSWER_PAGE_SIZE = 2000;

function positiveInt(params: { name: string; raw: string | null; fallback: number; max?: number }) {
  if (params.raw === null || params.raw === "") return { value: params.fallback };
  if (!/^\d+$/.test(params.raw)) return { problem: `${params.name} must be a whole number of at least 1.` };
  const value = Number(params.raw);
  if (value < 1) return { problem: `${params.name} must be at least 1.` };
  if (params.max !== undefined && value > params.max) return { problem: `${params.name} must be at most ${params.max}.` };
  return { value };
}

/**
 * Reads `page` (default 1) and `pageSize` (default 100, max 5000; 400 naming each bad one). The
 * paging answered caps the page at MAX_ANSWER_PAGE_SIZE: `page` counts pages of that size then.
 */
export function parsePaging(query: URLSearchParams): Paging {
  const page = positiveInt({ name: "page", raw: query.get("page"), fallback: 1 });
  const pageSize = positiveInt({ name: "pageSize", raw: query.get("pageSize"), fallback: 100, max: MAX_PAGE_SIZE });
  const problems = [
    ...("problem" in page ? [{ itemId: "page", message: page.problem ?? "", validatorName: "Paging" }] : []),
    ...("problem" in pageSize ? [{ itemId: "pageSize", message: pageSize.problem ?? "", validatorName: "Paging" }] : []),
  ];
  if (problems.length) throw badRequest(problems);
  return { page: page.value ?? 1, pageSize: Math.min(pageSize.value ?? 100, MAX_ANSWER_PAGE_SIZE) };
}

export type PagedEnvelope<T> = {
  results: T[];
  pageNumber: number;
  pageSize: number;
  totalResults: number;
  _links: {
    self: { href: string };
    current: { href: string };
    next?: { href: string };
    previous?: { href: string };
  };
};

/** The paged envelope with `_links` (self = path, current/next/previous = path with query). */
export function pagedEnvelope<T>(params: {
  results: T[];
  paging: Paging;
  totalResults: number;
  path: string;
  query: URLSearchParams;
}): PagedEnvelope<T> {
  const { paging, path } = params;
  const href = (page: number) => {
    const q = new URLSearchParams();
    q.set("page", String(page));
    q.set("pageSize", String(paging.pageSize));
    for (const name of ["query", "orderBy", "tags"]) {
      const value = params.query.get(name);
      if (value) q.set(name, value);
    }
    return { href: `${path}?${q.toString()}` };
  };
  const envelope: PagedEnvelope<T> = {
    results: params.results,
    pageNumber: paging.page,
    pageSize: paging.pageSize,
    totalResults: params.totalResults,
    _links: { self: { href: path }, current: href(paging.page) },
  };
  if (paging.page * paging.pageSize < params.totalResults) envelope._links.next = href(paging.page + 1);
  if (paging.page > 1) envelope._links.previous = href(paging.page - 1);
  return envelope;
}

/** How one list endpoint filters: its entity name in messages, its service and its properties. */
export type ListSpec = {
  entity: string;
  service: ServiceName;
  properties: ReadonlySet<string>;
};

function parseOrParseError(params: { text: string; service: ServiceName; itemId: string }): QueryNode {
  try {
    return parseQuery(params.text);
  } catch (error) {
    if (error instanceof QueryParseError) {
      throw malformedQuery({ service: params.service, itemId: params.itemId, detail: error.message });
    }
    throw error;
  }
}

/** Reads `query` against a list's properties; null when absent. */
export function readQuery(query: URLSearchParams, spec: ListSpec): QueryNode | null {
  const text = query.get("query");
  if (text === null || text.trim() === "") return null;
  const node = parseOrParseError({ text, service: spec.service, itemId: "query" });
  for (const property of properties(node)) {
    const root = property.split(".")[0] ?? property;
    if (!spec.properties.has(root)) throw unresolvedProperty({ service: spec.service, property, entity: spec.entity });
  }
  return node;
}

/** Reads the companies `tags` filter: tag keys as properties, only `=`, `!=` and `~`. */
export function readTagsFilter(query: URLSearchParams): QueryNode | null {
  const text = query.get("tags");
  if (text === null || text.trim() === "") return null;
  const node = parseOrParseError({ text, service: "ClientsApi", itemId: "tags" });
  const bad = operators(node).find((op) => op !== "=" && op !== "!=" && op !== "~");
  if (bad) {
    throw malformedQuery({ service: "ClientsApi", itemId: "tags", detail: `The tags filter allows only =, != and ~, not ${bad}.` });
  }
  return node;
}

type OrderKey = { property: string; descending: boolean };

/** Reads `orderBy` (`name`, `-created`, comma-separated); null when absent. */
export function readOrderBy(query: URLSearchParams, spec: ListSpec): OrderKey[] | null {
  const text = query.get("orderBy");
  if (text === null || text.trim() === "") return null;
  return text.split(",").map((part) => {
    const trimmed = part.trim();
    const descending = trimmed.startsWith("-");
    const property = descending ? trimmed.slice(1) : trimmed;
    if (!/^[A-Za-z0-9_.]+$/.test(property)) {
      throw malformedQuery({ service: spec.service, itemId: "orderBy", detail: `Cannot order by "${trimmed}".` });
    }
    if (!spec.properties.has(property.split(".")[0] ?? property)) {
      throw unresolvedProperty({ service: spec.service, property, entity: spec.entity });
    }
    return { property, descending };
  });
}

function orderValue(value: unknown): number | string {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string") return value.toLowerCase();
  return "";
}

/** Sorts a copy of `items` by the order keys (stable). */
export function sortItems<T>(items: readonly T[], keys: readonly OrderKey[]): T[] {
  return [...items].sort((a, b) => {
    for (const key of keys) {
      const x = orderValue(resolve(a, key.property));
      const y = orderValue(resolve(b, key.property));
      if (x === y) continue;
      const order = x < y ? -1 : 1;
      return key.descending ? -order : order;
    }
    return 0;
  });
}

/** Filters, orders and pages an in-memory list into the paged envelope. */
export function listPage<T>(params: {
  items: readonly T[];
  query: URLSearchParams;
  spec: ListSpec;
  path: string;
  filter?: (item: T) => boolean;
}): PagedEnvelope<T> {
  const paging = parsePaging(params.query);
  const node = readQuery(params.query, params.spec);
  const orderBy = readOrderBy(params.query, params.spec);
  let items = params.items.filter((item) => (!node || matches(node, item)) && (!params.filter || params.filter(item)));
  if (orderBy) items = sortItems(items, orderBy);
  const start = (paging.page - 1) * paging.pageSize;
  return pagedEnvelope({
    results: items.slice(start, start + paging.pageSize),
    paging,
    totalResults: items.length,
    path: params.path,
    query: params.query,
  });
}
