import type { LANGUAGES } from "./schema.ts";

export type Language = (typeof LANGUAGES)[number];
