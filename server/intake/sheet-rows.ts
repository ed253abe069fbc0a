/**
 * What the CSV and XLSX readers hand the validator: one row of cells as text, with where it is.
 */
import { MAX_DATA_ROWS } from "./limits";
import type { ProblemKind } from "@/core/intake/problems";

export type SheetRow = {
  /** CSV: the physical line the record starts on (1-based). XLSX: the worksheet row number. */
  line: number;
  /** Cell text by column position (0-based); missing trailing cells are absent. */
  cells: string[];
  /** XLSX: positions of number cells whose digits the spreadsheet may already have altered. */
  lossyCells?: number[];
};

/** Receives each non-blank row, header first; returns false to stop reading (the rest is never parsed). */
export type RowSink = (row: SheetRow) => boolean;

/** Thrown by a reader when the file cannot be read any further; the message names no value. */
export class FileReadError extends Error {
  constructor(
    readonly kind: Extract<ProblemKind, "not_utf8" | "unreadable_file" | "file_too_large" | "too_many_rows" | "value_too_long" | "unknown_column">,
    message: string,
    readonly line?: number,
    /** XLSX: the cell concerned, e.g. `B7`. */
    readonly cell?: string,
  ) {
    super(message);
  }
}

/** True when every cell is empty or spaces (a blank line, or a row of empty cells from a spreadsheet). */
export function isBlankRow(cells: readonly string[]): boolean {
  for (const cell of cells) if (cell.trim() !== "") return false;
  return true;
}

/**
 * Counts rows that hold only spaces, which readers skip: a file of nothing but such rows would
 * otherwise be read to its end however long it is, so past MAX_DATA_ROWS of them reading stops.
 */
export class BlankRowCounter {
  private count = 0;

  /** Counts one blank row; throws FileReadError once there are too many. */
  add(line: number): void {
    this.count += 1;
    if (this.count > MAX_DATA_ROWS) {
      throw new FileReadError(
        "too_many_rows",
        `The file has more than ${MAX_DATA_ROWS.toLocaleString("en")} rows holding only spaces (the last one read is ${line}). Remove them and upload again.`,
        line,
      );
    }
  }
}
