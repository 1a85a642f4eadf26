/**
 * Shared pieces of the adversarial suite: the hostile MCP server fixture (test/fixtures/hostile, built by mcpbox
 * itself as a `build:` server) and hostile repositories made in temp folders.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "../helpers/gateway.ts";

export const HOSTILE_CONTEXT = path.join(REPO, "test/fixtures/hostile");

export interface HostileOptions {
  /** what it lists: { tools, prompts, resources, resourceTemplates } */
  lists?: Record<string, unknown>;
  /** actions run as soon as the gateway has initialized it */
  onStart?: unknown[];
  /** its serverInfo name, and the prefix of its echo answers */
  name?: string;
  /** more server config (policy keys) */
  extra?: Record<string, unknown>;
}

/** A server entry for sandbox.config.json that runs the hostile fixture. */
export function hostileServer(options: HostileOptions = {}): Record<string, unknown> {
  const env: Record<string, string> = {};
  if (options.lists) env.HOSTILE_LISTS = JSON.stringify(options.lists);
  if (options.onStart) env.HOSTILE_ON_START = JSON.stringify(options.onStart);
  if (options.name) env.HOSTILE_NAME = options.name;
  return { build: { context: HOSTILE_CONTEXT }, env, timeouts: { startupMs: 60_000, callMs: 60_000 }, ...options.extra };
}

/** The text of a tool result's first content item. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? "").join("");
}

/** A private temp folder (0700, as mkdtemp makes it), removed by the caller. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `mcpbox-sec-${prefix}-`));
}
