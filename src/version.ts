/** Replaced at build time by the bundler; the package version in development. */
declare const __MCPBOX_VERSION__: string | undefined;
export const VERSION: string = typeof __MCPBOX_VERSION__ === "string" ? __MCPBOX_VERSION__ : "0.1.0-dev";
export const ISSUES_URL = "https://github.com/mcpbox/mcpbox/issues";
