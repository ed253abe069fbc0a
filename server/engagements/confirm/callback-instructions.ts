/**
 * Step 3's instructions: where each platform's developer console keeps an OAuth app's redirect
 * URIs. Short, per platform; the callback URL itself comes from server/platforms.
 */
import type { PlatformKey } from "@/server/platforms";

/** The steps to add the callback URL to the customer's registered app, per platform. */
export const CALLBACK_INSTRUCTIONS: Record<PlatformKey, readonly string[]> = {
  fbrh: [
    "Sign in to the FreeAgent Developer Dashboard and open your app.",
    "Under OAuth redirect URIs, add the callback URL above (keep your existing ones).",
    "Save the app.",
  ],
  vxvy: [
    "Sign in to the FreshBooks developer page (My Apps) and open your app.",
    "Under Redirect URIs, add the callback URL above; FreshBooks accepts several, one per line.",
    "Save the app.",
  ],
  qhyg: [
    "Sign in to the Intuit Developer portal and open your app.",
    "Under Keys & credentials (Production), add the callback URL above to Redirect URIs.",
    "Save. Intuit applies the change to the production keys at once.",
  ],
  fztf: [
    "Open your app in the Shopify Partner Dashboard (or the app's configuration in the Shopify CLI).",
    "Under App setup → URLs, add the callback URL above to the Allowed redirection URL(s).",
    "Save, or deploy the app's configuration.",
  ],
  pbtz: [
    "Sign in to the Wave Developer Portal and open your application.",
    "Add the callback URL above to the application's Redirect URIs.",
    "Save the application.",
  ],
  rwuv: [
    "Sign in to the Zoho API Console (in your data centre) and open your server-based client.",
    "Add the callback URL above to the Authorized Redirect URIs.",
    "Update the client.",
  ],
};
