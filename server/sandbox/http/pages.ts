/**
 * What the sandbox's public HTML pages share (the Link pages, the developer console): an answer of
 * a page, the context a page route gets, and reading a route's path parameter.
 */
import type { IncomingMessage } from "node:http";
import type { SandboxApp } from "../context";

/** A page's answer: status, body and content type, with any extra headers (a redirect's Location). */
export type PageResponse = {
  status: number;
  body: string;
  contentType: string;
  headers?: Record<string, string>;
};

/** What a page route is given: the app, the sandbox clock now, the path's parameters, the query and the request. */
export type PageContext = {
  app: SandboxApp;
  now: number;
  params: Record<string, string>;
  query: URLSearchParams;
  req: IncomingMessage;
};

const HTML = "text/html; charset=utf-8";

/** An HTML page with `status`. */
export function htmlPage(status: number, body: string, headers?: Record<string, string>): PageResponse {
  return { status, body, contentType: HTML, headers };
}

/** The path parameter `name` of a route that declares it (`where` names the routes in the error of one that does not). */
export function routeParam(ctx: Pick<PageContext, "params">, name: string, where: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`${where} has no :${name} parameter`);
  return value;
}
