/**
 * Accessibility checks with axe-core (@axe-core/playwright): a page passes when axe finds no
 * violation of serious or critical impact (WCAG 2.1 A and AA rules and axe's best practices).
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

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
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(" | ")}`);
  expect(serious, `axe on ${what}`).toEqual([]);
}
