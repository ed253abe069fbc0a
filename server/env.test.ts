import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";

const good = { NEXTAUTH_SECRET: "0123456789abcdef", FERRY_ENCRYPTION_KEY: `k1:${Buffer.alloc(32, 1).toString("base64")}` };

describe("environment", () => {
  it("accepts a minimal environment and fills defaults", () => {
    expect(parseEnv(good)).toMatchObject({ DATABASE_FILE: "data/ferry.db", SANDBOX_URL: "http://127.0.0.1:4010", FERRY_ENCRYPTION_OLD_KEYS: [] });
  });

  it("names every bad variable", () => {
    expect(() => parseEnv({ ...good, NEXTAUTH_SECRET: "short", SMTP_URL: "not a url" })).toThrow(/NEXTAUTH_SECRET: must be at least 16[\s\S]*SMTP_URL/);
    expect(() => parseEnv({ NEXTAUTH_SECRET: good.NEXTAUTH_SECRET })).toThrow(/FERRY_ENCRYPTION_KEY/);
    expect(() => parseEnv({ ...good, FERRY_ENCRYPTION_KEY: "nope" })).toThrow(/FERRY_ENCRYPTION_KEY: must be '<key id>:<32 bytes in base64>'/);
  });

  it("takes a PostgreSQL DATABASE_URL, refuses any other kind by name, and reads a blank one as unset (SQLite)", () => {
    expect(parseEnv({ ...good, DATABASE_URL: "postgres://ferry:pw@db.internal:5432/ferry" }).DATABASE_URL).toBe("postgres://ferry:pw@db.internal:5432/ferry");
    expect(parseEnv({ ...good, DATABASE_URL: "postgresql://ferry@db.internal/ferry?sslmode=require" }).DATABASE_URL).toBe("postgresql://ferry@db.internal/ferry?sslmode=require");
    expect(() => parseEnv({ ...good, DATABASE_URL: "mysql://ferry@db.internal/ferry" })).toThrow(/DATABASE_URL: must be a PostgreSQL URL/);
    expect(parseEnv({ ...good, DATABASE_URL: " " })).toMatchObject({ DATABASE_URL: undefined, DATABASE_FILE: "data/ferry.db" });
  });

  it("reads TRUST_PROXY as a number of proxies, none by default", () => {
    expect(parseEnv(good).TRUST_PROXY).toBe(0);
    expect(parseEnv({ ...good, TRUST_PROXY: "true" }).TRUST_PROXY).toBe(1);
    expect(parseEnv({ ...good, TRUST_PROXY: "2" }).TRUST_PROXY).toBe(2);
    expect(parseEnv({ ...good, TRUST_PROXY: "false" }).TRUST_PROXY).toBe(0);
    expect(() => parseEnv({ ...good, TRUST_PROXY: "yes please" })).toThrow(/TRUST_PROXY: must be false, true, or the number of proxies/);
    expect(() => parseEnv({ ...good, TRUST_PROXY: "11" })).toThrow(/TRUST_PROXY/);
  });

  it("reads FERRY_PURGE_AFTER_DAYS as whole days, 14 by default", () => {
    expect(parseEnv(good).FERRY_PURGE_AFTER_DAYS).toBe(14);
    expect(parseEnv({ ...good, FERRY_PURGE_AFTER_DAYS: "0" }).FERRY_PURGE_AFTER_DAYS).toBe(0);
    expect(parseEnv({ ...good, FERRY_PURGE_AFTER_DAYS: " 30 " }).FERRY_PURGE_AFTER_DAYS).toBe(30);
    for (const bad of ["two weeks", "1.5", "-1", "3651"]) {
      expect(() => parseEnv({ ...good, FERRY_PURGE_AFTER_DAYS: bad })).toThrow(/FERRY_PURGE_AFTER_DAYS: must be a whole number of days from 0 to 3650/);
    }
  });

  it("reads the worker's lease and idle look as milliseconds within bounds, the code's defaults when unset", () => {
    expect(parseEnv(good).FERRY_WORKER_LEASE_MS).toBeUndefined();
    expect(parseEnv(good).FERRY_WORKER_IDLE_MS).toBeUndefined();
    expect(parseEnv({ ...good, FERRY_WORKER_LEASE_MS: "1500", FERRY_WORKER_IDLE_MS: " 300 " })).toMatchObject({ FERRY_WORKER_LEASE_MS: 1_500, FERRY_WORKER_IDLE_MS: 300 });
    for (const bad of ["999", "abc", "1.5", "700000"]) {
      expect(() => parseEnv({ ...good, FERRY_WORKER_LEASE_MS: bad })).toThrow(/FERRY_WORKER_LEASE_MS: must be a whole number of milliseconds from 1,000 to 600,000/);
    }
    expect(() => parseEnv({ ...good, FERRY_WORKER_IDLE_MS: "50" })).toThrow(/FERRY_WORKER_IDLE_MS: must be a whole number of milliseconds from 100 to 60,000/);
  });

  it("reads FERRY_MACHINE_ID as the machine's name for the shared rate budget (the host name when unset)", () => {
    expect(parseEnv(good).FERRY_MACHINE_ID).toBeUndefined();
    expect(parseEnv({ ...good, FERRY_MACHINE_ID: " worker-b " }).FERRY_MACHINE_ID).toBe("worker-b");
    expect(() => parseEnv({ ...good, FERRY_MACHINE_ID: "   " })).toThrow(/FERRY_MACHINE_ID/);
    expect(() => parseEnv({ ...good, FERRY_MACHINE_ID: "x".repeat(201) })).toThrow(/FERRY_MACHINE_ID/);
  });
});
