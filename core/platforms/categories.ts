/** How the operator groups platforms: accounting, invoicing and commerce. */
export const PLATFORM_CATEGORIES = ["accounting", "invoicing", "commerce"] as const;
export type PlatformCategory = (typeof PLATFORM_CATEGORIES)[number];
