/**
 * The words db/schema-description.ts describes Ferry's tables in, once for both databases, and the
 * printer that writes each dialect's drizzle schema from it (db/schema.sqlite.ts and
 * db/schema.pg.ts: `npm run db:schema`). Each column is described by what it holds (a text, an
 * integer, a moment, a yes/no, a JSON value), and the printer picks each dialect's type for it:
 *
 * | described as   | SQLite                                  | PostgreSQL                                   |
 * |----------------|-----------------------------------------|----------------------------------------------|
 * | `text`         | `text`                                  | `text`                                       |
 * | `integer`      | `integer`                               | `integer`                                    |
 * | `bigInteger`   | `integer` (64-bit)                      | `bigint`, read as a number                   |
 * | `moment`       | `integer` in epoch milliseconds         | `timestamp (3) with time zone`               |
 * | `yesNo`        | `integer` 0/1                           | `boolean`                                    |
 * | `json`         | `text` holding JSON                     | `jsonb`                                      |
 * | `uuidId`       | `text` primary key, a random UUID       | the same                                     |
 * | `serialId`     | `integer primary key autoincrement`     | `bigint` identity, read as a number          |
 *
 * so both read and write the same JavaScript values (db/schema-drift.test.ts checks it). SQL
 * written into the description (an index's expression or condition) is drizzle's `sql` template
 * body, the same on both, but for `{true}`/`{false}`, which each dialect writes its own way.
 *
 * Hand-written rather than a library's: the tools that write drizzle schemas (drizzle-kit's
 * `pull`, Payload's builder) start from a database or from Payload's own collections, not from a
 * description of two dialects at once; this is a printer of about two hundred lines.
 */

export type Dialect = "sqlite" | "pg";

type ColumnKind = "text" | "integer" | "bigInteger" | "moment" | "yesNo" | "json" | "uuidId" | "serialId";

type Reference = { table: string; column: string; onDelete?: "cascade" | "set null" | "restrict" };

/** One column as described: what it holds and its constraints, in the database's words. */
export type ColumnSpec = {
  kind: ColumnKind;
  name: string;
  /** A text's allowed words: the name of an imported constant, or a literal list in TypeScript. */
  enumValues?: string;
  /** A JSON column's TypeScript type. */
  jsonType?: string;
  notNull: boolean;
  primaryKey: boolean;
  /** A default in TypeScript (`true`, `0`, `"active"`), the same on both databases. */
  defaultValue?: string;
  /** A default for a moment column: the epoch's first instant. */
  defaultEpoch?: boolean;
  /** A JSON column's default, as JSON text. */
  defaultJson?: string;
  /** Filled by drizzle with the current time when an insert leaves it out. */
  defaultNow: boolean;
  references?: Reference;
  /** A doc comment (`/** … *\/`) above the column; lines as written. */
  doc?: string;
  /** A plain comment (`// …`) above the column and its doc. */
  comment?: string;
  /** Computed by the database from the row's other columns (SQL, the same on both): virtual on SQLite, stored on PostgreSQL. */
  generated?: string;
};

/** A column being described: each call adds one fact and gives the column back. */
export class Column {
  constructor(readonly spec: ColumnSpec) {}
  private with(fact: Partial<ColumnSpec>): Column {
    return new Column({ ...this.spec, ...fact });
  }
  notNull(): Column {
    return this.with({ notNull: true });
  }
  primaryKey(): Column {
    return this.with({ primaryKey: true });
  }
  /** A default written the same on both databases: a TypeScript literal (`true`, `0`, `"active"`). */
  default(value: boolean | number | string): Column {
    return this.with({ defaultValue: JSON.stringify(value) });
  }
  /** A moment column's default: the epoch (SQLite's 0, PostgreSQL's `to_timestamp(0)`). */
  defaultEpoch(): Column {
    return this.with({ defaultEpoch: true });
  }
  /** A JSON column's default value, as JSON text (`[]`). */
  defaultJson(json: string): Column {
    return this.with({ defaultJson: json });
  }
  /** The current time when an insert leaves the column out (drizzle fills it in). */
  defaultNow(): Column {
    return this.with({ defaultNow: true });
  }
  references(table: string, column: string, options: { onDelete?: Reference["onDelete"] } = {}): Column {
    return this.with({ references: { table, column, ...options } });
  }
  /**
   * A column the database computes from the row's other columns (an SQL expression both databases
   * read alike): SQLite keeps it virtual (computed when read, and into any index on it), PostgreSQL
   * stores it. Nothing writes it, so it can never disagree with the columns it is made from.
   */
  generatedAs(body: string): Column {
    return this.with({ generated: body.replace(/\s+/g, " ").trim() });
  }
  /** What the column means, for the reader of either schema file (one argument per line). */
  doc(...lines: string[]): Column {
    return this.with({ doc: lines.join("\n") });
  }
  /** A note above the column (a section heading, or why it exists; one argument per line). */
  comment(...lines: string[]): Column {
    return this.with({ comment: lines.join("\n") });
  }
}

const column = (kind: ColumnKind, name: string, extra: Partial<ColumnSpec> = {}) => new Column({ kind, name, notNull: false, primaryKey: false, defaultNow: false, ...extra });

/** The column kinds a table is described with. */
export const c = {
  /** A text; `enumValues` names the constant of its allowed words (or a literal list). */
  text: (name: string, enumValues?: string) => column("text", name, enumValues ? { enumValues } : {}),
  integer: (name: string) => column("integer", name),
  /** A whole number past 2^31 (read as a JavaScript number, exact to 2^53). */
  bigInteger: (name: string) => column("bigInteger", name),
  /** A moment in time, read as a Date to the millisecond. */
  moment: (name: string) => column("moment", name),
  yesNo: (name: string) => column("yesNo", name),
  /** A JSON value of the TypeScript type `type`. */
  json: (name: string, type: string) => column("json", name, { jsonType: type }),
  /** The usual primary key: `id`, a random UUID drizzle makes. */
  uuidId: () => column("uuidId", "id", { primaryKey: true, notNull: true }),
  /** A growing number as primary key (`id`), for append-only logs. */
  serialId: () => column("serialId", "id", { primaryKey: true, notNull: true }),
  /** When the row was made: `created_at`, filled in by drizzle. */
  createdAt: () => column("moment", "created_at", { notNull: true, defaultNow: true }),
  /** When the row last changed: `updated_at`, filled in on insert (writers set it on update). */
  updatedAt: () => column("moment", "updated_at", { notNull: true, defaultNow: true }),
};

/** One part of an index: a column (by its property name) or an SQL expression. */
type IndexPart = { column: string } | { sql: string };

export type IndexSpec = { kind: "index" | "uniqueIndex"; name: string; parts: IndexPart[]; where?: string; comment?: string };
export type PrimaryKeySpec = { kind: "primaryKey"; columns: string[] };
export type ExtraSpec = IndexSpec | PrimaryKeySpec;

/** An index on columns (property names) or SQL expressions (`sql("lower(${t.name})")`). */
class Index {
  constructor(readonly spec: IndexSpec) {}
  /** Only the rows where this holds (an SQL condition; `{true}`/`{false}` for a yes/no). */
  where(condition: string): Index {
    return new Index({ ...this.spec, where: condition });
  }
  comment(...lines: string[]): Index {
    return new Index({ ...this.spec, comment: lines.join("\n") });
  }
}

const parts = (on: (string | { sql: string })[]): IndexPart[] => on.map((p) => (typeof p === "string" ? { column: p } : p));
export const index = (name: string, ...on: (string | { sql: string })[]) => new Index({ kind: "index", name, parts: parts(on) });
export const uniqueIndex = (name: string, ...on: (string | { sql: string })[]) => new Index({ kind: "uniqueIndex", name, parts: parts(on) });
/** An SQL expression in an index: drizzle's `sql` template body, `${t.column}` naming columns. */
export const sql = (body: string) => ({ sql: body });
/** A primary key of several columns (property names). */
export const primaryKey = (...columns: string[]) => ({ spec: { kind: "primaryKey", columns } satisfies PrimaryKeySpec });

export type TableSpec = {
  /** The export's name (`migrationItems`). */
  exportName: string;
  /** The table's name in the database (`migration_items`). */
  name: string;
  doc?: string;
  /** A plain comment above the table (a section heading). */
  comment?: string;
  columns: Record<string, ColumnSpec>;
  extras: ExtraSpec[];
};

/** Lines of a doc or comment: one string, or one per line. */
type Lines = string | string[];
const joined = (lines: Lines | undefined) => (Array.isArray(lines) ? lines.join("\n") : lines);

export function table(exportName: string, name: string, description: { doc?: Lines; comment?: Lines; columns: Record<string, Column>; extras?: { spec: ExtraSpec }[] }): TableSpec {
  return {
    exportName,
    name,
    doc: joined(description.doc),
    comment: joined(description.comment),
    columns: Object.fromEntries(Object.entries(description.columns).map(([key, col]) => [key, col.spec])),
    extras: (description.extras ?? []).map((e) => e.spec),
  };
}

/** The whole schema: tables, what their files import, and code written the same on both (types, relations). */
export type SchemaDescription = {
  /** The header of each file, below which the printer adds what the file is and where it comes from. */
  about: string;
  /** Import lines both files need (the domain's word lists and JSON types), as written. */
  imports: string[];
  tables: TableSpec[];
  /** Code after the tables, the same on both databases (drizzle's relations). */
  shared: string;
};

// ---------------------------------------------------------------------------------------------
// The printer

const DRIZZLE_IMPORTS: Record<Dialect, { module: string; table: string; kinds: Record<ColumnKind, string> }> = {
  sqlite: { module: "drizzle-orm/sqlite-core", table: "sqliteTable", kinds: { text: "text", integer: "integer", bigInteger: "integer", moment: "integer", yesNo: "integer", json: "text", uuidId: "text", serialId: "integer" } },
  pg: { module: "drizzle-orm/pg-core", table: "pgTable", kinds: { text: "text", integer: "integer", bigInteger: "bigint", moment: "timestamp", yesNo: "boolean", json: "jsonb", uuidId: "text", serialId: "bigint" } },
};

/** A comment block, indented, in the style of the file (`/** … *\/` or `// …`). */
function docComment(text: string, indent: string): string {
  const lines = text.split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ""}`).join("\n")}\n${indent} */\n`;
}
const lineComment = (text: string, indent: string) => text.split("\n").map((l) => `${indent}//${l ? ` ${l}` : ""}\n`).join("");

/** A column's drizzle builder in a dialect. */
function columnCode(dialect: Dialect, col: ColumnSpec): string {
  const name = JSON.stringify(col.name);
  let code: string;
  switch (col.kind) {
    case "uuidId":
      return `id()`;
    case "serialId":
      return dialect === "sqlite" ? `integer(${name}).primaryKey({ autoIncrement: true })` : `bigint(${name}, { mode: "number" }).primaryKey().generatedByDefaultAsIdentity()`;
    case "text":
      code = col.enumValues ? `text(${name}, { enum: ${col.enumValues} })` : `text(${name})`;
      break;
    case "integer":
      code = `integer(${name})`;
      break;
    case "bigInteger":
      code = dialect === "sqlite" ? `integer(${name})` : `bigint(${name}, { mode: "number" })`;
      break;
    case "moment":
      if (col.name === "created_at" && col.notNull && col.defaultNow) return "createdAt()";
      code = dialect === "sqlite" ? `integer(${name}, { mode: "timestamp_ms" })` : `timestampMs(${name})`;
      break;
    case "yesNo":
      code = dialect === "sqlite" ? `integer(${name}, { mode: "boolean" })` : `boolean(${name})`;
      break;
    case "json":
      code = `${dialect === "sqlite" ? `text(${name}, { mode: "json" })` : `jsonb(${name})`}.$type<${col.jsonType}>()`;
      break;
  }
  if (col.primaryKey) code += ".primaryKey()";
  if (col.notNull && !col.primaryKey) code += ".notNull()";
  if (col.defaultValue !== undefined) code += `.default(${col.defaultValue})`;
  if (col.defaultEpoch) code += dialect === "sqlite" ? ".default(sql`0`)" : ".default(sql`to_timestamp(0)`)";
  if (col.defaultJson !== undefined) code += dialect === "sqlite" ? `.default(sql\`'${col.defaultJson}'\`)` : `.default(sql\`'${col.defaultJson}'::jsonb\`)`;
  if (col.defaultNow) code += ".$defaultFn(() => new Date())";
  if (col.generated !== undefined) code += dialect === "sqlite" ? `.generatedAlwaysAs(sql\`${col.generated}\`, { mode: "virtual" })` : `.generatedAlwaysAs(sql\`${col.generated}\`)`;
  if (col.references) {
    const { table: target, column: targetColumn, onDelete } = col.references;
    code += `.references(() => ${target}.${targetColumn}${onDelete ? `, { onDelete: ${JSON.stringify(onDelete)} }` : ""})`;
  }
  return code;
}

/** `{true}`/`{false}` in a description's SQL, as the dialect writes a yes/no. */
const sqlBody = (dialect: Dialect, body: string) => body.replaceAll("{true}", dialect === "sqlite" ? "1" : "true").replaceAll("{false}", dialect === "sqlite" ? "0" : "false");

function extraCode(dialect: Dialect, extra: ExtraSpec): string {
  if (extra.kind === "primaryKey") return `primaryKey({ columns: [${extra.columns.map((k) => `t.${k}`).join(", ")}] })`;
  const on = extra.parts.map((p) => ("column" in p ? `t.${p.column}` : `sql\`${sqlBody(dialect, p.sql)}\``)).join(", ");
  const where = extra.where ? `.where(sql\`${sqlBody(dialect, extra.where)}\`)` : "";
  return `${extra.kind}(${JSON.stringify(extra.name)}).on(${on})${where}`;
}

function tableCode(dialect: Dialect, spec: TableSpec): string {
  let out = "";
  if (spec.comment) out += lineComment(spec.comment, "");
  if (spec.doc) out += docComment(spec.doc, "");
  out += `export const ${spec.exportName} = ${DRIZZLE_IMPORTS[dialect].table}(\n  ${JSON.stringify(spec.name)},\n  {\n`;
  for (const [key, col] of Object.entries(spec.columns)) {
    if (col.comment) out += lineComment(col.comment, "    ");
    if (col.doc) out += docComment(col.doc, "    ");
    out += `    ${key}: ${columnCode(dialect, col)},\n`;
  }
  out += "  },\n";
  if (spec.extras.length) {
    out += "  (t) => [\n";
    for (const extra of spec.extras) {
      if (extra.kind !== "primaryKey" && extra.comment) out += lineComment(extra.comment, "    ");
      out += `    ${extraCode(dialect, extra)},\n`;
    }
    out += "  ],\n";
  }
  return `${out});\n`;
}

/** The drizzle builders a dialect's file uses, sorted as an import lists them. */
function builderImports(dialect: Dialect, schema: SchemaDescription): string[] {
  const used = new Set<string>([DRIZZLE_IMPORTS[dialect].table]);
  for (const t of schema.tables) {
    for (const col of Object.values(t.columns)) {
      if (col.kind === "moment" && dialect === "pg") used.add("timestamp");
      else if (col.kind !== "uuidId") used.add(DRIZZLE_IMPORTS[dialect].kinds[col.kind]);
      else used.add("text");
    }
    for (const e of t.extras) used.add(e.kind);
  }
  return [...used].sort((a, b) => a.localeCompare(b));
}

const HELPERS: Record<Dialect, string> = {
  sqlite: `const id = () =>
  text("id")
    .primaryKey()
    .$defaultFn(() => crypto.randomUUID());
const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" })
    .notNull()
    .$defaultFn(() => new Date());
`,
  pg: `const id = () =>
  text("id")
    .primaryKey()
    .$defaultFn(() => crypto.randomUUID());
/** SQLite keeps timestamps as epoch milliseconds; here they are \`timestamptz\` to the millisecond, so both read back as the same Date. */
const timestampMs = (name: string) => timestamp(name, { mode: "date", withTimezone: true, precision: 3 });
const createdAt = () =>
  timestampMs("created_at")
    .notNull()
    .$defaultFn(() => new Date());
`,
};

const DIALECT_NAME: Record<Dialect, string> = { sqlite: "SQLite", pg: "PostgreSQL" };

/** The text of one dialect's schema file. */
export function printSchema(dialect: Dialect, schema: SchemaDescription): string {
  const header = docComment(
    `${schema.about}\n\nThis file is for ${DIALECT_NAME[dialect]}, written by \`npm run db:schema\` from db/schema-description.ts:\nchange that, run it, and commit both files it writes (db/schema-drift.test.ts fails while\nthey are out of date).`,
    "",
  );
  return [
    "// Generated from db/schema-description.ts by `npm run db:schema`: do not edit.\n",
    header,
    `import { relations, sql } from "drizzle-orm";\n`,
    `import { ${builderImports(dialect, schema).join(", ")} } from "${DRIZZLE_IMPORTS[dialect].module}";\n`,
    schema.imports.map((l) => `${l}\n`).join(""),
    "\n",
    HELPERS[dialect],
    ...schema.tables.map((t) => `\n${tableCode(dialect, t)}`),
    `\n${schema.shared.trim()}\n`,
  ].join("");
}
