/**
 * Companies (reference §3): create (200; 402 for the 51st on a free trial), list (paged, `query`,
 * `tags`, `orderBy`), get, replace (PUT), update (PATCH), delete (204).
 */
import { randomUUID } from "node:crypto";
import { serviceCompanyName } from "../../platforms";
import { requireCompany, type ApiContext } from "../context";
import { badRequest, companyLimitExceeded, type ValidationItem } from "../http/errors";
import { isPlainObject, type ApiResponse } from "../http/io";
import { FREE_COMPANY_LIMIT } from "../domain/limits";
import { listPage, matches, pagedEnvelope, parsePaging, readTagsFilter, type ListSpec } from "../http/query";
import type { CompanyRow } from "../store/store";
import { linkUrlsFor, type LinkUrls } from "../link/link-urls";
import { companyView } from "./views";
import type { ApiRoute } from "./types";

const MAX_NAME = 500;
const MAX_DESCRIPTION = 4000;
const MAX_TAGS = 10;

type CompanyFields = { name?: string; description?: string | null; tags?: Record<string, string> | null };

function readFields(body: unknown, mode: "create" | "replace" | "update"): CompanyFields {
  const input = body === undefined ? {} : body;
  if (!isPlainObject(input)) throw badRequest([{ itemId: "body", message: "The body must be an object with name, description and tags." }]);
  const problems: ValidationItem[] = [];
  const fields: CompanyFields = {};
  const validatorName = mode === "create" ? "CreateCompany" : "UpdateCompany";

  const rawName = input.name;
  if (rawName === undefined || rawName === null) {
    if (mode !== "update") problems.push({ itemId: "name", message: "name is required.", validatorName });
  } else if (typeof rawName !== "string") {
    problems.push({ itemId: "name", message: "name must be a string.", validatorName });
  } else {
    const name = serviceCompanyName(rawName);
    if (!name) {
      problems.push({
        itemId: "name",
        message: "name must hold at least one letter or digit (allowed: letters, digits, spaces and - ' , & @ . ? !).",
        validatorName,
      });
    } else if (name.length > MAX_NAME) {
      problems.push({ itemId: "name", message: `name must be at most ${MAX_NAME} characters.`, validatorName });
    } else fields.name = name;
  }

  const description = input.description;
  if (description === null) fields.description = null;
  else if (description !== undefined) {
    if (typeof description !== "string") problems.push({ itemId: "description", message: "description must be a string.", validatorName });
    else if (description.length > MAX_DESCRIPTION) {
      problems.push({ itemId: "description", message: `description must be at most ${MAX_DESCRIPTION} characters.`, validatorName });
    } else fields.description = description;
  }

  const tags = input.tags;
  if (tags === null) fields.tags = null;
  else if (tags !== undefined) {
    if (!isPlainObject(tags)) problems.push({ itemId: "tags", message: "tags must be an object of string values.", validatorName });
    else {
      const entries = Object.entries(tags);
      if (entries.length > MAX_TAGS) problems.push({ itemId: "tags", message: `A company holds at most ${MAX_TAGS} tags.`, validatorName });
      for (const [key, value] of entries) {
        if (key.length < 1 || key.length > 27) {
          problems.push({ itemId: `tags.${key}`, message: "A tag name must be 1 to 27 characters long.", validatorName });
        }
        if (typeof value !== "string" || value.length > 100) {
          problems.push({ itemId: `tags.${key}`, message: "A tag value must be a string of at most 100 characters.", validatorName });
        }
      }
      if (!problems.some((p) => p.itemId?.startsWith("tags"))) {
        fields.tags = Object.fromEntries(entries.map(([key, value]) => [key, String(value)]));
      }
    }
  }
  if (problems.length) throw badRequest(problems);
  return fields;
}

/** The client's Link addresses for this request (with one-time Link URLs, each with a new token). */
function links(ctx: ApiContext): LinkUrls {
  return linkUrlsFor(ctx.app, ctx.client.id, ctx.now);
}

function view(ctx: ApiContext, company: CompanyRow, urls: LinkUrls = links(ctx)): Record<string, unknown> {
  return companyView(company, ctx.app.store.connections.listByCompany(company.id), urls);
}

function create(ctx: ApiContext): ApiResponse {
  const fields = readFields(ctx.body, "create");
  const { store } = ctx.app;
  const company: CompanyRow = {
    id: randomUUID(),
    clientId: ctx.client.id,
    name: fields.name ?? "",
    description: fields.description ?? null,
    tags: fields.tags ?? {},
    createdAt: ctx.now,
  };
  // Count and insert in one synchronous transaction: concurrent requests cannot both see 49.
  store.transaction(() => {
    if (ctx.client.plan === "free" && store.companies.count(ctx.client.id) >= FREE_COMPANY_LIMIT) {
      throw companyLimitExceeded();
    }
    store.companies.insert(company);
  });
  return { status: 200, body: companyView(company, [], links(ctx)) };
}

const COMPANY_LIST: ListSpec = {
  entity: "Company",
  service: "ClientsApi",
  properties: new Set(["id", "name", "description", "redirect", "lastSync", "created", "tags"]),
};

function list(ctx: ApiContext): ApiResponse {
  const { store } = ctx.app;
  const tagsFilter = readTagsFilter(ctx.query);
  const filtered = tagsFilter !== null || ctx.query.has("query") || ctx.query.has("orderBy");
  const urls = links(ctx);
  if (!filtered) {
    // The common case pages in SQL, so a client with thousands of companies lists quickly.
    const paging = parsePaging(ctx.query);
    const rows = store.companies.page({
      clientId: ctx.client.id,
      limit: paging.pageSize,
      offset: (paging.page - 1) * paging.pageSize,
    });
    return {
      status: 200,
      body: pagedEnvelope({
        results: rows.map((row) => view(ctx, row, urls)),
        paging,
        totalResults: store.companies.count(ctx.client.id),
        path: "/companies",
        query: ctx.query,
      }),
    };
  }
  const views = store.companies.listAll(ctx.client.id).map((row) => view(ctx, row, urls));
  return {
    status: 200,
    body: listPage({
      items: views,
      query: ctx.query,
      spec: COMPANY_LIST,
      path: "/companies",
      filter: tagsFilter ? (item) => matches(tagsFilter, item.tags) : undefined,
    }),
  };
}

function get(ctx: ApiContext): ApiResponse {
  return { status: 200, body: view(ctx, requireCompany(ctx)) };
}

function replace(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const fields = readFields(ctx.body, "replace");
  const next: CompanyRow = {
    ...company,
    name: fields.name ?? company.name,
    description: fields.description ?? null,
    tags: fields.tags ?? {},
  };
  ctx.app.store.companies.update(next);
  return { status: 200, body: view(ctx, next) };
}

function update(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const fields = readFields(ctx.body, "update");
  const next: CompanyRow = {
    ...company,
    name: fields.name ?? company.name,
    description: fields.description === undefined || fields.description === null ? company.description : fields.description,
    // Omitted tags stay; null or {} removes them (reference §3).
    tags: fields.tags === undefined ? company.tags : (fields.tags ?? {}),
  };
  ctx.app.store.companies.update(next);
  return { status: 200, body: view(ctx, next) };
}

function remove(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  ctx.app.store.companies.delete(company.id);
  return { status: 204 };
}

export const companyRoutes: readonly ApiRoute[] = [
  { method: "GET", pattern: "/companies", handler: list },
  { method: "POST", pattern: "/companies", handler: create },
  { method: "GET", pattern: "/companies/:companyId", handler: get },
  { method: "PUT", pattern: "/companies/:companyId", handler: replace },
  { method: "PATCH", pattern: "/companies/:companyId", handler: update },
  { method: "DELETE", pattern: "/companies/:companyId", handler: remove },
];
