/**
 * What Vitest's global set-up (global-setup.ts) hands every test process, by environment variable,
 * and the password the seeded people share. Without the variables (a bench, a lone script) each
 * process makes its own: a migration per database, one hash per process.
 */
export const TEST_PASSWORD = "correct horse battery";

export const TEST_ENV = {
  /** A migrated SQLite file to copy for each test database. */
  sqliteTemplate: "FERRY_TEST_SQLITE_TEMPLATE",
  /** The name of a migrated PostgreSQL database on the test server, to create each test database from. */
  pgTemplate: "FERRY_TEST_PG_TEMPLATE",
  /** The scrypt hash of TEST_PASSWORD. */
  passwordHash: "FERRY_TEST_PASSWORD_HASH",
} as const;
