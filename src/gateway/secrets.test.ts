import { describe, expect, it } from "vitest";
import { McpboxError } from "../errors.ts";
import { resolveSecrets } from "./secrets.ts";

describe("resolveSecrets", () => {
  it("reads the environment and files (trimmed)", () => {
    const s = resolveSecrets(
      { name: "gh", secrets: { TOKEN: { env: "GH" }, KEY: { file: "/k" } } },
      { GH: "abc" },
      () => "  xyz\n",
    );
    expect(s).toEqual({ TOKEN: "abc", KEY: "xyz" });
  });
  it("names every missing variable and file and how to provide it, never a value", () => {
    let error: unknown;
    try {
      resolveSecrets({ name: "gh", secrets: { SET: { env: "SET_ONE" }, TOKEN: { env: "GH_TOKEN" }, K: { file: "/nope" } } }, { SET_ONE: "hunter2" }, () => {
        throw Object.assign(new Error("x"), { code: "ENOENT" });
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpboxError);
    const e = error as McpboxError;
    expect(e.message).toBe("secret TOKEN needs the environment variable GH_TOKEN, which is not set; secret K cannot be read from /nope (ENOENT)");
    expect(e.hint).toMatch(/^set GH_TOKEN where mcpbox is started .*secrets\.TOKEN\.file; create the file or fix secrets\.K\.file/);
    expect(`${e.message} ${e.hint}`).not.toContain("hunter2");
  });
});
