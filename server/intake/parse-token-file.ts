/**
 * A token file, checked whole before anything is stored: the file type by content, the size and
 * row limits (size before reading, rows while reading, so an oversized file is never parsed
 * whole), the header against the engagement's platform, then every row. The result says whether
 * the file may be accepted, what is wrong where, and a masked preview.
 */
import { getManagedPlatform, type PlatformKey } from "@/server/platforms";
import { checkHeader } from "./columns";
import { detectFileType, extensionMismatch, type FileKind } from "./detect-file-type";
import { MAX_DATA_ROWS, MAX_FILE_BYTES } from "./limits";
import { ProblemList } from "./problems";
import { type IntakeProblem, type ProblemKind } from "@/core/intake/problems";
import { readCsvRows, readCsvRowsInChunks } from "./read-csv";
import { columnLetters, readXlsxRows } from "./read-xlsx";
import { FileReadError, type SheetRow } from "./sheet-rows";
import { RowValidator, type PreviewRow, type RowBatches, type TokenRow } from "./validate-rows";

export type TokenFilePreview = {
  /** The known columns present in the file, in template order. */
  columns: string[];
  /** The first rows (PREVIEW_ROWS), secrets masked, every value neutralised for spreadsheets. */
  rows: PreviewRow[];
};

export type TokenFileResult = {
  /** True when there is no blocking error: the caller may store the rows. */
  ok: boolean;
  /** What the content is (null when the file was refused for its size before being looked at). */
  fileKind: FileKind | null;
  platformKey: PlatformKey;
  /** Data rows read (blank rows not counted). */
  rowCount: number;
  /** The companies, in file order; empty unless `ok`, so nothing of a refused file travels on (and empty when they were handed on in `batches`). */
  rows: TokenRow[];
  /** Problems in file order (file and header problems first); at most MAX_PROBLEMS_PER_KIND per kind. */
  problems: IntakeProblem[];
  /** Every problem counted by kind, including those beyond the list's cap. */
  countsByKind: Partial<Record<ProblemKind, number>>;
  errorCount: number;
  warningCount: number;
  preview: TokenFilePreview;
};

function megabytes(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

function finish(params: {
  platformKey: PlatformKey;
  fileKind: FileKind | null;
  problems: ProblemList;
  rowCount?: number;
  validator?: RowValidator;
}): TokenFileResult {
  const { problems, validator } = params;
  const ok = problems.errorCount === 0;
  const byLine = [...problems.items].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return {
    ok,
    fileKind: params.fileKind,
    platformKey: params.platformKey,
    rowCount: params.rowCount ?? 0,
    rows: ok && validator ? validator.rows : [],
    problems: byLine,
    countsByKind: problems.countsByKind,
    errorCount: problems.errorCount,
    warningCount: problems.warningCount,
    preview: { columns: validator?.previewColumns() ?? [], rows: validator?.preview ?? [] },
  };
}

/** A refusal of the whole file with one problem. */
function refuse(platformKey: PlatformKey, fileKind: FileKind | null, problem: Omit<IntakeProblem, "severity">, rowCount = 0): TokenFileResult {
  const problems = new ProblemList();
  problems.add(problem);
  return finish({ platformKey, fileKind, problems, rowCount });
}

/** What parseTokenFile is given. */
type TokenFileParams = {
  bytes: Uint8Array;
  fileName: string;
  platformKey: PlatformKey;
  now: Date;
  /** Accepted rows handed on in batches while the file is read (then `rows` comes back empty): see RowBatches. */
  batches?: RowBatches;
};

/** A token file whose rows are being read: the sink its reader calls, and how the reading ends. */
type Reading = {
  bytes: Buffer;
  detected: Extract<ReturnType<typeof detectFileType>, { kind: "csv" | "xlsx" }>;
  sink: (row: SheetRow) => boolean;
  /** The result after a reader threw: a FileReadError refuses the file; anything else is thrown on. */
  failed(error: unknown): TokenFileResult;
  /** The result once the reader has read what it would. */
  finish(): TokenFileResult;
};

/** Checks what can be checked before the rows (size, type by content, extension) and sets up their reading. */
function startReading(params: TokenFileParams): { refused: TokenFileResult } | { reading: Reading } {
  const { platformKey } = params;
  const platform = getManagedPlatform(platformKey);
  if (!platform) throw new Error(`parseTokenFile: "${platformKey}" is not a managed platform`);
  const bytes = Buffer.from(params.bytes.buffer, params.bytes.byteOffset, params.bytes.byteLength);

  if (bytes.length > MAX_FILE_BYTES) {
    return {
      refused: refuse(platformKey, null, {
        kind: "file_too_large",
        message: `The file is ${megabytes(bytes.length)}; the limit is ${megabytes(MAX_FILE_BYTES)}. Split the companies over several engagements or ask support.`,
      }),
    };
  }
  const detected = detectFileType(bytes);
  if (detected.kind !== "csv" && detected.kind !== "xlsx") {
    if (detected.kind === "damaged_xlsx") return { refused: refuse(platformKey, "xlsx", { kind: "unreadable_file", message: detected.message }) };
    return { refused: refuse(platformKey, detected.kind, { kind: "unsupported_file_type", message: detected.message }) };
  }
  const fileKind = detected.kind;
  const problems = new ProblemList();
  const mismatch = extensionMismatch(params.fileName, fileKind);
  if (mismatch) problems.add({ kind: "extension_mismatch", message: mismatch });

  let validator: RowValidator | undefined;
  let usable = false;
  let rowCount = 0;
  let headerLine = 0;
  let overLimit: SheetRow | undefined;
  const sink = (row: SheetRow): boolean => {
    if (!headerLine) {
      headerLine = row.line;
      const header = checkHeader(platform, row.cells);
      for (const { position, ...problem } of header.problems) {
        const cell = fileKind === "xlsx" && position !== undefined ? `${columnLetters(position + 1)}${row.line}` : undefined;
        problems.add({ ...problem, line: row.line, ...(cell ? { cell } : {}) });
      }
      usable = header.usable;
      validator = new RowValidator({ platform, columns: header.columns, fileKind, now: params.now, problems, ...(params.batches ? { batches: params.batches } : {}) });
      return true;
    }
    rowCount += 1;
    if (rowCount > MAX_DATA_ROWS) {
      overLimit = row;
      return false;
    }
    if (usable) validator?.add(row);
    return true;
  };
  const failed = (error: unknown): TokenFileResult => {
    if (!(error instanceof FileReadError)) throw error;
    return refuse(platformKey, fileKind, { kind: error.kind, message: error.message, ...(error.line ? { line: error.line } : {}), ...(error.cell ? { cell: error.cell } : {}) }, rowCount);
  };
  const end = (): TokenFileResult => {
    if (overLimit) {
      const where = `${fileKind === "xlsx" ? "row" : "line"} ${overLimit.line}`;
      return refuse(
        platformKey,
        fileKind,
        {
          kind: "too_many_rows",
          line: overLimit.line,
          message: `The file has more than ${MAX_DATA_ROWS.toLocaleString("en")} companies (company ${rowCount.toLocaleString("en")} is on ${where}), and reading stopped there. Split it over several engagements or ask support.`,
        },
        rowCount,
      );
    }

    if (!headerLine) {
      return refuse(platformKey, fileKind, {
        kind: "file_empty",
        message: `The file is empty. Fill in the ${platform.name} template, one row per company, and upload it.`,
      });
    }
    // A header that is not one (or is another platform's) is the one thing to fix first.
    if (rowCount === 0 && usable) {
      problems.add({
        kind: "header_only",
        line: headerLine,
        message: `The file has a header row but no companies. Add one row per company below the header.`,
      });
    }
    if (usable) validator?.finish();
    return finish({ platformKey, fileKind, problems, rowCount, validator: usable ? validator : undefined });
  };
  return { reading: { bytes, detected, sink, failed, finish: end } };
}

/**
 * Parses and validates a token file for the engagement's platform. `now` decides which access
 * tokens have expired. Never throws for anything in the file; throws only for a platform key that
 * is not one of the six (a caller's mistake).
 */
export async function parseTokenFile(params: TokenFileParams): Promise<TokenFileResult> {
  const started = startReading(params);
  if ("refused" in started) return started.refused;
  const { reading } = started;
  try {
    if (reading.detected.kind === "xlsx") await readXlsxRows(reading.bytes, reading.detected.zip, reading.sink);
    else readCsvRows(reading.bytes, reading.sink);
  } catch (error) {
    return reading.failed(error);
  }
  return reading.finish();
}

/** A reading already over, as a generator that returns its result without yielding. */
function* over(result: TokenFileResult): Generator<void, TokenFileResult, void> {
  return result;
}

/**
 * parseTokenFile for a CSV file without a quote, read a chunk at a time (readCsvRowsInChunks): a
 * generator that yields between chunks and returns the same result, so a caller storing the
 * companies as they are accepted (`batches`) can let the database catch up. Null for a workbook or
 * a CSV with quotes: read those with parseTokenFile. A file refused before its rows (size, type,
 * not UTF-8) comes back as a generator that returns the refusal at once.
 */
export function readTokenFileInChunks(params: TokenFileParams, chunkChars?: number): Generator<void, TokenFileResult, void> | null {
  const started = startReading(params);
  if ("refused" in started) return over(started.refused);
  const { reading } = started;
  if (reading.detected.kind !== "csv") return null;
  let chunks: Generator<void, void, void> | null;
  try {
    chunks = readCsvRowsInChunks(reading.bytes, reading.sink, chunkChars);
  } catch (error) {
    return over(reading.failed(error));
  }
  if (!chunks) return null;
  const read = chunks;
  return (function* () {
    try {
      yield* read;
    } catch (error) {
      return reading.failed(error);
    }
    return reading.finish();
  })();
}
