/** The single-company test's two checks (the service spec's) and what each can show. */
export const TEST_CHECK_KEYS = ["no_reauthorization", "data_synced"] as const;
export type TestCheckKey = (typeof TEST_CHECK_KEYS)[number];

export const CHECK_RESULTS = ["passed", "failed", "running", "not_reached"] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number];
