/**
 * SQLite files readable by their owner only: the app database (db/client.ts) and the sandbox's
 * (server/sandbox/store/store.ts), which hold tokens and keys, like local-secrets.json.
 */
import fs from "node:fs";
import path from "node:path";

/**
 * Makes a database file (and its folder, if new) readable by its owner only. The file is created
 * before SQLite opens it, because SQLite gives the -wal and -shm files it creates the database
 * file's mode; files from before are narrowed too.
 */
export function ownerOnlyDatabaseFile(file: string): void {
  const resolved = path.resolve(file);
  fs.mkdirSync(path.dirname(resolved), { recursive: true, mode: 0o700 });
  // The data files are not part of the build: keep Next's file tracing away from these paths.
  fs.closeSync(fs.openSync(/* turbopackIgnore: true */ resolved, "a", 0o600));
  for (const f of [resolved, `${resolved}-wal`, `${resolved}-shm`]) {
    if (fs.existsSync(/* turbopackIgnore: true */ f)) fs.chmodSync(/* turbopackIgnore: true */ f, 0o600);
  }
}
