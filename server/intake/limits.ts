/**
 * The token-file intake's limits, in one place so the portal can state them beside the upload.
 */

/** Largest accepted file: 20 MiB, checked before anything else is read. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

/** Most data rows (companies) in one file; reading stops at the row after this. */
export const MAX_DATA_ROWS = 100_000;

/**
 * Most bytes the parts of a workbook Ferry reads may take once unzipped, counted as they are
 * actually inflated (a ZIP's declared sizes are checked first, but they can lie). A 100,000-row
 * QuickBooks Online workbook unzips to about 55 MB; this leaves room for longer tokens and refuses a
 * small file that would expand to gigabytes.
 */
export const MAX_UNZIPPED_BYTES = 128 * 1024 * 1024;

/**
 * Most bytes the shared strings may unzip to. The streaming reader keeps every shared string in
 * memory (worksheet cells point into them), so they get a tighter cap than the worksheets, which
 * stream. The 100,000-row workbook's are about 23 MB.
 */
export const MAX_SHARED_STRINGS_BYTES = 64 * 1024 * 1024;

/**
 * Most XML elements in the shared strings: each becomes an object the reader keeps (a string, a
 * rich-text run, its font). The 100,000-row workbook has about 1,000,000.
 */
export const MAX_SHARED_STRING_ELEMENTS = 2_500_000;

/**
 * The workbook's other parts the reader keeps whole (the workbook, its relationships, the
 * styles): at most this many bytes and elements each. Excel's own styles hold at most 64,000
 * cell formats; a token file's are a few kilobytes.
 */
export const MAX_MODEL_PART_BYTES = 8 * 1024 * 1024;
export const MAX_MODEL_PART_ELEMENTS = 200_000;

/**
 * Most bytes of text in one workbook cell (or between two cells), and of one CSV record. Excel
 * keeps at most 32,767 characters in a cell; a token file's cells are far shorter. Checked while
 * the file is read, before the text is gathered into one value.
 */
export const MAX_CELL_BYTES = 64 * 1024;

/** Most bytes of text in one worksheet row (from one row's start to the next). */
export const MAX_ROW_TEXT_BYTES = 1024 * 1024;

/**
 * Most cells in one worksheet. Reading a cell costs a few microseconds, so this bounds the time a
 * workbook can take as well: 100,000 companies of 25 columns. A 100,000-row QuickBooks Online
 * workbook has 700,000.
 */
export const MAX_SHEET_CELLS = 2_500_000;

/** Most XML elements in one worksheet row (a cell with its value takes two to four). */
export const MAX_ROW_ELEMENTS = 100_000;

/** Most bytes of one XML tag, and deepest nesting of elements (a workbook's parts nest about 6 deep). */
export const MAX_TAG_BYTES = 64 * 1024;
export const MAX_XML_DEPTH = 64;

/** Columns a token file's values may be in: a value further right is refused (a token file has about eight). */
export const MAX_COLUMNS = 256;

/**
 * Longest value of each column, in characters, checked on every row. Service tokens are at most
 * 4,096 characters (their format says so too); the other limits are far above any real value.
 */
export const COLUMN_LIMITS = {
  companyName: 200,
  externalRef: 200,
  records: 20,
  /** Every credential column (tokens, expiry, account ids). */
  credential: 8 * 1024,
} as const;

/** Rows shown in the preview table. */
export const PREVIEW_ROWS = 20;

/**
 * Problems of one kind kept in the result's list; `countsByKind` still counts every one. A file of
 * 100,000 rows that all lack `expiresAt` would otherwise carry 100,000 identical warnings.
 */
export const MAX_PROBLEMS_PER_KIND = 1_000;

/** Largest `records` hint accepted (a sanity bound, far above any real company). */
export const MAX_RECORDS_HINT = 1_000_000_000;
