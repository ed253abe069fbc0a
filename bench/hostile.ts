/**
 * Hostile token files against the real web app: each file of server/testing/hostile-files.ts
 * (lying and honest ZIP bombs on the sheet and on the shared strings, a huge cell, millions of
 * shared strings, XML made to make the reader gather or build too much, 150,000 rows, a huge CSV
 * cell, a 25 MB file) is posted to the check route of Ferry's own web server
 * (scripts/web-server.mjs, the production build — what `npm start` and the e2e server run),
 * signed in as a customer of the engagement, as a browser would. Each file gets a freshly started
 * server, warmed up by checking a small honest CSV and workbook (so routes, exceljs and the
 * database are loaded as in a running server); its peak RSS is the web process's VmHWM
 * (/proc/<pid>/status) after the hostile request.
 *
 * Baseline, in the same run: the peak after the warm-up alone (a small honest file), and for
 * reference an honest 100,000-row workbook (12 MB) and the largest valid workbook within the caps
 * (14,000 companies with 4,096-character tokens, 120 MB unzipped), which are accepted.
 * Target: every hostile file refused, worst peak under 400 MB.
 * Needs `next build` first. Run (heavy): flock /tmp/ferry-heavy.lock npm run bench -- hostile
 * Last line: {"bench":"hostile","files":…,"refused":…,"worst_peak_rss_mb":…}
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { createEngagement } from "@/server/engagements/create-engagement";
import { HOSTILE_FILES, LARGEST_ACCEPTED_ROWS, largestAcceptedWorkbook, type HostileFile } from "@/server/testing/hostile-files";
import { csvBytes, headerFor, rowFor, xlsxBytes } from "@/server/testing/token-files";
import { getManagedPlatform } from "@/server/platforms";
import { TEST_PASSWORD, TEST_NOTIFY } from "@/server/testing/test-db";
import { benchDir, createBenchBed, machineLoad, ROOT } from "./_bulk";
import { writeXlsx } from "./_intake-files";

const qbo = getManagedPlatform("qhyg")!;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The kilobytes of a /proc status field (VmHWM: peak RSS, VmRSS: now). */
function statusKb(pid: number, field: "VmHWM" | "VmRSS"): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no ${field} for process ${pid}`);
  return Number(m[1]);
}

/** Processes started by `pid` (Next could fork workers; their memory would count too). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

type Server = { url: string; child: ChildProcess; cookie: string; stop(): Promise<void> };

type Setup = { dbFile: string; keySpec: string; engagementId: string; email: string };

async function startServer(setup: Setup): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["scripts/web-server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      NEXTAUTH_URL: url,
      NEXTAUTH_SECRET: "hostile-bench-secret-0123456789",
      FERRY_ENCRYPTION_KEY: setup.keySpec,
      DATABASE_FILE: setup.dbFile,
    },
  });
  const log: string[] = [];
  child.stdout!.on("data", (c: Buffer) => log.push(c.toString()));
  child.stderr!.on("data", (c: Buffer) => log.push(c.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the web server exited (${child.exitCode}): ${log.join("")}`);
    try {
      if ((await fetch(`${url}/api/auth/csrf`, { signal: AbortSignal.timeout(2000) })).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() - started > 60_000) throw new Error(`the web server did not answer within 60 s: ${log.join("")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  // Signed in as the customer through next-auth's credentials endpoint, as the e2e fixtures do.
  const csrf = await fetch(`${url}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const signIn = await fetch(`${url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie, origin: url },
    body: new URLSearchParams({ csrfToken, email: setup.email, password: TEST_PASSWORD, json: "true" }),
  });
  const session = signIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    .find((c) => c.startsWith("next-auth.session-token="));
  if (!session) {
    await stop();
    throw new Error(`sign-in failed (${signIn.status}): ${await signIn.text()}`);
  }
  return { url, child, cookie: session, stop };
}

type Answer = { status: number; seconds: number; bytes: number; refused: boolean; kind: string; message: string };

/** Posts a file to the check route and reads the answer in words. */
async function check(server: Server, engagementId: string, file: { name: string; bytes: Buffer }): Promise<Answer> {
  const form = new FormData();
  form.set("file", new File([new Uint8Array(file.bytes)], file.name));
  const t0 = performance.now();
  let response: Response;
  try {
    response = await fetch(`${server.url}/api/engagements/${engagementId}/token-file/check`, {
      method: "POST",
      headers: { cookie: server.cookie, origin: server.url },
      body: form,
    });
  } catch (error) {
    return { status: 0, seconds: (performance.now() - t0) / 1000, bytes: 0, refused: false, kind: "no answer", message: String(error) };
  }
  const text = await response.text();
  const seconds = (performance.now() - t0) / 1000;
  const body = JSON.parse(text) as { check?: { ok: boolean; problems: { kind: string; message: string }[] }; error?: { code: string; message: string } };
  if (body.check) {
    const first = body.check.problems.find((p) => p.kind !== "extension_mismatch") ?? body.check.problems[0];
    return { status: response.status, seconds, bytes: text.length, refused: !body.check.ok, kind: first?.kind ?? "accepted", message: first?.message ?? "" };
  }
  return { status: response.status, seconds, bytes: text.length, refused: response.status >= 400 && response.status < 500, kind: body.error?.code ?? "?", message: body.error?.message ?? "" };
}

type Measured = Answer & { peakMb: number; warmMb: number; children: number };

/** A fresh server, warmed up with small honest files, then `file` checked; the web process's peak RSS. */
async function measure(setup: Setup, warmUp: { name: string; bytes: Buffer }[], file: { name: string; bytes: Buffer }): Promise<Measured> {
  const server = await startServer(setup);
  try {
    for (const w of warmUp) {
      const answer = await check(server, setup.engagementId, w);
      if (answer.status !== 200 || answer.refused) throw new Error(`the warm-up file ${w.name} was not accepted: ${JSON.stringify(answer)}`);
    }
    const pid = server.child.pid!;
    const warmMb = statusKb(pid, "VmHWM") / 1024;
    const answer = await check(server, setup.engagementId, file);
    const children = childrenOf(pid);
    const peakMb = (statusKb(pid, "VmHWM") + children.reduce((sum, c) => sum + statusKb(c, "VmHWM"), 0)) / 1024;
    return { ...answer, peakMb, warmMb, children: children.length };
  } finally {
    await server.stop();
  }
}

function row(label: string, m: Measured): string {
  const answer = m.status === 0 ? m.message : `${m.status} ${m.kind}: ${m.message.slice(0, 90)}${m.message.length > 90 ? "…" : ""}`;
  return `${label.padEnd(36)} ${m.seconds.toFixed(2).padStart(7)} ${m.peakMb.toFixed(0).padStart(8)} ${(m.bytes / 1024).toFixed(1).padStart(9)}  ${answer}`;
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    console.error("bench/hostile.ts needs the production build: run `npx next build` first (under the heavy lock).");
    process.exit(1);
  }
  const tmp = benchDir("hostile");
  const load = machineLoad();
  try {
    const bed = await createBenchBed(tmp.dir, "ferry");
    const engagementId = (await createEngagement(bed.database, TEST_NOTIFY, bed.people.support, { organizationId: bed.people.orgA, platformKey: "qhyg" })).id;
    bed.close();
    const setup: Setup = { dbFile: bed.file, keySpec: bed.keySpec, engagementId, email: "a@org-a.test" };
    const small = [headerFor(qbo), rowFor(qbo, 1), rowFor(qbo, 2)];
    const warmUp = [
      { name: "small.csv", bytes: csvBytes(small) },
      { name: "small.xlsx", bytes: await xlsxBytes(small) },
    ];

    console.log(`Each file: a fresh web server (production build), warmed up with a small honest CSV and workbook, then the file posted to the check route. ${load}.\n`);
    console.log(`${"file".padEnd(36)} ${"time s".padStart(7)} ${"peak MB".padStart(8)} ${"answer KB".padStart(9)}  answer`);

    // Baseline: the warm-up alone (a small honest file checked again).
    const baseline = await measure(setup, warmUp, warmUp[1]!);
    console.log(row("baseline: small honest", baseline));
    const honestFile = path.join(tmp.dir, "qbo-100k.xlsx");
    await writeXlsx(honestFile, 100_000);
    const honest = await measure(setup, warmUp, { name: "qbo-100k.xlsx", bytes: fs.readFileSync(honestFile) });
    console.log(row("honest 100,000 rows (12 MB)", honest));
    const largest = await measure(setup, warmUp, { name: "largest.xlsx", bytes: await largestAcceptedWorkbook() });
    console.log(row(`largest valid (${LARGEST_ACCEPTED_ROWS.toLocaleString("en")} × 8 KB)`, largest));
    for (const m of [baseline, honest, largest]) {
      if (m.refused || m.status !== 200) throw new Error(`an honest file was refused: ${JSON.stringify(m)}`);
    }
    console.log("");

    let refused = 0;
    let worst = 0;
    let expected = 0;
    const figures: Record<string, number> = {};
    for (const file of HOSTILE_FILES as readonly HostileFile[]) {
      const bytes = await file.build();
      const m = await measure(setup, warmUp, { name: file.fileName, bytes });
      if (m.refused) refused += 1;
      const asExpected = file.expect.kind === null ? m.status === 400 && file.expect.message.test(m.message) : m.kind === file.expect.kind && file.expect.message.test(m.message);
      if (asExpected) expected += 1;
      worst = Math.max(worst, m.peakMb);
      figures[`${file.name}_peak_rss_mb`] = Math.round(m.peakMb);
      console.log(row(`${file.name} (${(bytes.length / 1048576).toFixed(1)} MB)`, m) + (asExpected ? "" : "   <- not the expected answer"));
      if (m.children) console.log(`  (the web process had ${m.children} child process(es); their peaks are included)`);
    }
    console.log(`\n${HOSTILE_FILES.length} hostile files: ${refused} refused (${expected} with the expected problem). Worst peak RSS ${worst.toFixed(0)} MB (target 400 MB); baseline ${baseline.peakMb.toFixed(0)} MB after the warm-up, an honest 100,000-row workbook ${honest.peakMb.toFixed(0)} MB, the largest valid workbook ${largest.peakMb.toFixed(0)} MB. ${machineLoad()}.`);
    for (const file of HOSTILE_FILES) console.log(`  ${file.name}: ${file.description}`);
    console.log(
      JSON.stringify({
        bench: "hostile",
        ...figures,
        baseline_peak_rss_mb: Math.round(baseline.peakMb),
        honest_100k_peak_rss_mb: Math.round(honest.peakMb),
        largest_valid_peak_rss_mb: Math.round(largest.peakMb),
        files: HOSTILE_FILES.length,
        refused,
        worst_peak_rss_mb: Math.round(worst),
      }),
    );
  } finally {
    tmp.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
