/**
 * Screenshots of a page or a panel at the two widths people use (1366×900 and 390×844), taken only
 * when SCREENSHOTS names a folder (`SCREENSHOTS=/tmp/shots npx playwright test …`), to look at a
 * screen as the people who work in it would.
 */
import fs from "node:fs";
import type { Locator, Page } from "@playwright/test";

export async function screenshots(page: Page, target: Locator | null, name: string): Promise<void> {
  const dir = process.env.SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  const before = page.viewportSize();
  for (const [w, h] of [
    [1366, 900],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    if (target) await target.screenshot({ path: `${dir}/${name}-${w}.png` });
    else await page.screenshot({ path: `${dir}/${name}-${w}.png` });
  }
  await page.setViewportSize(before ?? { width: 1366, height: 900 });
}
