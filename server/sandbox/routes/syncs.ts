/**
 * Syncs (reference §6): queue everything (`data/all`, 204), queue one data type (200
 * PullOperation), data status per type, and the pull-operation history.
 */
import { DATA_TYPES, isDataType } from "../../platforms";
import { iso } from "../domain/clock";
import { param, requireCompany, requireConnection, type ApiContext } from "../context";
import { badRequest, conflict, notFound } from "../http/errors";
import type { ApiResponse } from "../http/io";
import { listPage, type ListSpec } from "../http/query";
import { requireProfile, supportsDataType } from "../simulators/profiles";
import { latestByConnectionAndType, planPulls, pullState, type PullAccess } from "../simulators/pulls";
import { ensureServiceAccess } from "../simulators/tokens";
import type { ConnectionRow, PullRow, Store } from "../store/store";
import { fetchesOnRefresh } from "../domain/sync-setting-rules";
import { validationIssues } from "../simulators/validation";
import { pullView } from "./views";
import type { ApiRoute } from "./types";

/** Connections a sync runs against: Linked ones, and Deauthorized ones (which end AuthError). */
function syncable(connection: ConnectionRow): boolean {
  return connection.status === "Linked" || connection.status === "Deauthorized";
}

/** Checks (and if needed refreshes) the service's tokens; saves refreshed tokens. */
function accessFor(params: { store: Store; connection: ConnectionRow; now: number }): PullAccess {
  const { store, connection } = params;
  const { platform } = requireProfile(connection.platformKey);
  if (connection.status !== "Linked") {
    return {
      ok: false,
      rejection: {
        statusCode: "401",
        statusText: "Unauthorized",
        errorMessage: `The ${platform.name} connection is ${connection.status}: reauthorization is required before data can be fetched.`,
      },
    };
  }
  const access = ensureServiceAccess({ store, platform, connection, now: params.now });
  if (!access.ok) return access;
  if (access.connection !== connection) store.connections.save(access.connection);
  const tenant = connection.tenantId ? store.tenants.get(connection.tenantId) : undefined;
  if (!tenant) {
    return {
      ok: false,
      rejection: { statusCode: "401", statusText: "Unauthorized", errorMessage: `${platform.name} no longer knows this account.` },
    };
  }
  return { ok: true, tenant };
}

function refreshAll(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const { store } = ctx.app;
  const fetches = fetchesOnRefresh({ store, clientId: ctx.client.id, companyId: company.id });
  store.transaction(() => {
    const existing = store.pulls.listByCompany(company.id);
    const mode = store.clients.syncMode(ctx.client.id);
    for (const connection of store.connections.listByCompany(company.id)) {
      if (!syncable(connection)) continue;
      const profile = requireProfile(connection.platformKey);
      planPulls({
        store,
        connection,
        platform: profile.platform,
        dataTypes: profile.categoryDataTypes.filter(fetches),
        access: () => accessFor({ store, connection, now: ctx.now }),
        now: ctx.now,
        existing,
        mode,
      });
    }
  });
  return { status: 204 };
}

function queueOne(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const dataType = param(ctx, "dataType");
  if (!isDataType(dataType)) {
    throw badRequest([{ itemId: "dataType", message: `${dataType} is not one of the service's data types.`, validatorName: "DataType" }]);
  }
  const { store } = ctx.app;
  const connectionId = ctx.query.get("connectionId");
  let connection: ConnectionRow | undefined;
  if (connectionId) connection = requireConnection(ctx, company, connectionId);
  else {
    const candidates = store.connections.listByCompany(company.id).filter(syncable);
    connection =
      candidates.find((c) => supportsDataType(requireProfile(c.platformKey).platform, dataType)) ?? candidates[0];
  }
  if (!connection || !syncable(connection)) {
    throw badRequest([
      {
        itemId: "connectionId",
        message: connection
          ? `Connection ${connection.id} is ${connection.status}; only a Linked connection can be synced.`
          : `Company ${company.id} has no Linked data connection to sync from.`,
        validatorName: "RefreshDataType",
      },
    ]);
  }
  const chosen = connection;
  const op = store.transaction(() => {
    const existing = store.pulls.listByCompany(company.id);
    const running = latestByConnectionAndType(existing).get(`${chosen.id}:${dataType}`);
    if (running && ctx.now < running.completeAt) {
      throw conflict(
        `DatasetAlreadyInProgressException: Cannot queue ${dataType} sync for ${company.id} as previous sync ${running.id} is still in progress`,
      );
    }
    const { platform } = requireProfile(chosen.platformKey);
    const [created] = planPulls({
      store,
      connection: chosen,
      platform,
      dataTypes: [dataType],
      access: () => accessFor({ store, connection: chosen, now: ctx.now }),
      now: ctx.now,
      existing,
      mode: store.clients.syncMode(ctx.client.id),
    });
    return created;
  });
  if (!op) throw new Error("planPulls created no operation for a free slot");
  return { status: 200, body: pullView(op, ctx.now) };
}

/** DataStatuses: per data type ever synced, its latest and latest successful operation. */
export function dataStatuses(ops: readonly PullRow[], now: number): Record<string, Record<string, string>> {
  const latest = new Map<string, PullRow>();
  const latestSuccess = new Map<string, PullRow>();
  for (const op of ops) {
    latest.set(op.dataType, op);
    if (pullState(op, now).status === "Complete") {
      const previous = latestSuccess.get(op.dataType);
      if (!previous || previous.completeAt <= op.completeAt) latestSuccess.set(op.dataType, op);
    }
  }
  const out: Record<string, Record<string, string>> = {};
  for (const dataType of DATA_TYPES) {
    const op = latest.get(dataType);
    if (!op) continue;
    const status: Record<string, string> = {
      dataType,
      currentStatus: pullState(op, now).status,
      latestSyncId: op.id,
    };
    const success = latestSuccess.get(dataType);
    if (success) {
      status.lastSuccessfulSync = iso(success.completeAt);
      status.latestSuccessfulSyncId = success.id;
    }
    out[dataType] = status;
  }
  return out;
}

function dataStatus(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  return { status: 200, body: dataStatuses(ctx.app.store.pulls.listByCompany(company.id), ctx.now) };
}

const HISTORY_LIST: ListSpec = {
  entity: "Dataset",
  service: "PullApi",
  // isCompleted and isErrored are not queryable (reference §6).
  properties: new Set(["id", "companyId", "connectionId", "dataType", "status", "requested", "progress", "completed", "errorMessage"]),
};

function history(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const views = ctx.app.store.pulls
    .listByCompany(company.id)
    .reverse()
    .map((op) => pullView(op, ctx.now));
  return {
    status: 200,
    body: listPage({ items: views, query: ctx.query, spec: HISTORY_LIST, path: `/companies/${company.id}/data/history` }),
  };
}

function historyOne(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const id = param(ctx, "datasetId");
  const op = ctx.app.store.pulls.get(id);
  if (!op || op.companyId !== company.id) throw notFound(`No dataset was found with ID ${id}`, "PullApi");
  return { status: 200, body: pullView(op, ctx.now) };
}

/**
 * A dataset's validation results (`ValidationResult`: errors and warnings, items `{ruleId, itemId,
 * message, validatorName}`), deterministic: none, unless the tenant was made with validation issues
 * for the data type (`validationIssues`), then that many errors and warnings, each naming one of
 * the dataset's records. A dataset not Complete (still running, failed) shows none.
 */
function validation(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const id = param(ctx, "datasetId");
  const op = ctx.app.store.pulls.get(id);
  if (!op || op.companyId !== company.id) throw notFound(`No dataset was found with ID ${id}`, "PullApi");
  const tenant = op.tenantId ? ctx.app.store.tenants.get(op.tenantId) : undefined;
  const wanted = tenant?.validationIssues[op.dataType];
  if (!tenant || !wanted || pullState(op, ctx.now).status !== "Complete") return { status: 200, body: { errors: [], warnings: [] } };
  return { status: 200, body: validationIssues({ tenant, dataType: op.dataType, records: op.records, wanted }) };
}

export const syncRoutes: readonly ApiRoute[] = [
  { method: "POST", pattern: "/companies/:companyId/data/all", handler: refreshAll },
  { method: "POST", pattern: "/companies/:companyId/data/queue/:dataType", handler: queueOne },
  { method: "GET", pattern: "/companies/:companyId/dataStatus", handler: dataStatus },
  { method: "GET", pattern: "/companies/:companyId/data/history", handler: history },
  { method: "GET", pattern: "/companies/:companyId/data/history/:datasetId", handler: historyOne },
  { method: "GET", pattern: "/companies/:companyId/sync/:datasetId/validation", handler: validation },
];
