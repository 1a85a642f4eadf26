/**
 * Merging into existing client files: other servers, unknown keys and comments survive; the mcpbox entries are
 * added or replaced; a second merge changes nothing; a file that does not parse is refused with its position.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonc } from "./formats/json.ts";
import { buildEntries } from "./entries.ts";
import { mergedText, renderEntries } from "./document.ts";
import { getClient } from "./registry.ts";
import { readIfExists, writeIfChanged } from "./write.ts";
import { EXAMPLE, SELF, golden, imageOf } from "./_test-fixtures.ts";
import { isMcpboxError } from "../errors.ts";

const BEFORE: Record<string, string> = {
  vscode: `{
  // servers I run without a sandbox
  "servers": {
    "memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }, // keep me
  },
  "inputs": [{ "type": "promptString", "id": "token", "description": "API token", "password": true }],
  /* a key mcpbox does not know */ "x-team": { "owner": "platform" },
}
`,
  "claude-desktop": `{
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "fetch": {
            "command": "uvx",
            "args": ["mcp-server-fetch"]
        }
    }
}
`,
  zed: `// Zed settings
{
\t"theme": "One Dark",
\t"context_servers": {
\t\t// a server of mine
\t\t"postgres": { "command": "postgres-mcp", "args": ["--ro"], "env": {} }
\t},
\t"vim_mode": true
}
`,
  codex: `# Codex configuration
model = "gpt-5"

[mcp_servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"] # inline comment

# profiles below
[profiles.fast]
model = "gpt-5-mini"
`,
  goose: `# goose config
GOOSE_PROVIDER: anthropic
extensions:
  developer:
    enabled: true
    name: developer
    type: builtin
    timeout: 300
    bundled: true
  # the GitHub server
  github:
    name: GitHub
    cmd: npx
    args: [-y, "@modelcontextprotocol/server-github"]
    enabled: true
    envs: {}
    type: stdio
    timeout: 300
`,
  continue: `name: Local Config
version: 1.0.0
schema: v1
models:
  - name: Claude
    provider: anthropic
    model: claude-sonnet
# MCP servers
mcpServers:
  - name: SQLite MCP
    command: npx
    args: ["-y", "mcp-sqlite", "/tmp/db.sqlite"]
`,
  opencode: `{
  "$schema": "https://opencode.ai/config.json",
  // the model
  "model": "anthropic/claude-sonnet",
  "mcp": {
    "context7": { "type": "remote", "url": "https://mcp.context7.com/mcp", "enabled": true },
  },
}
`,
};

const FILE_EXT: Record<string, string> = { codex: "toml", goose: "yaml", continue: "yaml" };

function parsed(client: string, text: string): Record<string, unknown> {
  const format = getClient(client).format;
  if (format === "toml") return parseToml(text) as Record<string, unknown>;
  if (format === "yaml") return parseYaml(text) as Record<string, unknown>;
  return parseJsonc(text, "x") as Record<string, unknown>;
}

/** The document with the mcpbox entries taken out again. */
function withoutMcpbox(client: string, doc: Record<string, unknown>): Record<string, unknown> {
  const c = getClient(client);
  const copy = structuredClone(doc);
  let node = copy as Record<string, unknown>;
  for (const k of c.servers.path.slice(0, -1)) node = node[k] as Record<string, unknown>;
  const last = c.servers.path.at(-1)!;
  const servers = node[last];
  if (Array.isArray(servers)) node[last] = servers.filter((s: { name: string }) => !s.name.startsWith("mcpbox"));
  else for (const k of Object.keys(servers as object)) if (k.startsWith("mcpbox")) delete (servers as Record<string, unknown>)[k];
  return copy;
}

const gateway = buildEntries("gateway", { config: EXAMPLE, self: SELF, imageOf }).entries;
const direct = buildEntries("direct", { config: EXAMPLE, self: SELF, imageOf }).entries;

describe.each(Object.keys(BEFORE))("merge into %s", (name) => {
  const client = getClient(name);
  const before = BEFORE[name]!;
  const file = `/home/dev/${name}.${FILE_EXT[name] ?? "json"}`;

  it("keeps other servers, unknown keys and comments, and adds the entries", () => {
    const after = mergedText(client, before, gateway, file);
    for (const line of before.split("\n").filter((l) => /^\s*(\/\/|#|\/\*)/.test(l))) expect(after).toContain(line.trim());
    expect(withoutMcpbox(name, parsed(name, after))).toEqual(parsed(name, before));
    const doc = parsed(name, after);
    const rendered = renderEntries(client, gateway)[0]!.value;
    const servers = client.servers.path.reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], doc);
    const mine = Array.isArray(servers) ? servers.find((s: { name: string }) => s.name === "mcpbox") : (servers as Record<string, unknown>).mcpbox;
    expect(mine).toEqual(rendered);
    golden(`merge/${name}.${FILE_EXT[name] ?? "json"}`, after);
  });

  it("is idempotent and replaces its own entries when they change", () => {
    const once = mergedText(client, before, gateway, file);
    expect(mergedText(client, once, gateway, file)).toBe(once);
    const both = mergedText(client, once, direct, file);
    const moved = gateway.map((e) => ({ ...e, args: e.args.map((a) => a.replace("/home/dev/project", "/srv/other")) }));
    const replaced = mergedText(client, both, moved, file);
    expect(replaced).toContain("/srv/other/sandbox.config.ts");
    expect(replaced).not.toContain("/home/dev/project/sandbox.config.ts");
    expect(withoutMcpbox(name, parsed(name, replaced))).toEqual(parsed(name, before));
    expect(mergedText(client, replaced, moved, file)).toBe(replaced);
  });

  it("starts a missing or empty file", () => {
    const fresh = mergedText(client, "", gateway, file);
    expect(mergedText(client, fresh, gateway, file)).toBe(fresh);
    expect(Object.keys(withoutMcpbox(name, parsed(name, fresh)))).toEqual([...Object.keys(client.skeleton ?? {}), client.servers.path[0]]);
  });
});

describe("files that do not parse", () => {
  const cases: Array<[string, string, RegExp]> = [
    ["vscode", '{\n  "servers": {\n    "a": { "command": "x" \n  }\n', /:\d+:\d+: cannot be parsed/],
    ["claude-desktop", '{ "mcpServers": [1, 2 }', /:1:\d+: cannot be parsed/],
    ["codex", '[mcp_servers.x]\ncommand = "npx\n', /:2:\d+: cannot be parsed/],
    ["goose", "extensions:\n  a: [1, 2\n  b: {\n", /:\d+:\d+: cannot be parsed/],
  ];
  it.each(cases)("%s: a config error naming the file and the position", (name, text, pattern) => {
    let error: unknown;
    try {
      mergedText(getClient(name), text, gateway, "/home/dev/broken");
    } catch (e) {
      error = e;
    }
    expect(isMcpboxError(error) && error.kind).toBe("config");
    expect((error as Error).message).toMatch(new RegExp(`^/home/dev/broken${pattern.source}`));
  });

  it("refuses a servers key that is not an object", () => {
    expect(() => mergedText(getClient("cursor"), '{ "mcpServers": [] }', gateway, "/f.json")).toThrow(/mcpServers is not an object/);
  });
});

describe("writing the file", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-clients-write-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("backs up first, keeps the file's mode, writes atomically, and does nothing the second time", async () => {
    const file = path.join(dir, "mcp.json");
    fs.writeFileSync(file, BEFORE.vscode!, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    const client = getClient("vscode");
    const now = new Date(2026, 10, 29, 9, 5, 7);
    const first = await writeIfChanged(file, await readIfExists(file), mergedText(client, BEFORE.vscode!, gateway, file), now);
    expect(first.changed).toBe(true);
    expect(first.backup).toBe(`${file}.mcpbox-backup-20261129-090507`);
    expect(fs.readFileSync(first.backup!, "utf8")).toBe(BEFORE.vscode);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const text = fs.readFileSync(file, "utf8");
    const second = await writeIfChanged(file, text, mergedText(client, text, gateway, file), now);
    expect(second).toEqual({ file, changed: false, backup: undefined });
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(fs.readdirSync(dir).sort()).toEqual(["mcp.json", "mcp.json.mcpbox-backup-20261129-090507"]);
  });

  it("never overwrites an earlier backup and writes through a symlink", async () => {
    const real = path.join(dir, "real.json");
    const link = path.join(dir, "link.json");
    fs.writeFileSync(real, "{}\n");
    fs.symlinkSync(real, link);
    const now = new Date(2026, 0, 2, 3, 4, 5);
    await writeIfChanged(link, "{}\n", '{"a":1}\n', now);
    const again = await writeIfChanged(link, '{"a":1}\n', '{"a":2}\n', now);
    expect(again.backup).toBe(`${real}.mcpbox-backup-20260102-030405-1`);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(real, "utf8")).toBe('{"a":2}\n');
  });

  it("creates a missing file and its folder, with no backup", async () => {
    const file = path.join(dir, "new", "deep", "config.toml");
    const result = await writeIfChanged(file, undefined, "x = 1\n");
    expect(result).toEqual({ file, changed: true, backup: undefined });
    expect(fs.readFileSync(file, "utf8")).toBe("x = 1\n");
  });
});

describe("JSON layouts", () => {
  const cursor = getClient("cursor");
  const one = [{ name: "mcpbox", command: "/x", args: ["serve"], env: {} }];
  const cases: Array<[string, string, string]> = [
    [
      "tabs and CRLF",
      '{\r\n\t"mcpServers": {\r\n\t\t"a": {"command": "b"}\r\n\t}\r\n}\r\n',
      '{\r\n\t"mcpServers": {\r\n\t\t"a": {"command": "b"},\r\n\t\t"mcpbox": {\r\n\t\t\t"command": "/x",\r\n\t\t\t"args": [\r\n\t\t\t\t"serve"\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}\r\n',
    ],
    [
      "minified",
      '{"mcpServers":{"a":{"command":"b"}}}',
      '{\n  "mcpServers": {\n    "a": {\n      "command": "b"\n    },\n    "mcpbox": {\n      "command": "/x",\n      "args": [\n        "serve"\n      ]\n    }\n  }\n}',
    ],
    [
      "no servers key yet",
      '{\n  "other": 1\n}\n',
      '{\n  "other": 1,\n  "mcpServers": {\n    "mcpbox": {\n      "command": "/x",\n      "args": [\n        "serve"\n      ]\n    }\n  }\n}\n',
    ],
  ];
  it.each(cases)("%s", (_, before, after) => {
    expect(mergedText(cursor, before, one, "/f.json")).toBe(after);
    expect(mergedText(cursor, after, one, "/f.json")).toBe(after);
  });
});
