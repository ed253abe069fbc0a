/** Test files (relative to the project) whose run-time imports reach the app database, and those whose do not. */
export function appDatabaseTests(): { included: string[]; excluded: string[] };
