/**
 * `oauth_apps`: per client and platform, the customer's own OAuth app the service uses for that
 * client's connections to the platform, with its registered redirect URIs (in the order added).
 * Times are on the sandbox clock.
 */
import type Database from "better-sqlite3";
import type { PlatformKey } from "../../platforms";

export type OAuthAppRow = {
  clientId: string;
  platformKey: PlatformKey;
  /** The platform's client id of the app (unique per platform). */
  appClientId: string;
  name: string;
  redirectUris: string[];
  createdAt: number;
  updatedAt: number;
};

type RawOAuthApp = Omit<OAuthAppRow, "redirectUris"> & { redirectUris: string };

const COLUMNS = `client_id AS clientId, platform_key AS platformKey, app_client_id AS appClientId, name,
  redirect_uris AS redirectUris, created_at AS createdAt, updated_at AS updatedAt`;

function toRow(raw: RawOAuthApp): OAuthAppRow {
  return { ...raw, redirectUris: JSON.parse(raw.redirectUris) as string[] };
}

/** The oauth_apps table's repository. */
export function createOAuthAppsTable(db: Database.Database) {
  const s = {
    get: db.prepare<{ clientId: string; platformKey: string }, RawOAuthApp>(
      `SELECT ${COLUMNS} FROM oauth_apps WHERE client_id = @clientId AND platform_key = @platformKey`,
    ),
    byAppClientId: db.prepare<{ platformKey: string; appClientId: string }, RawOAuthApp>(
      `SELECT ${COLUMNS} FROM oauth_apps WHERE platform_key = @platformKey AND app_client_id = @appClientId`,
    ),
    upsert: db.prepare<RawOAuthApp>(
      `INSERT INTO oauth_apps (client_id, platform_key, app_client_id, name, redirect_uris, created_at, updated_at)
       VALUES (@clientId, @platformKey, @appClientId, @name, @redirectUris, @createdAt, @updatedAt)
       ON CONFLICT (client_id, platform_key) DO UPDATE SET
         app_client_id = excluded.app_client_id, name = excluded.name,
         redirect_uris = excluded.redirect_uris, updated_at = excluded.updated_at`,
    ),
    setRedirectUris: db.prepare<{ clientId: string; platformKey: string; redirectUris: string; updatedAt: number }>(
      `UPDATE oauth_apps SET redirect_uris = @redirectUris, updated_at = @updatedAt
       WHERE client_id = @clientId AND platform_key = @platformKey`,
    ),
    delete: db.prepare<{ clientId: string; platformKey: string }>(
      "DELETE FROM oauth_apps WHERE client_id = @clientId AND platform_key = @platformKey",
    ),
    list: db.prepare<[], RawOAuthApp>(`SELECT ${COLUMNS} FROM oauth_apps ORDER BY created_at, rowid`),
  };
  return {
    /** The client's app at the platform, or undefined (the service's own app). */
    get: (params: { clientId: string; platformKey: PlatformKey }): OAuthAppRow | undefined => {
      const raw = s.get.get(params);
      return raw && toRow(raw);
    },
    /** The app with this client id at the platform, whichever client it is for. */
    findByAppClientId: (params: { platformKey: PlatformKey; appClientId: string }): OAuthAppRow | undefined => {
      const raw = s.byAppClientId.get(params);
      return raw && toRow(raw);
    },
    /** Creates the client's app at the platform, or replaces it (its creation time kept). */
    put: (row: OAuthAppRow): void => {
      s.upsert.run({ ...row, redirectUris: JSON.stringify(row.redirectUris) });
    },
    setRedirectUris: (params: { clientId: string; platformKey: PlatformKey; redirectUris: readonly string[]; updatedAt: number }): void => {
      s.setRedirectUris.run({ ...params, redirectUris: JSON.stringify(params.redirectUris) });
    },
    /** Deletes the client's app at the platform: true when there was one. */
    delete: (params: { clientId: string; platformKey: PlatformKey }): boolean => s.delete.run(params).changes > 0,
    list: (): OAuthAppRow[] => s.list.all().map(toRow),
  };
}
