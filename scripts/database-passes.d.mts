/** Test files (relative to the project) whose run-time imports reach the app database, and those whose do not. */
export function appDatabaseTests(): { included: string[]; excluded: string[] };
/** Test files about PostgreSQL alone (the PostgreSQL pass only). */
export const POSTGRES_ONLY: RegExp;
/** The mark of a test file the PostgreSQL pass runs again. */
export const BOTH_DATABASES: string;
/** The test files (relative to the project) of each pass. */
export function databasePasses(): { sqlite: string[]; postgresql: string[] };
