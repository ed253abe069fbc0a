/**
 * The token-file intake's limits, in one place so the portal can state them beside the upload.
 */

/** Largest accepted file: 20 MiB, checked before anything else is read. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

/** Most data rows (companies) in one file; reading stops at the row after this. */
export const MAX_DATA_ROWS = 100_000;

/**
 * Most bytes the parts of a workbook Ferry reads may take once unzipped (as the workbook declares
 * them). A 100,000-row QuickBooks Online workbook unzips to about 55 MB; this leaves room for long
 * tokens and refuses a small file that would expand to gigabytes.
 */
export const MAX_UNZIPPED_BYTES = 300 * 1024 * 1024;

/** Rows shown in the preview table. */
export const PREVIEW_ROWS = 20;

/**
 * Problems of one kind kept in the result's list; `countsByKind` still counts every one. A file of
 * 100,000 rows that all lack `expiresAt` would otherwise carry 100,000 identical warnings.
 */
export const MAX_PROBLEMS_PER_KIND = 1_000;

/** Largest `records` hint accepted (a sanity bound, far above any real company). */
export const MAX_RECORDS_HINT = 1_000_000_000;
