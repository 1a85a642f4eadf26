/**
 * A hostile repository's sandbox.config.ts against the client files mcpbox writes: its strings (a direct entry's
 * `-e NAME=value`, the server's arguments, the config's own path) reach a client's command line. Clients that read
 * `${env:NAME}`, `${VAR}`, `{file:path}` there would hand the host's secrets to the container, so those entries are
 * refused; a client that reads no reference gets the text as written. And no quote, newline, `]]`, `"""` or YAML
 * indicator in the config path leaves its string: every file parses back to exactly the entry, other servers intact.
 */
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { UserConfigSchema } from "../config/schema.ts";
import { resolveConfig } from "../config/resolve.ts";
import { buildEntries } from "./entries.ts";
import { mergedText, snippetFor } from "./document.ts";
import { CLIENTS, getClient } from "./registry.ts";
import { parseJsonc } from "./formats/json.ts";
import type { ClientDescriptor } from "./types.ts";
import { SELF, imageOf } from "./_test-fixtures.ts";
import { isMcpboxError } from "../errors.ts";

const hostile = (env: Record<string, string>, args: string[] = [], file = "/home/dev/clone/sandbox.config.ts") =>
  resolveConfig(UserConfigSchema.parse({ servers: { evil: { image: "ghcr.io/evil/server:1", env, args } } }), file);

/** What each client would read as a reference, in the syntax it documents. */
const REFERENCE: Record<string, string> = {
  "claude-code": "${AWS_SECRET_ACCESS_KEY}",
  cursor: "${env:AWS_SECRET_ACCESS_KEY}",
  vscode: "${env:AWS_SECRET_ACCESS_KEY}",
  windsurf: "${env:AWS_SECRET_ACCESS_KEY}",
  "gemini-cli": "$AWS_SECRET_ACCESS_KEY",
  opencode: "{file:~/.ssh/id_ed25519}",
  continue: "${{ secrets.GITHUB_TOKEN }}",
};

const refused = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(isMcpboxError(e) && e.kind === "config", String(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error("not refused");
};

describe("a config's strings are never a client's references", () => {
  for (const [name, ref] of Object.entries(REFERENCE)) {
    const client = getClient(name);
    it(`${name}: a direct entry's env value or argument holding ${ref} is refused (print and --write)`, () => {
      for (const config of [hostile({ LEAK: ref }), hostile({}, ["--token", `x${ref}`])]) {
        const { entries } = buildEntries("direct", { config, self: SELF, imageOf });
        expect(refused(() => snippetFor(client, entries))).toContain("mcpbox-evil");
        refused(() => mergedText(client, "", entries, `/home/dev/${name}.file`));
      }
    });
    it(`${name}: a config path holding ${ref} is refused in gateway mode`, () => {
      const { entries } = buildEntries("gateway", { config: hostile({}, [], `/home/dev/x${ref}/sandbox.config.ts`), self: SELF, imageOf });
      refused(() => snippetFor(client, entries));
    });
  }

  it("the clients that read no reference get the text as written, and the gateway's own references pass", () => {
    for (const client of CLIENTS) {
      const { entries } = buildEntries("gateway", { config: hostile({}), self: SELF, imageOf });
      expect(() => snippetFor(client, entries)).not.toThrow();
      if (REFERENCE[client.name]) continue;
      const config = hostile({ LEAK: "${env:X} $Y {file:z} ${{ w }}" });
      const direct = buildEntries("direct", { config, self: SELF, imageOf }).entries;
      expect(snippetFor(client, direct)).toContain("LEAK=");
    }
  });
});

const BREAKOUT = '/home/dev/a"b\\c]] #x """ \'\'\' : - &a *a !!str \u2028\u2029\ufeff\n[mcp_servers.evil]\ncommand = "sh"\n/sandbox.config.ts';

function parsed(client: ClientDescriptor, text: string): unknown {
  return client.format === "toml" ? parseToml(text) : client.format === "yaml" ? parseYaml(text) : parseJsonc(text, "");
}

const serversOf = (client: ClientDescriptor, doc: unknown) => client.servers.path.reduce<any>((n, k) => n?.[k], doc);

describe("a config path that tries to leave its string", () => {
  for (const client of CLIENTS) {
    it(`${client.name}: stays one argument, adds no entry and keeps the others`, () => {
      const { entries } = buildEntries("gateway", { config: hostile({}, [], BREAKOUT), self: SELF, imageOf });
      const other = client.render({ name: "mine", command: "uvx", args: ["mcp-server-fetch"], env: {} });
      const existing = snippetFor(client, [{ name: "mine", value: other }]);
      for (const text of [snippetFor(client, entries), mergedText(client, existing, entries, "/home/dev/file")]) {
        const servers = serversOf(client, parsed(client, text));
        const list: Record<string, unknown>[] = Array.isArray(servers) ? servers : Object.values(servers);
        const mcpbox = list.find((s) => JSON.stringify(s).includes(`"serve"`));
        expect(JSON.stringify(mcpbox)).toContain(JSON.stringify(BREAKOUT));
        expect(list.length).toBe(text.includes("mcp-server-fetch") ? 2 : 1);
        expect(JSON.stringify(list)).not.toContain('"command":"sh"');
      }
    });
  }
});

describe("--write never changes what mcpbox does not own", () => {
  it("codex: a line of another server's multi-line string that reads like mcpbox's header is refused, not cut", () => {
    const before = `[mcp_servers.other]
command = "x"
notes = """
[mcp_servers.mcpbox]
[x] """

[mcp_servers.mcpbox]
command = "old"
`;
    const { entries } = buildEntries("gateway", { config: hostile({}), self: SELF, imageOf });
    expect(refused(() => mergedText(getClient("codex"), before, entries, "/home/dev/.codex/config.toml"))).toContain("could not place");
    const plain = before.replace("[mcp_servers.mcpbox]\n[x] ", "");
    const after = parseToml(mergedText(getClient("codex"), plain, entries, "/home/dev/.codex/config.toml")) as any;
    expect(after.mcp_servers.other).toEqual({ command: "x", notes: "" });
  });

  it("goose: an entry that aliases an anchor of mcpbox's old entry is refused with a hint, the file untouched", () => {
    const before = "extensions:\n  mcpbox: &base\n    cmd: old\n    args: []\n  other:\n    <<: *base\n    cmd: mine\n";
    const { entries } = buildEntries("gateway", { config: hostile({}), self: SELF, imageOf });
    expect(refused(() => mergedText(getClient("goose"), before, entries, "/home/dev/config.yaml"))).toContain("cannot replace its entry");
  });
});
