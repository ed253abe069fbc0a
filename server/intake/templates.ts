/**
 * Token-file templates per platform, CSV and XLSX: the header row and one example row built from
 * the platform's field examples, so a customer starts from exactly the columns the intake reads.
 * Every cell goes through neutraliseSpreadsheetCell.
 */
import { stringify } from "csv-stringify/sync";
import { getManagedPlatform, type ManagedPlatform, type PlatformKey } from "@/server/platforms";
import { countColumn } from "./columns";
import { neutraliseSpreadsheetCell } from "./spreadsheet-cell";

export type TemplateFormat = "csv" | "xlsx";

export type TokenFileTemplate = {
  fileName: string;
  contentType: string;
  bytes: Buffer;
};

/** The example company of every template. */
const EXAMPLE = { companyName: "Harbour Books Ltd", externalRef: "CRM-10042", records: "500" } as const;

type TemplateColumn = { name: string; required: boolean; description: string; example: string };

/** The template's columns, in order, with what each holds (also the XLSX's "Columns" sheet). */
export function templateColumns(platform: ManagedPlatform): TemplateColumn[] {
  return [
    { name: "companyName", required: true, description: "the company's name as the service will show it", example: EXAMPLE.companyName },
    ...platform.credentialFields.map((f) => ({
      name: f.name,
      required: f.required,
      description: `${f.label}: ${f.expected}`,
      example: f.example,
    })),
    { name: "externalRef", required: false, description: "your own reference for the company (optional)", example: EXAMPLE.externalRef },
    {
      name: "records",
      required: false,
      description: "about how many records the company holds per data type (optional; used to estimate the migration's duration)",
      example: EXAMPLE.records,
    },
  ];
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

async function xlsxTemplate(platform: ManagedPlatform, columns: TemplateColumn[]): Promise<Buffer> {
  // Loaded on first use: exceljs is large and only XLSX needs it.
  const { default: ExcelJS } = await import("exceljs");
  const workbook = new ExcelJS.Workbook();
  workbook.creator = "Ferry";
  const sheet = workbook.addWorksheet("Tokens");
  // Text format on every column: ids such as a realm id keep all their digits and leading zeros.
  sheet.columns = columns.map((c) => ({ key: c.name, width: Math.max(14, c.example.length + 4), style: { numFmt: "@" } }));
  sheet.addRow(columns.map((c) => neutraliseSpreadsheetCell(c.name))).font = { bold: true };
  sheet.addRow(columns.map((c) => neutraliseSpreadsheetCell(c.example)));
  sheet.views = [{ state: "frozen", ySplit: 1 }];

  const help = workbook.addWorksheet("Columns");
  help.columns = [
    { key: "name", width: 16 },
    { key: "required", width: 10 },
    { key: "description", width: 90 },
  ];
  help.addRow(["column", "required", `what it holds (${platform.name})`].map(neutraliseSpreadsheetCell)).font = { bold: true };
  for (const c of columns) {
    help.addRow([c.name, c.required ? "yes" : "no", c.description].map(neutraliseSpreadsheetCell));
  }
  help.addRow([]);
  help.addRow([neutraliseSpreadsheetCell("Ferry reads the first sheet only: one row per company below the header.")]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/**
 * The template for a platform in CSV (UTF-8 with a BOM, so Excel opens non-ASCII names correctly)
 * or XLSX (a "Tokens" sheet to fill in, and a "Columns" sheet explaining each column).
 */
export async function tokenFileTemplate(params: { platformKey: PlatformKey; format: TemplateFormat }): Promise<TokenFileTemplate> {
  const platform = getManagedPlatform(params.platformKey);
  if (!platform) throw new Error(`tokenFileTemplate: "${params.platformKey}" is not a managed platform`);
  const columns = templateColumns(platform);
  const base = `ferry-token-file-${slug(platform.name)}`;
  switch (params.format) {
    case "csv": {
      const text = stringify([columns.map((c) => c.name), columns.map((c) => c.example)].map((row) => row.map(neutraliseSpreadsheetCell)), {
        bom: true,
        record_delimiter: "windows",
      });
      return { fileName: `${base}.csv`, contentType: "text/csv; charset=utf-8", bytes: Buffer.from(text, "utf8") };
    }
    case "xlsx":
      return {
        fileName: `${base}.xlsx`,
        contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        bytes: await xlsxTemplate(platform, columns),
      };
    default: {
      const never: never = params.format;
      return never;
    }
  }
}

/**
 * One company of a token file built by Ferry itself (the demo data, tests): its name and
 * credentials; `oldCounts`, the old app's record count per data type (`count_<dataType>` columns).
 */
export type TokenFileCompany = {
  name: string;
  credentials: Readonly<Record<string, string>>;
  externalRef?: string | null;
  records?: number | null;
  oldCounts?: Readonly<Record<string, number>>;
};

/**
 * A token file (CSV, UTF-8, CRLF) in the template's column order, for files Ferry writes to be read
 * back (the demo data, tests). Values are written as they are: this is an import file, not an
 * export, and a neutralising `'` would change a credential.
 */
export function tokenFileCsv(params: { platformKey: PlatformKey; companies: readonly TokenFileCompany[] }): Buffer {
  const platform = getManagedPlatform(params.platformKey);
  if (!platform) throw new Error(`tokenFileCsv: "${params.platformKey}" is not a managed platform`);
  const template = templateColumns(platform).map((c) => c.name);
  // The old app's counts, a column per data type any company gives, after the template's columns.
  const counted = [...new Set(params.companies.flatMap((c) => Object.keys(c.oldCounts ?? {})))];
  const header = [...template, ...counted.map(countColumn)];
  const rows = params.companies.map((c) => [
    ...template.map((name) => {
      if (name === "companyName") return c.name;
      if (name === "externalRef") return c.externalRef ?? "";
      if (name === "records") return c.records === null || c.records === undefined ? "" : String(c.records);
      return c.credentials[name] ?? "";
    }),
    ...counted.map((dataType) => (c.oldCounts?.[dataType] === undefined ? "" : String(c.oldCounts[dataType]))),
  ]);
  // A lone carriage return is a line break to a CSV reader too: quote it like the others.
  return Buffer.from(stringify([header, ...rows], { record_delimiter: "windows", quoted_match: /[\r\n]/ }), "utf8");
}
