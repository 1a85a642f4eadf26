/** The format handler of a client's file. */
import type { ConfigFormat } from "../types.ts";
import type { FormatHandler } from "./_shared.ts";
import { jsonFormat } from "./json.ts";
import { tomlFormat } from "./toml.ts";
import { yamlFormat } from "./yaml.ts";

export type { FormatHandler, Rendered } from "./_shared.ts";

export function formatHandler(format: ConfigFormat): FormatHandler {
  if (format === "toml") return tomlFormat;
  if (format === "yaml") return yamlFormat;
  return jsonFormat;
}
