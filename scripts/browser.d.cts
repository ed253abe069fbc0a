/** Types of scripts/browser.cjs. */
declare const browserFinder: {
  /** Path of a usable browser without installing anything, or null. */
  detectBrowser(): string | null;
  /** A browser path, installing Debian's chromium when possible; throws with what to install otherwise. */
  ensureBrowser(options?: { log?: (line: string) => void }): string;
};
export = browserFinder;
