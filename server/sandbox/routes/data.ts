/**
 * Data reads: the tenant's generated records as of the latest Complete sync of the data type.
 * Accounting reads are per company (`/companies/{id}/data/accounts`), commerce reads per connection
 * (`/companies/{id}/connections/{connectionId}/data/commerce-orders`), as on the real service.
 *
 * Not requested → 409 "The data set has not been requested."; requested but no Complete sync yet
 * → 409 naming the latest sync's status; a type the platform lacks → 404 "Datatype … not supported
 * by platform(s) …".
 */
import type { DataType } from "../../platforms";
import { param, requireCompany, requireConnection, type ApiContext } from "../context";
import { conflict, dataTypeNotSupported, ERROR_TEXT } from "../http/errors";
import type { ApiResponse } from "../http/io";
import { listPage, pagedEnvelope, parsePaging, readOrderBy, readQuery, type ListSpec } from "../http/query";
import { requireProfile, supportsDataType } from "../simulators/profiles";
import { pullState } from "../simulators/pulls";
import {
  accountingCompanyInfo,
  buildRecords,
  commerceCompanyInfo,
  LIST_KINDS,
  recordProperties,
  type ListKind,
} from "../simulators/records";
import type { ConnectionRow, PullRow, TenantRow } from "../store/store";
import type { ApiRoute } from "./types";

type Snapshot = { op: PullRow; tenant: TenantRow; connection: ConnectionRow };

/**
 * The latest Complete sync of `dataType` among `connections`, or the 409 that says why none.
 * Connections must already be known to support the type.
 */
function latestSnapshot(params: { ctx: ApiContext; companyId: string; connections: readonly ConnectionRow[]; dataType: DataType }): Snapshot {
  const { ctx, dataType } = params;
  const ids = new Set(params.connections.map((c) => c.id));
  const ops = ctx.app.store.pulls.listByCompany(params.companyId).filter((op) => op.dataType === dataType && ids.has(op.connectionId));
  let best: PullRow | undefined;
  for (const op of ops) {
    if (pullState(op, ctx.now).status !== "Complete") continue;
    if (!best || op.completeAt >= best.completeAt) best = op;
  }
  const tenant = best?.tenantId ? ctx.app.store.tenants.get(best.tenantId) : undefined;
  const connection = best && params.connections.find((c) => c.id === best.connectionId);
  if (best && tenant && connection) return { op: best, tenant, connection };
  const latest = ops.at(-1);
  if (!latest) throw conflict(ERROR_TEXT.datasetNotRequested);
  const status = pullState(latest, ctx.now).status;
  throw conflict(`The data set has not finished syncing: its latest sync (${latest.id}) is ${status}.`);
}

/** Accounting connections serving a company-level read, or the 404 naming the platforms. */
function accountingSources(ctx: ApiContext, companyId: string, dataType: DataType): ConnectionRow[] {
  const connections = ctx.app.store.connections.listByCompany(companyId);
  if (connections.length === 0) throw conflict(ERROR_TEXT.datasetNotRequested);
  const accounting = connections.filter((c) => requireProfile(c.platformKey).platform.sourceType === "Accounting");
  const candidates = accounting.length ? accounting : connections;
  const supporting = candidates.filter((c) => supportsDataType(requireProfile(c.platformKey).platform, dataType));
  if (supporting.length) return supporting;
  const names = [...new Set(candidates.map((c) => requireProfile(c.platformKey).platform.name))];
  throw dataTypeNotSupported(dataType, names);
}

function commerceSource(ctx: ApiContext, dataType: DataType): { companyId: string; connection: ConnectionRow } {
  const company = requireCompany(ctx);
  const connection = requireConnection(ctx, company);
  const { platform } = requireProfile(connection.platformKey);
  if (!supportsDataType(platform, dataType)) throw dataTypeNotSupported(dataType, [platform.name]);
  return { companyId: company.id, connection };
}

/**
 * Shopify counts at most 25,000 records (reference §11): a list of more answers 25,000 in
 * `totalResults`, though its pages go on.
 */
export const SHOPIFY_COUNT_CAP = 25_000;

/** The `totalResults` the service reports for `count` records of the snapshot's platform. */
function reportedCount(snapshot: Snapshot, count: number): number {
  return snapshot.connection.platformKey === "fztf" ? Math.min(count, SHOPIFY_COUNT_CAP) : count;
}

function listResponse(ctx: ApiContext, kind: ListKind, snapshot: Snapshot, path: string): ApiResponse {
  const count = snapshot.op.records;
  const spec: ListSpec = { entity: kind.entity, service: "PublicApi", properties: recordProperties(kind) };
  const query = readQuery(ctx.query, spec);
  const orderBy = readOrderBy(ctx.query, spec);
  if (!query && !orderBy) {
    // Build only the page asked for: a tenant may hold many records.
    const paging = parsePaging(ctx.query);
    const start = (paging.page - 1) * paging.pageSize;
    const results = buildRecords({ kind, tenant: snapshot.tenant, start, end: start + paging.pageSize, count });
    // Pages go on past the cap (their links follow the real count); only the count is capped.
    const envelope = pagedEnvelope({ results, paging, totalResults: count, path, query: ctx.query });
    return { status: 200, body: { ...envelope, totalResults: reportedCount(snapshot, count) } };
  }
  const all = buildRecords({ kind, tenant: snapshot.tenant, start: 0, end: count, count });
  return { status: 200, body: listPage({ items: all, query: ctx.query, spec, path }) };
}

const accountingKinds = LIST_KINDS.filter((k) => !k.dataType.startsWith("commerce-"));
const commerceKinds = LIST_KINDS.filter((k) => k.dataType.startsWith("commerce-"));

export const dataRoutes: readonly ApiRoute[] = [
  {
    method: "GET",
    pattern: "/companies/:companyId/data/info",
    handler: (ctx) => {
      const company = requireCompany(ctx);
      const snapshot = latestSnapshot({
        ctx,
        companyId: company.id,
        connections: accountingSources(ctx, company.id, "company"),
        dataType: "company",
      });
      const { platform } = requireProfile(snapshot.connection.platformKey);
      return { status: 200, body: accountingCompanyInfo({ tenant: snapshot.tenant, platformName: platform.name }) };
    },
  },
  ...accountingKinds.map(
    (kind): ApiRoute => ({
      method: "GET",
      pattern: `/companies/:companyId/data/${kind.path}`,
      handler: (ctx) => {
        const company = requireCompany(ctx);
        const connections = accountingSources(ctx, company.id, kind.dataType);
        const snapshot = latestSnapshot({ ctx, companyId: company.id, connections, dataType: kind.dataType });
        return listResponse(ctx, kind, snapshot, `/companies/${company.id}/data/${kind.path}`);
      },
    }),
  ),
  {
    method: "GET",
    pattern: "/companies/:companyId/connections/:connectionId/data/commerce-info",
    handler: (ctx) => {
      const source = commerceSource(ctx, "commerce-companyInfo");
      const snapshot = latestSnapshot({
        ctx,
        companyId: source.companyId,
        connections: [source.connection],
        dataType: "commerce-companyInfo",
      });
      const { platform } = requireProfile(snapshot.connection.platformKey);
      return { status: 200, body: commerceCompanyInfo({ tenant: snapshot.tenant, platformName: platform.name }) };
    },
  },
  ...commerceKinds.map(
    (kind): ApiRoute => ({
      method: "GET",
      pattern: `/companies/:companyId/connections/:connectionId/data/${kind.path}`,
      handler: (ctx) => {
        const source = commerceSource(ctx, kind.dataType);
        const snapshot = latestSnapshot({ ctx, companyId: source.companyId, connections: [source.connection], dataType: kind.dataType });
        return listResponse(
          ctx,
          kind,
          snapshot,
          `/companies/${source.companyId}/connections/${param(ctx, "connectionId")}/data/${kind.path}`,
        );
      },
    }),
  ),
];
