/**
 * How long the built-in sandbox takes to sync, in milliseconds: the i-th supported data type of a
 * request starts fetching at queue + i × stagger and completes fetchBase + perRecord × records
 * later. Shared by the sandbox (which simulates it) and the step-2 estimator (which plans with it).
 */
export const SANDBOX_SYNC_TIMING = {
  queueMs: 200,
  staggerMs: 40,
  fetchBaseMs: 300,
  perRecordMs: 2,
} as const;
