/**
 * Sync settings (reference §7): client-level (`/profile/syncSettings`) and company-level.
 * POST answers 204; an hourly schedule on a free trial answers 402.
 */
import { requireCompany, type ApiContext } from "../context";
import { syncScheduleNotAllowed } from "../http/errors";
import type { ApiResponse } from "../http/io";
import { clientSettings, isHourly, parseSyncSettingsBody, storedSettings, type SyncSetting } from "../domain/sync-setting-rules";
import type { ApiRoute } from "./types";

function assertPlanAllows(ctx: ApiContext, settings: readonly SyncSetting[]): void {
  if (ctx.client.plan !== "free") return;
  const hourly = settings.filter(isHourly).map((s) => s.dataType);
  if (hourly.length) throw syncScheduleNotAllowed(hourly);
}

function getProfile(ctx: ApiContext): ApiResponse {
  const { settings, overridesDefaults } = clientSettings(ctx.app.store, ctx.client.id);
  return { status: 200, body: { clientId: ctx.client.id, settings, overridesDefaults } };
}

function setProfile(ctx: ApiContext): ApiResponse {
  const parsed = parseSyncSettingsBody({
    body: ctx.body,
    ownerField: "clientId",
    expectedOwnerId: ctx.client.id,
    overridesDefaultsRequired: true,
  });
  assertPlanAllows(ctx, parsed.settings);
  ctx.app.store.syncSettings.set({ ownerKind: "client", ownerId: ctx.client.id, ...parsed });
  return { status: 204 };
}

function getCompany(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const own = storedSettings(ctx.app.store, { ownerKind: "company", ownerId: company.id });
  const { settings, overridesDefaults } = own ?? { ...clientSettings(ctx.app.store, ctx.client.id), overridesDefaults: false };
  return { status: 200, body: { companyId: company.id, settings, overridesDefaults } };
}

function setCompany(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const parsed = parseSyncSettingsBody({
    body: ctx.body,
    ownerField: "companyId",
    expectedOwnerId: company.id,
    overridesDefaultsRequired: false,
  });
  assertPlanAllows(ctx, parsed.settings);
  ctx.app.store.syncSettings.set({ ownerKind: "company", ownerId: company.id, ...parsed });
  return { status: 204 };
}

export const syncSettingsRoutes: readonly ApiRoute[] = [
  { method: "GET", pattern: "/profile/syncSettings", handler: getProfile },
  { method: "POST", pattern: "/profile/syncSettings", handler: setProfile },
  { method: "GET", pattern: "/companies/:companyId/syncSettings", handler: getCompany },
  { method: "POST", pattern: "/companies/:companyId/syncSettings", handler: setCompany },
];
