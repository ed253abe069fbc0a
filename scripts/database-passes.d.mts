/** Test files (relative to the project) whose run-time imports reach the app database, and those whose do not. */
export function appDatabaseTests(): { included: string[]; excluded: string[] };
/** Test files about PostgreSQL alone (the PostgreSQL pass only). */
export const POSTGRES_ONLY: RegExp;
/** The tag of the tests the PostgreSQL pass runs again, and of the PostgreSQL-only files. */
export const BOTH_DATABASES: string;
export const POSTGRESQL: string;
/** The PostgreSQL pass's filter over the tags (Vitest's tagsFilter). */
export const POSTGRES_PASS_TAGS: string;
/** The test files (relative to the project) of each pass. */
export function databasePasses(): { sqlite: string[]; postgresql: string[] };
