/**
 * Golden files: every client's snippet in both modes, generated from one fixed example config with fixed paths, and
 * every client's file location per OS. `UPDATE_GOLDEN=1 npx vitest run src/clients` rewrites them after a review.
 */
import { describe, expect, it } from "vitest";
import { UserConfigSchema } from "../config/schema.ts";
import { resolveConfig } from "../config/resolve.ts";
import { buildEntries, type Mode } from "./entries.ts";
import { snippetFor } from "./document.ts";
import { platformDirs } from "./paths.ts";
import { CLIENTS, getClient } from "./registry.ts";
import { EXAMPLE, EXT, SELF, golden, imageOf } from "./_test-fixtures.ts";

describe("client snippets", () => {
  for (const client of CLIENTS) {
    for (const mode of ["gateway", "direct"] as Mode[]) {
      it(`${client.name} --mode ${mode}`, () => {
        const { entries } = buildEntries(mode, { config: EXAMPLE, self: SELF, imageOf });
        golden(`${client.name}.${mode}.${EXT[client.format]}`, snippetFor(client, entries));
      });
    }
  }
});

describe("client file locations", () => {
  it("per OS, user and project level", () => {
    const table: Record<string, Record<string, string | undefined>> = {};
    const env = { APPDATA: undefined, XDG_CONFIG_HOME: undefined };
    const dirs = {
      macos: platformDirs({ platform: "darwin", home: "/Users/dev", env }),
      linux: platformDirs({ platform: "linux", home: "/home/dev", env }),
      windows: platformDirs({ platform: "win32", home: "C:\\Users\\dev", env }),
    };
    for (const c of CLIENTS) {
      table[c.name] = {
        docs: c.docs,
        macos: c.userFile(dirs.macos),
        linux: c.userFile(dirs.linux),
        windows: c.userFile(dirs.windows),
        project: c.projectFile,
      };
    }
    golden("locations.json", JSON.stringify(table, null, 2) + "\n");
  });

  it("honours XDG_CONFIG_HOME on Linux and APPDATA on Windows", () => {
    const linux = platformDirs({ platform: "linux", home: "/home/dev", env: { XDG_CONFIG_HOME: "/xdg" } });
    expect(getClient("zed").userFile(linux)).toBe("/xdg/zed/settings.json");
    const win = platformDirs({ platform: "win32", home: "C:\\Users\\dev", env: { APPDATA: "D:\\Roaming" } });
    expect(getClient("claude-desktop").userFile(win)).toBe("D:\\Roaming\\Claude\\claude_desktop_config.json");
  });
});

describe("entries", () => {
  it("gateway: one entry running this mcpbox with the absolute config path; secrets by host variable name", () => {
    const { entries } = buildEntries("gateway", { config: EXAMPLE, self: ["/usr/bin/node", "/src/main.ts"], imageOf });
    expect(entries).toEqual([
      {
        name: "mcpbox",
        command: "/usr/bin/node",
        args: ["/src/main.ts", "serve", "-c", "/home/dev/project/sandbox.config.ts"],
        env: { GITHUB_TOKEN: "GITHUB_TOKEN" },
      },
    ]);
  });

  it("direct: docker run per server with the content tag, secrets as -e NAME, gateway-only guards noted", () => {
    const { entries, notes } = buildEntries("direct", { config: EXAMPLE, self: SELF, imageOf });
    expect(entries.map((e) => e.name)).toEqual(["mcpbox-files", "mcpbox-github"]);
    const files = entries[0]!.args;
    expect(files.slice(0, 3)).toEqual(["run", "-i", "--rm"]);
    expect(files).toContain("mcpbox/files:0123456789ab");
    expect(files.join(" ")).toContain("-v /home/dev/project/reports:/data:ro");
    const github = entries[1]!;
    expect(github.args.join(" ")).toContain("-e GITHUB_PERSONAL_ACCESS_TOKEN");
    expect(github.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: "GITHUB_TOKEN" });
    expect(notes.join("\n")).toContain("files: direct mode does not apply path-argument checks");
  });

  it("direct: the built-in code runner is left to the gateway", () => {
    const config = resolveConfig(UserConfigSchema.parse({ servers: { code: { builtin: "code-runner" } } }), "/p/sandbox.config.ts");
    const { entries, notes } = buildEntries("direct", { config, self: SELF, imageOf });
    expect(entries).toEqual([]);
    expect(notes[0]).toMatch(/code: skipped: .*gateway/);
  });

  it("direct: refuses a server with an egress allowlist, which a plain docker run cannot enforce", () => {
    const config = resolveConfig(UserConfigSchema.parse({ servers: {
      gh: { image: "x:1", network: { allow: ["api.github.com"] } }, off: { image: "y:1" }, web: { image: "z:1", network: { allow: ["a.example"] } },
    } }), "/p/sandbox.config.ts");
    expect(() => buildEntries("direct", { config, self: SELF, imageOf })).toThrow(
      "/p/sandbox.config.ts: servers.gh.network, servers.web.network: an egress allowlist cannot be enforced by a plain `docker run` (--mode direct)",
    );
    expect(buildEntries("gateway", { config, self: SELF, imageOf }).entries).toHaveLength(1);
  });
});
