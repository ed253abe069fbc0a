/**
 * Token-file intake (step 1) and the migration-duration estimate (step 2): pure — no
 * database, no HTTP. The caller encrypts and stores what `parseTokenFile` accepts.
 */
export * from "./estimate";
export { describeColumns, normaliseHeader } from "./columns";
export type { FileKind } from "./detect-file-type";
export * from "./limits";
export * from "./parse-token-file";
export * from "./problems";
export * from "./spreadsheet-cell";
export * from "./templates";
export type { PreviewRow, RowBatches, TokenRow } from "./validate-rows";
