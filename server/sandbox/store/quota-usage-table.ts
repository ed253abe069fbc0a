/** `quota_usage`: requests each client made on each sandbox-clock UTC day while quota mode was on. */
import type Database from "better-sqlite3";

/** The quota_usage table's repository. */
export function createQuotaUsageTable(db: Database.Database) {
  const s = {
    increment: db.prepare<{ clientId: string; day: number }, { used: number }>(
      `INSERT INTO quota_usage (client_id, day, used) VALUES (@clientId, @day, 1)
       ON CONFLICT (client_id, day) DO UPDATE SET used = used + 1
       RETURNING used`,
    ),
    deleteBefore: db.prepare<{ day: number }>("DELETE FROM quota_usage WHERE day < @day"),
    used: db.prepare<{ clientId: string; day: number }, { used: number }>(
      "SELECT used FROM quota_usage WHERE client_id = @clientId AND day = @day",
    ),
  };
  return {
    /** Counts one request for the client on `day` (days since the epoch); returns the day's count. */
    increment: (params: { clientId: string; day: number }): number => s.increment.get(params)?.used ?? 1,
    /** Requests the client has made on `day` (0 when none were counted). */
    used: (params: { clientId: string; day: number }): number => s.used.get(params)?.used ?? 0,
    /** Forgets the days before `day`: a quota never looks back. */
    deleteBefore: (day: number): void => {
      s.deleteBefore.run({ day });
    },
  };
}
