// ESLint: Next.js (core web vitals, React, React Hooks, jsx-a11y), TypeScript and drizzle rule sets.
// `npm test` runs it with zero warnings allowed.
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import drizzle from "eslint-plugin-drizzle";
import ferry from "./eslint-rules/delegate-steps.mjs";

/** Where transaction steps are written and called: linted with types for ferry/delegate-steps. */
export const STEP_FILES = ["server/**/*.ts", "db/**/*.ts", "scripts/**/*.ts", "bench/**/*.ts"];

/**
 * Slow or random work a transaction body must not do (db/database.ts, rule 2 and 3): PostgreSQL may
 * run a body again after a serialization failure, so encryption, password hashing and fresh ids or
 * tokens are made before the transaction and handed in.
 */
const SLOW_OR_RANDOM = "/^(encryptSecret|seal[A-Z]\\w*|hashPassword|verifyPassword|randomUUID|randomBytes|randomInt|getRandomValues|scrypt|scryptSync|pbkdf2|pbkdf2Sync|createCipheriv|newToken|newId)$/";
const SLOW_OR_RANDOM_MESSAGE =
  "Nothing slow or random in a transaction body (PostgreSQL may run it again): encrypt, hash and make ids or tokens before the transaction, and hand them in.";

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    plugins: { drizzle },
    rules: {
      // Only calls on a drizzle database or transaction (not Map.delete, Set.delete…).
      "drizzle/enforce-delete-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "drizzle/enforce-update-with-where": ["error", { drizzleObjectName: ["db", "tx"] }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // Beyond a few positional parameters a call cannot be read without the signature: take one object.
      "max-params": ["error", 5],
    },
  },
  {
    // The ground floor: unions, state words and browser-safe schemas that db/, server/ and app/ all
    // stand on. It imports zod and itself (relatively, so drizzle-kit can load it), nothing else.
    files: ["core/**/*.ts"],
    ignores: ["core/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(?!zod$|\\.\\.?/).*", message: "core/ is the ground floor: it imports only zod and other core/ files (relative paths)." }] },
      ],
    },
  },
  {
    // Request/response schemas are imported by client forms too: they stay free of server-only code.
    files: ["server/api/routers/*.types.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@/db/*", "drizzle-orm", "drizzle-orm/*", "better-sqlite3", "nodemailer", "next-auth", "next-auth/*"], message: "Schemas are shared with the browser: no database, mail or auth code." },
            { group: ["**/trpc", "@/server/api/trpc", "**/*-repository", "@/server/mail/mailer", "@/server/mail/outbox"], message: "Schemas are shared with the browser: no server-only modules." },
          ],
        },
      ],
    },
  },
  {
    // Browser code and pages stand on core/ and the API's types, never on a domain module.
    files: ["app/**/*.ts", "app/**/*.tsx"],
    ignores: ["app/api/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^@/server/(?!api/|http/).*",
              message: "app/ imports core/ (words, unions, schemas) and server/api (the API and its types), not domain modules.",
            },
            { group: ["@/db/*"], message: "app/ reads data through the API, never the database." },
          ],
        },
      ],
    },
  },
  {
    // The database layer stands only on the ground floor.
    files: ["db/**/*.ts"],
    ignores: ["db/**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: "^(@/|\\.\\./)server/", message: "db/ stands on core/ only; nothing in db/ imports server/." }] }],
    },
  },
  {
    // Playwright fixtures take a `use` callback that is not React's hook.
    files: ["e2e/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  {
    // What would fail only on PostgreSQL fails here too, on SQLite's run: better-sqlite3's
    // synchronous calls and its handle belong to db/ (and the test support); a transaction body
    // builds its queries on its own tx, never on the database handle (on PostgreSQL that query
    // would run outside the transaction). The sandbox keeps its own SQLite store; app/ may not
    // import the database at all (below).
    files: ["server/**/*.ts", "scripts/**/*.ts"],
    ignores: ["**/*.test.ts", "server/sandbox/**", "server/testing/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[arguments.length=0] > MemberExpression.callee[property.name=/^(all|get|run)$/]",
          message: "better-sqlite3's synchronous .all()/.get()/.run() run on SQLite alone: await the query, or yield* q.all/q.get/q.run in a transaction body (db/database.ts).",
        },
        { selector: "MemberExpression[property.name='$client']", message: "The SQLite client ($client) belongs to db/: PostgreSQL has none." },
        {
          selector: ":function[generator=true] Identifier[name='database']:not(Property > Identifier.key):not(MemberExpression > Identifier.property)",
          message: "A transaction body builds its queries on its own tx, never on the database handle: read what it needs from `database` before the body.",
        },
        {
          selector: `:function[generator=true] CallExpression[callee.name=${SLOW_OR_RANDOM}], :function[generator=true] CallExpression > MemberExpression.callee[property.name=${SLOW_OR_RANDOM}]`,
          message: SLOW_OR_RANDOM_MESSAGE,
        },
        { selector: ":function[generator=true] CallExpression > MemberExpression.callee[object.name='Math'][property.name='random']", message: SLOW_OR_RANDOM_MESSAGE },
      ],
    },
  },
  {
    // Functions a reader can hold: a process is cut into named steps, not held in one closure.
    files: ["server/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { "max-lines-per-function": ["error", { max: 120 }] },
  },
  {
    // A transaction step called without `yield*` compiles and does nothing: a typed rule catches it.
    files: STEP_FILES,
    plugins: { ferry },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { "ferry/delegate-steps": "error" },
  },
  {
    files: ["**/*.cjs", "next.config.js"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  globalIgnores([".next/**", "node_modules/**", "data/**", ".tmp/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "eslint-rules/fixtures/**"]),
]);
