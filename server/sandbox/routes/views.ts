/**
 * JSON views of the sandbox's rows, in the shapes the SDK validates: required fields always,
 * optional fields only when they have a value (the SDK refuses `null` in most of them), enums in
 * their exact casing.
 */
import { iso } from "../domain/clock";
import type { LinkUrls } from "../link/link-urls";
import type { ApiKeyRow, CompanyRow, ConnectionRow, PullRow, PushRow } from "../store/store";
import { requireProfile } from "../simulators/profiles";
import { pullState } from "../simulators/pulls";
import { pushState } from "../simulators/pushes";

/** A data connection (`Connection` schema); `links` makes its `linkUrl` (link/link-urls.ts). */
export function connectionView(connection: ConnectionRow, links: LinkUrls): Record<string, unknown> {
  const { platform, integrationId, sourceId } = requireProfile(connection.platformKey);
  const view: Record<string, unknown> = {
    id: connection.id,
    integrationId,
    integrationKey: platform.key,
    sourceId,
    platformName: platform.name,
    linkUrl: links.connection(connection.companyId, connection.id),
    status: connection.status,
    created: iso(connection.createdAt),
    sourceType: platform.sourceType,
  };
  if (connection.lastSync !== null) view.lastSync = iso(connection.lastSync);
  if (connection.errors.length) view.dataConnectionErrors = connection.errors;
  if (connection.connectionInfo) view.connectionInfo = connection.connectionInfo;
  return view;
}

/** A company (`Company` schema) with its connections; `links` makes its `redirect` and their `linkUrl`s. */
export function companyView(company: CompanyRow, connections: readonly ConnectionRow[], links: LinkUrls): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: company.id,
    name: company.name,
    redirect: links.company(company.id),
  };
  if (company.description !== null) view.description = company.description;
  const lastSync = connections.reduce<number | null>(
    (latest, c) => (c.lastSync !== null && (latest === null || c.lastSync > latest) ? c.lastSync : latest),
    null,
  );
  if (lastSync !== null) view.lastSync = iso(lastSync);
  view.created = iso(company.createdAt);
  view.tags = company.tags;
  view.referenceSubsidiaryCompanies = [];
  view.dataConnections = connections.map((c) => connectionView(c, links));
  return view;
}

/** A pull operation / dataset (`PullOperation` schema) as it stands at sandbox time `now`. */
export function pullView(op: PullRow, now: number): Record<string, unknown> {
  const state = pullState(op, now);
  const view: Record<string, unknown> = {
    id: op.id,
    companyId: op.companyId,
    connectionId: op.connectionId,
    dataType: op.dataType,
    status: state.status,
    requested: iso(op.requestedAt),
    progress: state.progress,
    isCompleted: state.isCompleted,
    isErrored: state.isErrored,
  };
  if (state.completedAt !== null) view.completed = iso(state.completedAt);
  if (state.isErrored && op.errorMessage) view.errorMessage = op.errorMessage;
  return view;
}

/** A push operation (`PushOperation` schema), plus `platformStatusCode`: the platform's own answer. */
export function pushView(row: PushRow, now: number): Record<string, unknown> {
  const state = pushState(row, now);
  const view: Record<string, unknown> = {
    dataType: row.dataType,
    companyId: row.companyId,
    pushOperationKey: row.key,
    dataConnectionKey: row.connectionId,
    requestedOnUtc: iso(row.requestedAt),
  };
  if (state.completedAt !== null) view.completedOnUtc = iso(state.completedAt);
  if (row.timeoutMinutes !== null) view.timeoutInMinutes = row.timeoutMinutes;
  view.status = state.status;
  view.statusCode = state.statusCode;
  view.platformStatusCode = row.platformStatusCode;
  if (state.status !== "Pending" && row.errorMessage) view.errorMessage = row.errorMessage;
  if (state.status === "Failed" && row.validation) view.validation = row.validation;
  if (state.status === "Success" && row.recordId) {
    view.changes = [{ type: "Created", recordRef: { id: row.recordId, dataType: row.dataType } }];
  }
  return view;
}

/** An API key (`ApiKeyDetails` schema). */
export function apiKeyView(key: ApiKeyRow): Record<string, unknown> {
  return { id: key.id, name: key.name, apiKey: key.apiKey, createdDate: iso(key.createdAt) };
}
