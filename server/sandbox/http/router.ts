/**
 * A method + path table. One place decides "no such path" (404) versus "path exists, method
 * does not" (405), so every endpoint answers both the same way.
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type Route<C, R> = {
  method: HttpMethod;
  /** Literal segments and `:name` parameters, e.g. `/companies/:companyId`. */
  pattern: string;
  handler: (ctx: C) => R;
};

export type RouteMatch<C, R> =
  | { kind: "found"; handler: Route<C, R>["handler"]; params: Record<string, string>; pattern: string }
  | { kind: "method-not-allowed"; allowed: HttpMethod[] }
  | { kind: "not-found" };

type Segment = { literal: string } | { param: string };

type CompiledPattern<C, R> = {
  pattern: string;
  segments: Segment[];
  literals: number;
  handlers: Map<string, Route<C, R>["handler"]>;
};

/** Thrown when a path segment is not valid percent-encoding. */
export class MalformedPathError extends Error {}

function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return trimmed.split("/").slice(1);
}

/** Compiles the routes once; `match` is then a scan over the patterns of the same length. */
export function createRouter<C, R>(routes: readonly Route<C, R>[]) {
  const byPattern = new Map<string, CompiledPattern<C, R>>();
  for (const route of routes) {
    let compiled = byPattern.get(route.pattern);
    if (!compiled) {
      const segments: Segment[] = splitPath(route.pattern).map((s) =>
        s.startsWith(":") ? { param: s.slice(1) } : { literal: s },
      );
      compiled = {
        pattern: route.pattern,
        segments,
        literals: segments.filter((s) => "literal" in s).length,
        handlers: new Map(),
      };
      byPattern.set(route.pattern, compiled);
    }
    if (compiled.handlers.has(route.method)) throw new Error(`Duplicate route ${route.method} ${route.pattern}`);
    compiled.handlers.set(route.method, route.handler);
  }
  const byLength = new Map<number, CompiledPattern<C, R>[]>();
  for (const compiled of byPattern.values()) {
    const list = byLength.get(compiled.segments.length) ?? [];
    list.push(compiled);
    // Most literal segments first, so `/data/all` wins over a `/data/:x` of the same length.
    list.sort((a, b) => b.literals - a.literals);
    byLength.set(compiled.segments.length, list);
  }

  return {
    /** Finds the handler for a method and a raw (still percent-encoded) path. */
    match(method: string, rawPath: string): RouteMatch<C, R> {
      const parts = splitPath(rawPath);
      const candidates = byLength.get(parts.length);
      if (!candidates) return { kind: "not-found" };
      for (const compiled of candidates) {
        const params: Record<string, string> = {};
        let ok = true;
        for (let i = 0; i < parts.length; i++) {
          const segment = compiled.segments[i];
          const part = parts[i] ?? "";
          if (!segment) {
            ok = false;
            break;
          }
          if ("literal" in segment) {
            if (segment.literal !== part) {
              ok = false;
              break;
            }
            continue;
          }
          if (part === "") {
            ok = false;
            break;
          }
          try {
            params[segment.param] = decodeURIComponent(part);
          } catch {
            throw new MalformedPathError(part);
          }
        }
        if (!ok) continue;
        const handler = compiled.handlers.get(method);
        if (handler) return { kind: "found", handler, params, pattern: compiled.pattern };
        return { kind: "method-not-allowed", allowed: [...compiled.handlers.keys()] as HttpMethod[] };
      }
      return { kind: "not-found" };
    },
  };
}
