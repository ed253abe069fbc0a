import type { ESLint } from "eslint";
/** Ferry's own ESLint plugin: ferry/delegate-steps (see delegate-steps.mjs). */
declare const plugin: ESLint.Plugin;
export default plugin;
