/**
 * After a secret was overwritten or deleted (a replaced API key, purged tokens): on SQLite, a
 * checkpoint copies the write-ahead log into the database file (where secure_delete has zeroed the
 * old bytes) and truncates it, so no copy of the old page stays in the log. Best effort while
 * other connections read: SQLite checkpoints what it can and the rest is overwritten as the log is
 * reused. PostgreSQL has nothing to do here: its old row versions go at VACUUM (see docs/migration-engine.md, "The handover and the token purge").
 */
import { sqliteClientOf, type Database } from "./database";

/** Clears the write-ahead log's copies of overwritten secrets (SQLite; nothing on PostgreSQL). */
export function checkpointAfterSecretOverwrite(database: Database): void {
  sqliteClientOf(database)?.pragma("wal_checkpoint(TRUNCATE)");
}
