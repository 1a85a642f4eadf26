import { describe, expect, it } from "vitest";
import { platformDirs } from "./paths.ts";
import { CLIENTS, getClient } from "./registry.ts";
import { writeTargets } from "./targets.ts";

const linux = platformDirs({ platform: "linux", home: "/home/dev", env: {} });
const EXTENSION = "/home/dev/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json";
const CLI = "/home/dev/.cline/data/settings/cline_mcp_settings.json";

describe("write targets", () => {
  it("cline: the VS Code extension's file, and the CLI's once ~/.cline exists", () => {
    const cline = getClient("cline");
    expect(writeTargets(cline, linux, () => false)).toEqual([{ title: "Cline", file: EXTENSION }]);
    expect(writeTargets(cline, linux, (p) => p === "/home/dev/.cline")).toEqual([
      { title: "Cline", file: EXTENSION },
      { title: "Cline CLI", file: CLI },
    ]);
  });

  it("vscode: VS Code's mcp.json, and Insiders' once its user folder exists", () => {
    const vscode = getClient("vscode");
    const insiders = "/home/dev/.config/Code - Insiders/User";
    expect(writeTargets(vscode, linux, () => false).map((t) => t.file)).toEqual(["/home/dev/.config/Code/User/mcp.json"]);
    expect(writeTargets(vscode, linux, (p) => p === insiders)).toEqual([
      { title: "VS Code", file: "/home/dev/.config/Code/User/mcp.json" },
      { title: "VS Code Insiders", file: `${insiders}/mcp.json` },
    ]);
  });

  it("every other client: one file, whatever exists (their CLI and IDE share it)", () => {
    for (const c of CLIENTS.filter((c) => c.name !== "cline" && c.name !== "vscode")) {
      expect(writeTargets(c, linux, () => true).map((t) => t.file), c.name).toEqual([c.userFile(linux)]);
    }
  });
});
