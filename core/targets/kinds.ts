/** Where a migration runs: the built-in sandbox or a real service. Owned by the domain; db/schema.ts imports it. */
export const SERVICE_TARGET_KINDS = ["sandbox", "service"] as const;
export type ServiceTargetKind = (typeof SERVICE_TARGET_KINDS)[number];
