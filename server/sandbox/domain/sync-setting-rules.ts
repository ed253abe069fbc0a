/**
 * Sync settings (reference §7): per data type, whether it is fetched by a full refresh
 * (`fetchOnFirstLink`) and its schedule in hours. Client-level settings override the defaults;
 * company-level settings override the client's for the data types they list.
 */
import { DATA_TYPES, isDataType, type DataType } from "../../platforms";
import { badRequest, type ValidationItem } from "../http/errors";
import { isPlainObject } from "../http/io";
import type { Store } from "../store/store";

export type SyncSetting = {
  dataType: DataType;
  fetchOnFirstLink: boolean;
  syncSchedule: number;
  syncOrder: number;
  syncFromUtc?: string;
  syncFromWindow?: number;
  monthsToSync?: number;
  isLocked?: boolean;
};

/** The service's defaults: every data type fetched on a full refresh, daily. */
export function defaultSyncSettings(): SyncSetting[] {
  return DATA_TYPES.map((dataType, i) => ({
    dataType,
    fetchOnFirstLink: true,
    syncSchedule: 24,
    syncOrder: i,
    isLocked: false,
  }));
}

/** Schedules shorter than a day are "hourly" for the free-trial rule; 0 means no schedule. */
export function isHourly(setting: SyncSetting): boolean {
  return setting.syncSchedule >= 1 && setting.syncSchedule < 24;
}

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2})?$/;

function isInt(value: unknown, min: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= min;
}

function readSetting(raw: unknown, index: number, problems: ValidationItem[]): SyncSetting | null {
  const at = `settings[${index}]`;
  const problem = (field: string, message: string) =>
    problems.push({ itemId: `${at}.${field}`, message, validatorName: "SyncSettings" });
  if (!isPlainObject(raw)) {
    problems.push({ itemId: at, message: `${at} must be an object.`, validatorName: "SyncSettings" });
    return null;
  }
  const before = problems.length;
  const { dataType, fetchOnFirstLink, syncSchedule, syncOrder, syncFromUtc, syncFromWindow, monthsToSync, isLocked } = raw;
  if (typeof dataType !== "string" || !isDataType(dataType)) problem("dataType", "dataType must be one of the service's data types.");
  if (typeof fetchOnFirstLink !== "boolean") problem("fetchOnFirstLink", "fetchOnFirstLink must be true or false.");
  if (!isInt(syncSchedule, 0)) problem("syncSchedule", "syncSchedule must be a whole number of hours (0 for none).");
  if (!isInt(syncOrder, 0)) problem("syncOrder", "syncOrder must be a whole number.");
  if (syncFromUtc !== undefined && (typeof syncFromUtc !== "string" || !DATETIME.test(syncFromUtc))) {
    problem("syncFromUtc", "syncFromUtc must be an ISO 8601 date-time.");
  }
  if (syncFromWindow !== undefined && !isInt(syncFromWindow, 0)) problem("syncFromWindow", "syncFromWindow must be a whole number of months.");
  if (syncFromUtc !== undefined && syncFromWindow !== undefined) {
    problem("syncFromWindow", "Set syncFromUtc or syncFromWindow, not both.");
  }
  if (monthsToSync !== undefined && !isInt(monthsToSync, 1)) problem("monthsToSync", "monthsToSync must be a whole number of months.");
  if (isLocked !== undefined && typeof isLocked !== "boolean") problem("isLocked", "isLocked must be true or false.");
  if (problems.length > before || typeof dataType !== "string" || !isDataType(dataType)) return null;
  const setting: SyncSetting = {
    dataType,
    fetchOnFirstLink: fetchOnFirstLink === true,
    syncSchedule: syncSchedule as number,
    syncOrder: syncOrder as number,
  };
  if (typeof syncFromUtc === "string") setting.syncFromUtc = syncFromUtc;
  if (typeof syncFromWindow === "number") setting.syncFromWindow = syncFromWindow;
  if (typeof monthsToSync === "number") setting.monthsToSync = monthsToSync;
  if (typeof isLocked === "boolean") setting.isLocked = isLocked;
  return setting;
}

/**
 * Reads a POST body `{clientId|companyId, settings, overridesDefaults}`; 400 naming each problem.
 * `expectedOwnerId` is the caller's client id or the path's company id.
 */
export function parseSyncSettingsBody(params: {
  body: unknown;
  ownerField: "clientId" | "companyId";
  expectedOwnerId: string;
  overridesDefaultsRequired: boolean;
}): { settings: SyncSetting[]; overridesDefaults: boolean } {
  const { body, ownerField } = params;
  if (!isPlainObject(body)) {
    throw badRequest([{ itemId: "body", message: `The body must be an object with ${ownerField}, settings and overridesDefaults.` }]);
  }
  const problems: ValidationItem[] = [];
  const owner = body[ownerField];
  if (typeof owner !== "string" || owner === "") {
    problems.push({ itemId: ownerField, message: `${ownerField} is required.`, validatorName: "SyncSettings" });
  } else if (owner !== params.expectedOwnerId) {
    problems.push({
      itemId: ownerField,
      message: `${ownerField} ${owner} does not match ${params.expectedOwnerId}, the one these settings belong to.`,
      validatorName: "SyncSettings",
    });
  }
  const overrides = body.overridesDefaults;
  if (overrides === undefined ? params.overridesDefaultsRequired : typeof overrides !== "boolean") {
    problems.push({ itemId: "overridesDefaults", message: "overridesDefaults must be true or false.", validatorName: "SyncSettings" });
  }
  const settings: SyncSetting[] = [];
  if (!Array.isArray(body.settings)) {
    problems.push({ itemId: "settings", message: "settings must be an array of sync settings.", validatorName: "SyncSettings" });
  } else {
    const seen = new Set<string>();
    body.settings.forEach((raw, i) => {
      const setting = readSetting(raw, i, problems);
      if (!setting) return;
      if (seen.has(setting.dataType)) {
        problems.push({ itemId: `settings[${i}].dataType`, message: `${setting.dataType} is listed twice.`, validatorName: "SyncSettings" });
        return;
      }
      seen.add(setting.dataType);
      settings.push(setting);
    });
  }
  if (problems.length) throw badRequest(problems);
  return { settings, overridesDefaults: overrides === undefined ? true : overrides === true };
}

type Owner = { ownerKind: "client" | "company"; ownerId: string };

/** Stored settings; the store holds only lists written through parseSyncSettingsBody. */
export function storedSettings(store: Store, owner: Owner): { settings: SyncSetting[]; overridesDefaults: boolean } | undefined {
  const row = store.syncSettings.get(owner);
  return row && { settings: row.settings as SyncSetting[], overridesDefaults: row.overridesDefaults };
}

/** The client's settings list (stored, or the defaults). */
export function clientSettings(store: Store, clientId: string): { settings: SyncSetting[]; overridesDefaults: boolean } {
  return storedSettings(store, { ownerKind: "client", ownerId: clientId }) ?? {
    settings: defaultSyncSettings(),
    overridesDefaults: false,
  };
}

/** Whether a full refresh (`data/all`) fetches this data type for the company. */
export function fetchesOnRefresh(params: { store: Store; clientId: string; companyId: string }): (dataType: string) => boolean {
  const lists: SyncSetting[][] = [];
  const company = storedSettings(params.store, { ownerKind: "company", ownerId: params.companyId });
  const client = storedSettings(params.store, { ownerKind: "client", ownerId: params.clientId });
  if (company) lists.push(company.settings);
  if (client) lists.push(client.settings);
  return (dataType) => {
    for (const list of lists) {
      const setting = list.find((s) => s.dataType === dataType);
      if (setting) return setting.fetchOnFirstLink;
    }
    return true;
  };
}
