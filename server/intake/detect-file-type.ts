/**
 * What a file is, decided by its content (magic bytes and, for ZIPs, the parts inside), not by
 * its name: a token file is CSV text or an XLSX workbook; anything else is refused with one
 * message saying what the file is and what to upload instead.
 */
import { readZipDirectory, type ZipDirectory } from "./zip-directory";

/** What the content turned out to be. */
export type FileKind = "csv" | "xlsx" | "xls" | "ods" | "zip" | "pdf" | "image" | "utf16" | "binary";

export type Detection =
  | { kind: "csv" }
  | { kind: "xlsx"; zip: ZipDirectory }
  /** Refused: what it is and why, in plain words. `damaged` when it claims a type but is broken. */
  | { kind: Exclude<FileKind, "csv" | "xlsx"> | "damaged_xlsx"; message: string };

const UPLOAD_INSTEAD = "Upload the token file as CSV (UTF-8) or as an Excel workbook (.xlsx); the template shows the columns.";

function startsWith(b: Uint8Array, ...bytes: number[]): boolean {
  return bytes.every((v, i) => b[i] === v);
}

function ascii(b: Uint8Array, from: number, to: number): string {
  if (from >= b.length) return "";
  return Buffer.from(b.buffer, b.byteOffset + from, Math.max(0, Math.min(to, b.length) - from)).toString("latin1");
}

function imageType(b: Uint8Array): string | null {
  if (startsWith(b, 0x89, 0x50, 0x4e, 0x47)) return "PNG";
  if (startsWith(b, 0xff, 0xd8, 0xff)) return "JPEG";
  if (ascii(b, 0, 6) === "GIF87a" || ascii(b, 0, 6) === "GIF89a") return "GIF";
  if (ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") return "WebP";
  if (startsWith(b, 0x49, 0x49, 0x2a, 0x00) || startsWith(b, 0x4d, 0x4d, 0x00, 0x2a)) return "TIFF";
  if (ascii(b, 4, 8) === "ftyp" && /^(heic|heix|mif1|msf1|avif)$/.test(ascii(b, 8, 12))) return "HEIC/AVIF";
  return null;
}

function zipKind(b: Buffer): Detection {
  const zip = readZipDirectory(b);
  if (!zip) {
    return {
      kind: "damaged_xlsx",
      message: `This file starts like a ZIP archive (as an .xlsx workbook does) but is damaged or incomplete, so it cannot be read. Save the workbook again and upload it, or upload it as CSV.`,
    };
  }
  const names = new Set(zip.entries.map((e) => e.name));
  if (names.has("xl/workbook.xml")) return { kind: "xlsx", zip };
  if (names.has("mimetype") && names.has("content.xml")) {
    const spreadsheet = b.includes("application/vnd.oasis.opendocument.spreadsheet");
    return {
      kind: "ods",
      message: spreadsheet
        ? `This is an OpenDocument spreadsheet (.ods), which Ferry does not read. Save it as Excel Workbook (.xlsx) or CSV UTF-8 and upload that.`
        : `This is an OpenDocument file, not a token file. ${UPLOAD_INSTEAD}`,
    };
  }
  const what = names.has("word/document.xml")
    ? "a Word document"
    : names.has("ppt/presentation.xml")
      ? "a PowerPoint presentation"
      : "a ZIP archive";
  return { kind: "zip", message: `This is ${what}, not a token file. ${UPLOAD_INSTEAD}` };
}

/** Decides what `bytes` hold by their content. */
export function detectFileType(bytes: Uint8Array): Detection {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (startsWith(b, 0x50, 0x4b, 0x03, 0x04) || startsWith(b, 0x50, 0x4b, 0x05, 0x06)) return zipKind(b);
  if (startsWith(b, 0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) {
    return {
      kind: "xls",
      message:
        "This is a legacy Excel 97–2003 workbook (.xls) or another old Office file, which Ferry does not read. Open it in Excel, save it as Excel Workbook (.xlsx) or CSV UTF-8, and upload that.",
    };
  }
  if (ascii(b, 0, 5) === "%PDF-") return { kind: "pdf", message: `This is a PDF document, not a token file. ${UPLOAD_INSTEAD}` };
  const image = imageType(b);
  if (image) return { kind: "image", message: `This is a ${image} image, not a token file. ${UPLOAD_INSTEAD}` };
  if (startsWith(b, 0xff, 0xfe) || startsWith(b, 0xfe, 0xff)) {
    return {
      kind: "utf16",
      message:
        "This is UTF-16 text (what Excel calls “Unicode Text”), which Ferry does not read. Save the sheet as CSV UTF-8 (comma delimited) and upload that.",
    };
  }
  // Text never holds NUL bytes; every binary format Ferry was not told about above does.
  const head = b.subarray(0, 64 * 1024);
  if (head.includes(0)) {
    return { kind: "binary", message: `This file holds binary data, not text or a workbook. ${UPLOAD_INSTEAD}` };
  }
  return { kind: "csv" };
}

/** The extension of `fileName`, lower case, without the dot ("" when there is none). */
export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return dot < 0 ? "" : fileName.slice(dot + 1).toLowerCase();
}

/**
 * A note when the name says one type and the content another (the content wins), or null.
 * Only the extensions a token file is expected to have are compared; `.txt` and `.tsv` are text.
 */
export function extensionMismatch(fileName: string, kind: "csv" | "xlsx"): string | null {
  const ext = extensionOf(fileName);
  if (kind === "xlsx" && (ext === "csv" || ext === "txt" || ext === "tsv")) {
    return `The file is named .${ext} but holds an Excel workbook; it was read as a workbook.`;
  }
  if (kind === "csv" && (ext === "xlsx" || ext === "xls")) {
    return `The file is named .${ext} but holds CSV text; it was read as CSV.`;
  }
  return null;
}
