/** Every supported MCP client, by the name `mcpbox config <client>` takes. */
import { McpboxError } from "../errors.ts";
import { closest } from "../config/_suggest.ts";
import type { ClientDescriptor } from "./types.ts";
import { claudeDesktop } from "./claude-desktop.ts";
import { claudeCode } from "./claude-code.ts";
import { cursor } from "./cursor.ts";
import { vscode } from "./vscode.ts";
import { windsurf } from "./windsurf.ts";
import { zed } from "./zed.ts";
import { cline } from "./cline.ts";
import { continueDev } from "./continue.ts";
import { goose } from "./goose.ts";
import { geminiCli } from "./gemini-cli.ts";
import { codex } from "./codex.ts";
import { lmStudio } from "./lm-studio.ts";
import { opencode } from "./opencode.ts";

export const CLIENTS: readonly ClientDescriptor[] = [
  claudeDesktop,
  claudeCode,
  cursor,
  vscode,
  windsurf,
  zed,
  cline,
  continueDev,
  goose,
  geminiCli,
  codex,
  lmStudio,
  opencode,
];

export const clientNames = (): string[] => CLIENTS.map((c) => c.name);

export function findClient(name: string): ClientDescriptor | undefined {
  const n = name.toLowerCase();
  return CLIENTS.find((c) => c.name === n);
}

export function getClient(name: string): ClientDescriptor {
  const client = findClient(name);
  if (client) return client;
  const near = closest(name, clientNames());
  throw new McpboxError("usage", `unknown client "${name}"${near ? ` (did you mean ${near}?)` : ""}`, {
    hint: `clients: ${clientNames().join(", ")}`,
  });
}
