/**
 * Shared pieces of the adversarial suite: the hostile MCP server fixture (test/fixtures/hostile, built by mcpbox
 * itself as a `build:` server) and hostile repositories made in temp folders.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO } from "../helpers/gateway.ts";
import { nodeBaseImage } from "../helpers/images.ts";
import { engine } from "../../src/docker/engine.ts";

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

/**
 * A server entry for the egress fixture (test/fixtures/egress: tools that open connections and send raw bytes from
 * inside the container) with `network` and any more server config.
 */
export async function egressWebServer(more: Record<string, unknown>): Promise<Record<string, unknown>> {
  return {
    image: await nodeBaseImage(engine()),
    command: ["node", "/fixtures/server.mjs"],
    mounts: [{ source: path.join(REPO, "test/fixtures/egress"), target: "/fixtures" }],
    timeouts: { startupMs: 60_000, callMs: 60_000 },
    ...more,
  };
}

/** What the engine can give back of a container's output: its log, or nothing when its driver keeps none. */
export async function engineLog(id: string): Promise<Buffer> {
  try {
    return (await engine().getContainer(id).logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
  } catch (e) {
    if (/does not support reading|logging driver|log driver|not logging output/i.test((e as Error).message)) return Buffer.alloc(0);
    throw e;
  }
}

