/** `sync_settings`: the settings list a client or a company stored (POST …/syncSettings). */
import type Database from "better-sqlite3";

export type SyncSettingsOwner = { ownerKind: "client" | "company"; ownerId: string };

export type SyncSettingsRow = {
  settings: unknown[];
  overridesDefaults: boolean;
};

/** The sync_settings table's repository. */
export function createSyncSettingsTable(db: Database.Database) {
  const s = {
    get: db.prepare<SyncSettingsOwner, { settings: string; overridesDefaults: number }>(
      `SELECT settings, overrides_defaults AS overridesDefaults FROM sync_settings
       WHERE owner_kind = @ownerKind AND owner_id = @ownerId`,
    ),
    set: db.prepare<SyncSettingsOwner & { settings: string; overridesDefaults: number }>(
      `INSERT INTO sync_settings (owner_kind, owner_id, settings, overrides_defaults)
       VALUES (@ownerKind, @ownerId, @settings, @overridesDefaults)
       ON CONFLICT (owner_kind, owner_id) DO UPDATE SET settings = excluded.settings,
         overrides_defaults = excluded.overrides_defaults`,
    ),
    deleteForCompany: db.prepare<{ companyId: string }>(
      "DELETE FROM sync_settings WHERE owner_kind = 'company' AND owner_id = @companyId",
    ),
  };
  return {
    get: (owner: SyncSettingsOwner): SyncSettingsRow | undefined => {
      const row = s.get.get({ ownerKind: owner.ownerKind, ownerId: owner.ownerId });
      if (!row) return undefined;
      return { settings: JSON.parse(row.settings) as unknown[], overridesDefaults: row.overridesDefaults === 1 };
    },
    set: (params: SyncSettingsOwner & SyncSettingsRow): void => {
      s.set.run({
        ownerKind: params.ownerKind,
        ownerId: params.ownerId,
        settings: JSON.stringify(params.settings),
        overridesDefaults: params.overridesDefaults ? 1 : 0,
      });
    },
    deleteForCompany: (companyId: string): void => {
      s.deleteForCompany.run({ companyId });
    },
  };
}
