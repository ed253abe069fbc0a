/**
 * The two schema files are written from one description (db/schema-description.ts, by
 * `npm run db:schema`): this test fails when either is not what the description writes today, and,
 * as a check on the printer (db/schema-kit.ts), when db/schema.pg.ts and db/schema.sqlite.ts differ
 * in their tables, columns (name, type family, not null, defaults,
 * primary key, identity), indexes (name, columns or expressions, unique, partial condition), unique
 * constraints, foreign keys, checks, relations, or the JavaScript types of their rows.
 */
import { createTableRelationsHelpers, extractTablesRelationalConfig, is, isTable, One, SQL, type Column, type InferInsertModel, type InferSelectModel, type Table } from "drizzle-orm";
import { getTableConfig as pgTableConfig, PgDialect, type PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTableConfig, SQLiteSyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import { databaseDialect } from "./dialect";
import * as pgSchema from "./schema.pg";
import * as sqliteSchema from "./schema.sqlite";
import * as chosenSchema from "./schema";
import { schemaDescription } from "./schema-description";
import { printSchema } from "./schema-kit";

/**
 * Column types of each dialect by the family they stand for. A column type missing here fails the
 * test: say which SQLite type it mirrors before using it.
 */
const FAMILY: Record<string, string> = {
  SQLiteText: "text",
  PgText: "text",
  SQLiteTextJson: "json",
  PgJsonb: "json",
  SQLiteInteger: "integer",
  PgInteger: "integer",
  PgBigInt53: "integer",
  SQLiteTimestamp: "timestamp",
  PgTimestamp: "timestamp",
  SQLiteBoolean: "boolean",
  PgBoolean: "boolean",
};

type Dialect = "sqlite" | "pg";

/**
 * SQL as each dialect writes it, made comparable: SQLite stores booleans as 0/1, so a condition on
 * a boolean column (`"t"."c" = 1`) reads `= true`/`= false` as PostgreSQL's does.
 */
function render(dialect: Dialect, sql: SQL, booleanColumns: string[]): string {
  let text = dialect === "sqlite" ? new SQLiteSyncDialect().sqlToQuery(sql).sql : new PgDialect().sqlToQuery(sql).sql;
  if (dialect === "sqlite") {
    for (const column of booleanColumns) {
      text = text.replace(new RegExp(`("${column}") = ([01])\\b`, "g"), (_, c: string, v: string) => `${c} = ${v === "1" ? "true" : "false"}`);
    }
  }
  return text;
}

/** What the database must agree on for a column; a default's value only when neither side is SQL. */
function describeColumn(column: Column) {
  const dbDefault = column.default;
  const identity = "autoIncrement" in column ? Boolean(column.autoIncrement) : Boolean((column as { generatedIdentity?: unknown }).generatedIdentity);
  return {
    family: FAMILY[column.columnType] ?? `unmapped column type ${column.columnType}`,
    dataType: column.dataType,
    enumValues: column.enumValues ?? null,
    notNull: column.notNull,
    primaryKey: column.primary,
    unique: column.isUnique,
    identity,
    dbDefault: dbDefault === undefined ? "none" : is(dbDefault, SQL) ? "sql" : JSON.stringify(dbDefault),
    jsDefault: typeof column.defaultFn === "function",
  };
}

/** A table as both dialects must describe it. */
function describeTable(dialect: Dialect, table: Table) {
  const config = dialect === "sqlite" ? sqliteTableConfig(table as SQLiteTable) : pgTableConfig(table as PgTable);
  const booleanColumns = config.columns.filter((c) => c.dataType === "boolean").map((c) => c.name);
  const part = (p: unknown) => (is(p, SQL) ? `sql:${render(dialect, p, booleanColumns)}` : (p as { name: string }).name);
  const byName = <T extends { name: string }>(rows: T[]) => [...rows].sort((a, b) => a.name.localeCompare(b.name));
  return {
    name: config.name,
    columns: Object.fromEntries(config.columns.map((c) => [c.name, describeColumn(c)])),
    primaryKeys: byName(config.primaryKeys.map((pk) => ({ name: pk.getName(), columns: pk.columns.map((c) => c.name) }))),
    indexes: byName(
      config.indexes.map((index) => ({
        name: index.config.name ?? "(unnamed)",
        columns: (index.config.columns as unknown[]).map(part),
        unique: Boolean(index.config.unique),
        where: index.config.where ? render(dialect, index.config.where, booleanColumns) : null,
      })),
    ),
    uniqueConstraints: byName(config.uniqueConstraints.map((u) => ({ name: u.getName() ?? "", columns: u.columns.map((c) => c.name) }))),
    foreignKeys: byName(
      config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        return {
          name: fk.getName(),
          columns: ref.columns.map((c) => c.name),
          target: dialect === "sqlite" ? sqliteTableConfig(ref.foreignTable as SQLiteTable).name : pgTableConfig(ref.foreignTable as PgTable).name,
          targetColumns: ref.foreignColumns.map((c) => c.name),
          onDelete: fk.onDelete ?? "no action",
          onUpdate: fk.onUpdate ?? "no action",
        };
      }),
    ),
    checks: byName(config.checks.map((c) => ({ name: c.name, sql: render(dialect, c.value, booleanColumns) }))),
  };
}

/** Every table of a schema module, by its database name. */
function describeSchema(dialect: Dialect, schema: Record<string, unknown>) {
  const tables = Object.values(schema).filter((v): v is Table => isTable(v));
  return Object.fromEntries(tables.map((t) => describeTable(dialect, t)).map((t) => [t.name, t]));
}

/** The relations drizzle's relational queries see, in plain terms. */
function describeRelations(schema: Record<string, unknown>) {
  const { tables } = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
  return Object.fromEntries(
    Object.values(tables).map((t) => [
      t.tsName,
      Object.fromEntries(
        Object.entries(t.relations).map(([name, r]) => [
          name,
          {
            kind: is(r, One) ? "one" : "many",
            table: r.referencedTableName,
            fields: is(r, One) ? (r.config?.fields.map((c) => c.name) ?? []) : [],
            references: is(r, One) ? (r.config?.references.map((c) => c.name) ?? []) : [],
            relationName: r.relationName,
          },
        ]),
      ),
    ]),
  );
}

describe("the schema files", () => {
  for (const [dialect, file] of [["sqlite", "schema.sqlite.ts"], ["pg", "schema.pg.ts"]] as const) {
    it(`db/${file} is what db/schema-description.ts writes (npm run db:schema)`, () => {
      const onDisk = readFileSync(path.join(import.meta.dirname, file), "utf8");
      expect(onDisk === printSchema(dialect, schemaDescription), `db/${file} is out of date: run npm run db:schema`).toBe(true);
    });
  }
});

describe("the PostgreSQL and SQLite schemas", () => {
  const sqlite = describeSchema("sqlite", sqliteSchema);
  const pg = describeSchema("pg", pgSchema);

  it("have the same tables and exports", () => {
    expect(Object.keys(pg).sort()).toEqual(Object.keys(sqlite).sort());
    expect(Object.keys(pgSchema).sort()).toEqual(Object.keys(sqliteSchema).sort());
    // db/schema.ts passes every table and relation on, whichever dialect it picked.
    expect(Object.keys(chosenSchema).sort()).toEqual(Object.keys(sqliteSchema).sort());
  });

  it("map every column type to a family", () => {
    const unmapped = Object.values({ ...sqlite, ...pg }).flatMap((t) => Object.entries(t.columns).filter(([, c]) => c.family.startsWith("unmapped")).map(([name, c]) => `${t.name}.${name}: ${c.family}`));
    expect(unmapped).toEqual([]);
  });

  for (const name of Object.keys(sqlite).sort()) {
    it(`agree on ${name}`, () => {
      expect(pg[name], `${name} is missing from db/schema.pg.ts`).toBeDefined();
      expect(pg[name]).toEqual(sqlite[name]);
    });
  }

  it("agree on the relations", () => {
    expect(describeRelations(pgSchema)).toEqual(describeRelations(sqliteSchema));
  });

  it("keep PostgreSQL timestamps to the millisecond with their time zone, as SQLite's epoch milliseconds are", () => {
    const loose = (Object.values(pgSchema) as unknown[])
      .filter((v): v is PgTable => isTable(v))
      .map((t) => pgTableConfig(t))
      .flatMap((t) => t.columns.filter((c) => c.columnType === "PgTimestamp").map((c) => ({ column: `${t.name}.${c.name}`, sql: c.getSQLType() })))
      .filter((c) => c.sql !== "timestamp (3) with time zone");
    expect(loose).toEqual([]);
  });

  it("give rows the same JavaScript types", () => {
    type TableKeys = { [K in keyof typeof sqliteSchema]: (typeof sqliteSchema)[K] extends Table ? K : never }[keyof typeof sqliteSchema];
    type Rows<S extends Record<TableKeys, Table>> = { [K in TableKeys]: InferSelectModel<S[K]> };
    type Inserts<S extends Record<TableKeys, Table>> = { [K in TableKeys]: InferInsertModel<S[K]> };
    expectTypeOf<Rows<typeof pgSchema>>().toEqualTypeOf<Rows<typeof sqliteSchema>>();
    expectTypeOf<Inserts<typeof pgSchema>>().toEqualTypeOf<Inserts<typeof sqliteSchema>>();
  });
});

describe("db/schema.ts", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("gives SQLite's tables without DATABASE_URL", async () => {
    vi.stubEnv("DATABASE_URL", "");
    vi.resetModules();
    const [schema, sqliteTables] = await Promise.all([import("./schema"), import("./schema.sqlite")]);
    expect(schema.users).toBe(sqliteTables.users);
    expect(schema.engagementsRelations).toBe(sqliteTables.engagementsRelations);
  });

  it("gives PostgreSQL's tables with DATABASE_URL=postgres://… or postgresql://…", async () => {
    for (const url of ["postgres://ferry@db.internal:5432/ferry", "postgresql://ferry:pw@10.0.0.5/ferry"]) {
      vi.stubEnv("DATABASE_URL", url);
      vi.resetModules();
      const [schema, pgTables] = await Promise.all([import("./schema"), import("./schema.pg")]);
      expect(schema.users).toBe(pgTables.users);
      expect(schema.migrationItems).toBe(pgTables.migrationItems);
      expect(schema.engagementsRelations).toBe(pgTables.engagementsRelations);
    }
  });
});

describe("databaseDialect", () => {
  it("is SQLite without DATABASE_URL (or with an empty one) and PostgreSQL with a postgres URL", () => {
    expect(databaseDialect({})).toBe("sqlite");
    expect(databaseDialect({ DATABASE_URL: " " })).toBe("sqlite");
    expect(databaseDialect({ DATABASE_URL: "postgres://ferry@127.0.0.1:5432/ferry" })).toBe("postgresql");
    expect(databaseDialect({ DATABASE_URL: "PostgreSQL://ferry@db/ferry?sslmode=require" })).toBe("postgresql");
  });

  it("refuses a DATABASE_URL of another kind by name, rather than quietly using SQLite", () => {
    for (const url of ["mysql://root@localhost/ferry", "data/ferry.db", "sqlite:///data/ferry.db"]) {
      expect(() => databaseDialect({ DATABASE_URL: url })).toThrow(/DATABASE_URL must be a PostgreSQL URL/);
    }
  });
});
