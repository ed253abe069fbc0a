/** `meta`: the sandbox's own key–value settings (admin token, demo key, clock offset, faults). */
import type Database from "better-sqlite3";

/** The meta table's repository. */
export function createMetaTable(db: Database.Database) {
  const s = {
    get: db.prepare<{ key: string }, { value: string }>("SELECT value FROM meta WHERE key = @key"),
    set: db.prepare<{ key: string; value: string }>(
      "INSERT INTO meta (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ),
    delete: db.prepare<{ key: string }>("DELETE FROM meta WHERE key = @key"),
  };
  return {
    get: (key: string): string | undefined => s.get.get({ key })?.value,
    set: (key: string, value: string): void => {
      s.set.run({ key, value });
    },
    delete: (key: string): void => {
      s.delete.run({ key });
    },
    /** Deletes every key except those listed (the reset control keeps a few). */
    deleteAllExcept: (keep: readonly string[]): void => {
      const params = Object.fromEntries(keep.map((key, i) => [`k${i}`, key]));
      const list = keep.map((_, i) => `@k${i}`).join(", ");
      db.prepare(keep.length ? `DELETE FROM meta WHERE key NOT IN (${list})` : "DELETE FROM meta").run(params);
    },
  };
}
