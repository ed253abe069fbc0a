/**
 * Accessibility checks with axe-core: a page passes when axe finds no violation of serious or
 * critical impact (WCAG 2.1 A and AA rules and axe's best practices).
 *
 * axe-core runs in the page itself, injected once per document (a section of the engagement page
 * changes the URL in place, so one document holds many views). @axe-core/playwright injects it
 * twice per check and finishes each run in a new blank page, which cost 2–7 s a check on the
 * engagement pages; Ferry's pages have no frames, which is all that extra work is for.
 */
import fs from "node:fs";
import type { AxeResults, RunOptions } from "axe-core";
import { expect, type Page } from "@playwright/test";

// Playwright loads the specs as CommonJS: require.resolve finds the package's file.
const AXE_SOURCE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
/** The rules Ferry's pages are held to: WCAG 2.1 A and AA, and axe's best practices. */
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

/**
 * Runs axe on the page as it is now: on `include` (a CSS selector) alone when given, with the
 * rules of `tags` (default Ferry's; null: every rule axe runs by default). Its results.
 */
export async function runAxe(page: Page, options: { include?: string; tags?: string[] | null } = {}): Promise<AxeResults> {
  const tags = options.tags === undefined ? TAGS : options.tags;
  const run: RunOptions = { resultTypes: ["violations"], ...(tags ? { runOnly: { type: "tag", values: tags } } : {}) };
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    ([runOptions, selector]) =>
      (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<AxeResults> } }).axe.run(selector ? { include: [selector] } : document, runOptions),
    [run, options.include ?? null] as const,
  );
}

/** Runs axe on the page as it is now and fails with every serious or critical violation, named and located. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  // Colours are measured as they end, not halfway through a transition (a button fading in after
  // a load once measured as failing contrast).
  // Inline styles (allowed by the CSP's style-src-attr), since a <style> tag would need the nonce.
  await page.evaluate(() => {
    for (const el of document.querySelectorAll<HTMLElement>("*")) {
      el.style.setProperty("transition", "none", "important");
      el.style.setProperty("animation", "none", "important");
    }
  });
  const results = await runAxe(page);
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(" | ")}`);
  expect(serious, `axe on ${what}`).toEqual([]);
}

/** The markup axe has been over in this worker, by fingerprint (see expectAccessibleOnce). */
const checked = new Set<string>();

/**
 * A fingerprint of what axe reads: the page's markup without its scripts, per-response nonces and
 * the transitions switched off for axe. Two widths of one view share it when the layout changes by
 * CSS alone.
 */
async function markupFingerprint(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const body = document.body.cloneNode(true) as HTMLElement;
    for (const el of body.querySelectorAll("script, style, next-route-announcer")) el.remove();
    // Without the transitions and animations expectAccessible switched off in this document.
    for (const el of body.querySelectorAll<HTMLElement>("[style]")) {
      el.style.removeProperty("transition");
      el.style.removeProperty("animation");
      if (!el.getAttribute("style")) el.removeAttribute("style");
    }
    const markup = body.innerHTML.replace(/\snonce="[^"]*"/g, "");
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${location.pathname}${location.search}\n${markup}`));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  });
}

/**
 * Runs axe once per distinct markup in this worker: a view seen before with the same markup (the
 * same view at another width, say) has been checked already. Answers whether it ran.
 */
export async function expectAccessibleOnce(page: Page, what: string): Promise<boolean> {
  const fingerprint = await markupFingerprint(page);
  if (checked.has(fingerprint)) return false;
  await expectAccessible(page, what);
  checked.add(fingerprint);
  return true;
}
