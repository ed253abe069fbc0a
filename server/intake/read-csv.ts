/**
 * CSV rows from a token file's bytes, one record at a time so reading stops as soon as the caller
 * says (at the row limit): UTF-8 with or without a BOM, `,` `;` or tab separators (chosen from the
 * header line), quoted values with embedded separators, quotes and line breaks, and CRLF, LF or CR
 * line ends, mixed or not.
 *
 * Two readers, one result:
 * - A file with a quote anywhere is read by csv-parse, which also says where quoting goes wrong (a
 *   value never closed, text after a closing quote). Line numbers are the file's physical lines:
 *   csv-parse's own `info.lines` counts a CRLF inside a quoted value twice, so lines are counted
 *   here from each record's raw text, which also carries the line ends of the empty lines skipped
 *   before it.
 * - A file without a single quote (the usual export of a script or an OAuth app's database) cannot
 *   go wrong that way, and each of its records is one physical line: d3-dsv splits it about ten
 *   times faster (0.07 s instead of 0.75 s for 100,000 companies, docs/benchmarks.md), the line of
 *   a record being simply its count. Both readers skip empty lines, count blank rows and refuse a
 *   record over MAX_CELL_BYTES alike; a test reads the same quote-free files through both.
 */
import { isUtf8 } from "node:buffer";
// CsvError from the same entry as `parse`: loaded through `require`, csv-parse's entries are
// separate bundles with a CsvError class each, and `instanceof` fails across them.
import type { InfoRecord } from "csv-parse";
import { CsvError, parse } from "csv-parse/sync";
import { dsvFormat } from "d3-dsv";
import { MAX_CELL_BYTES } from "./limits";
import { BlankRowCounter, FileReadError, isBlankRow, type RowSink } from "./sheet-rows";

/** The separators a token file may use. */
export type CsvDelimiter = "," | ";" | "\t";

/** The separator used in the header line: the most frequent of `,` `;` and tab outside quotes (`,` on a tie). */
export function detectDelimiter(text: string): CsvDelimiter {
  const counts = { ",": 0, ";": 0, "\t": 0 };
  let quoted = false;
  let started = false;
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "\n" || c === "\r")) {
      // Blank lines before the header do not count as the header line.
      if (started) break;
    } else if (!quoted && (c === "," || c === ";" || c === "\t")) counts[c] += 1;
    if (c !== "\n" && c !== "\r") started = true;
  }
  if (counts[";"] > counts[","] && counts[";"] >= counts["\t"]) return ";";
  if (counts["\t"] > counts[","] && counts["\t"] > counts[";"]) return "\t";
  return ",";
}

/** Line breaks in `raw`, a CRLF counting once; only those before any other character when `leading`. */
function countLineBreaks(raw: string, leading = false): number {
  let count = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 13) {
      count += 1;
      if (raw.charCodeAt(i + 1) === 10) i += 1;
    } else if (c === 10) count += 1;
    else if (leading) break;
  }
  return count;
}

function notUtf8(bytes: Buffer): FileReadError {
  const text = bytes.toString("utf8");
  const bad = text.indexOf("\uFFFD");
  const line = bad < 0 ? 1 : countLineBreaks(text.slice(0, bad)) + 1;
  return new FileReadError(
    "not_utf8",
    `This file is not UTF-8 text: line ${line} holds a byte that is not valid UTF-8 (the file was probably saved as Windows-1252 or “ANSI”). Save it as CSV UTF-8 and upload it again.`,
    line,
  );
}

function tooLong(line: number): FileReadError {
  return new FileReadError(
    "value_too_long",
    `Line ${line} holds more than ${MAX_CELL_BYTES / 1024} KB, and reading stopped there. One company's line is far shorter (its name, tokens and a few short values): a quoted value may lack its closing quote ("), or a cell holds far more than it should. Correct the line and upload again.`,
    line,
  );
}

function syntaxMessage(error: CsvError, line: number): string {
  switch (error.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return `The quoted value that starts on line ${line} is never closed, so the rest of the file cannot be read. Add the missing closing quote (").`;
    case "CSV_INVALID_CLOSING_QUOTE":
    case "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE":
      return `On line ${line} a closing quote is followed by more text. A quote inside a quoted value must be doubled ("").`;
    default:
      return `Line ${line} cannot be read as CSV (${error.code}).`;
  }
}

function recordOf(value: unknown): string[] {
  if (Array.isArray(value)) return value as string[];
  const record: unknown = value && typeof value === "object" ? Reflect.get(value, "record") : undefined;
  return Array.isArray(record) ? (record as string[]) : [];
}

/** Thrown from csv-parse's record hook to stop parsing; never leaves this module. */
class StopReading extends Error {}

/** The byte `"`. */
const QUOTE = 0x22;

/**
 * Hands each non-blank row of a CSV file to `sink`, header first, until it returns false.
 * Throws FileReadError for text that is not UTF-8, a record that cannot be parsed or is longer
 * than MAX_CELL_BYTES (naming its line, never its content), or for too many blank rows.
 */
export function readCsvRows(bytes: Buffer, sink: RowSink): void {
  if (!isUtf8(bytes)) throw notUtf8(bytes);
  const delimiter = csvDelimiter(bytes);
  if (bytes.indexOf(QUOTE) === -1) readQuoteFreeCsv(bytes, delimiter, sink);
  else readQuotedCsv(bytes, delimiter, sink);
}

/** The separator of a file known to be UTF-8 (see detectDelimiter). */
function csvDelimiter(bytes: Buffer): CsvDelimiter {
  return detectDelimiter(bytes.subarray(0, 64 * 1024).toString("utf8"));
}

/**
 * Characters of a quote-free file read at a time by readCsvRowsInChunks (ended at a line end): about
 * 350 companies, so a caller storing them as they come gets a turn often (PostgreSQL's COPY opens
 * the next statement when the last has ended: db/insert-many.ts).
 */
export const CSV_CHUNK_CHARS = 1 << 16;

/**
 * Reads a quote-free CSV file as readCsvRows does, a chunk of CSV_CHUNK_CHARS characters (cut at a
 * line end) at a time, yielding after each so a caller storing the rows as they come can let the
 * database catch up; null when the file has a quote (it is then read whole by csv-parse, whose
 * errors name lines a chunk could cut). Throws as readCsvRows does.
 */
export function readCsvRowsInChunks(bytes: Buffer, sink: RowSink, chunkChars = CSV_CHUNK_CHARS): Generator<void, void, void> | null {
  if (!isUtf8(bytes)) throw notUtf8(bytes);
  return bytes.indexOf(QUOTE) === -1 ? quoteFreeChunks(bytes, csvDelimiter(bytes), sink, chunkChars) : null;
}

/** More than MAX_CELL_BYTES of UTF-8 in the record's values (its length in characters decides when it can). */
function overLong(cells: readonly string[]): boolean {
  let chars = 0;
  for (const cell of cells) chars += cell.length;
  if (chars > MAX_CELL_BYTES) return true;
  if (chars * 3 <= MAX_CELL_BYTES) return false;
  let bytes = 0;
  for (const cell of cells) bytes += Buffer.byteLength(cell, "utf8");
  return bytes > MAX_CELL_BYTES;
}

/** Where the chunk starting at `from` ends: just past the first line end at or after `from + size` (a CRLF whole), or the text's end. */
function chunkEnd(text: string, from: number, size: number): number {
  const at = from + size;
  if (at >= text.length) return text.length;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return i + 1;
    if (c === 13) return text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
  }
  return text.length;
}

/** A file without a quote, read whole (see the module note). */
export function readQuoteFreeCsv(bytes: Buffer, delimiter: CsvDelimiter, sink: RowSink): void {
  for (const _ of quoteFreeChunks(bytes, delimiter, sink, Infinity));
}

/**
 * A file without a quote (see the module note), a chunk at a time: d3-dsv calls back once per
 * physical line of a chunk, an empty line as one empty value, and CRLF, LF and CR each end a line.
 * A chunk ends just past a line end, so its lines are whole and counted on from the last chunk's.
 */
function* quoteFreeChunks(bytes: Buffer, delimiter: CsvDelimiter, sink: RowSink, chunkChars: number): Generator<void, void, void> {
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const format = dsvFormat(delimiter);
  const blanks = new BlankRowCounter();
  let line = 0;
  let stopped = false;
  const row = (cells: string[]): null => {
    line += 1;
    // An empty line is skipped, as csv-parse's skip_empty_lines does.
    if (cells.length === 1 && cells[0] === "") return null;
    if (overLong(cells)) throw tooLong(line);
    if (isBlankRow(cells)) blanks.add(line);
    else if (!sink({ line, cells })) throw new StopReading();
    // Nothing is collected: each row lives only as long as the sink keeps it.
    return null;
  };
  for (let from = 0; from < text.length && !stopped; ) {
    const end = chunkEnd(text, from, chunkChars);
    try {
      format.parseRows(from === 0 && end === text.length ? text : text.slice(from, end), row);
    } catch (error) {
      if (!(error instanceof StopReading)) throw error;
      stopped = true;
    }
    from = end;
    if (!stopped && from < text.length) yield;
  }
}

/** A file with quotes, read by csv-parse (see the module note). */
export function readQuotedCsv(bytes: Buffer, delimiter: CsvDelimiter, sink: RowSink): void {
  const blanks = new BlankRowCounter();
  // The line the next record's raw text begins on (empty lines skipped before it included).
  let line = 1;
  let recordLine = 1;
  try {
    parse(bytes, {
      bom: true,
      delimiter,
      // A record (and so each value in it) stops being gathered past this, with CSV_MAX_RECORD_SIZE.
      max_record_size: MAX_CELL_BYTES,
      raw: true,
      // Rows with fewer or more values than the header are the validator's to report.
      relax_column_count: true,
      relax_quotes: true,
      record_delimiter: ["\r\n", "\n", "\r"],
      skip_empty_lines: true,
      // With `raw`, csv-parse hands the hook `{ record, raw }` (its types say a plain array).
      on_record: (value: unknown, context: InfoRecord) => {
        const record = recordOf(value);
        const raw = context.raw ?? "";
        recordLine = line + countLineBreaks(raw, true);
        line += countLineBreaks(raw);
        if (isBlankRow(record)) blanks.add(recordLine);
        else if (!sink({ line: recordLine, cells: record })) throw new StopReading();
        // Nothing is collected: each row lives only as long as the sink keeps it.
        return null;
      },
    });
  } catch (error) {
    if (error instanceof StopReading) return;
    if (error instanceof FileReadError) throw error;
    if (error instanceof CsvError) {
      // The failing record starts after the last one read, past any empty lines.
      if (error.code === "CSV_MAX_RECORD_SIZE") throw tooLong(line);
      throw new FileReadError("unreadable_file", syntaxMessage(error, line), line);
    }
    throw error;
  }
}
