// Finds a Chromium for Playwright: Playwright's own if installed, else the system's; on
// Debian/Ubuntu as root it installs the `chromium` package. Never downloads a browser itself.
// CommonJS so both the ESM scripts and Playwright's TypeScript config loader can load it.
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const SYSTEM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"];

/** Path of a usable browser without installing anything, or null. */
function detectBrowser() {
  if (process.env.FERRY_BROWSER && fs.existsSync(process.env.FERRY_BROWSER)) return process.env.FERRY_BROWSER;
  try {
    const { chromium } = require("playwright-core");
    const own = chromium.executablePath();
    if (own && fs.existsSync(own)) return own;
  } catch {
    /* playwright-core not resolvable: fall through to the system browser */
  }
  return SYSTEM_CANDIDATES.find((p) => fs.existsSync(p)) ?? null;
}

function isDebianLike() {
  try {
    const osr = fs.readFileSync("/etc/os-release", "utf8");
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(osr);
  } catch {
    return false;
  }
}

/** A browser path, installing Debian's chromium when possible; throws with what to install otherwise. */
function ensureBrowser({ log = console.log } = {}) {
  const found = detectBrowser();
  if (found) return found;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (isDebianLike() && root) {
    log("No Chromium found: installing Debian's chromium package (apt-get install -y chromium)…");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    const install = update.status === 0 ? spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env }) : update;
    if (install.status === 0 && detectBrowser()) return detectBrowser();
    throw new Error("Installing the chromium package with apt-get failed; install it (apt-get install -y chromium) and run the tests again.");
  }
  throw new Error(
    isDebianLike()
      ? "No Chromium found. Install it with `sudo apt-get install -y chromium` (or set FERRY_BROWSER to a Chromium/Chrome binary) and run the tests again."
      : "No Chromium found. Install Chromium or Google Chrome (or set FERRY_BROWSER to its binary) and run the tests again.",
  );
}

module.exports = { detectBrowser, ensureBrowser };
