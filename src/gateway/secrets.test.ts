import { describe, expect, it } from "vitest";
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
  it("names the server and the variable, never a value", () => {
    expect(() => resolveSecrets({ name: "gh", secrets: { TOKEN: { env: "GH_TOKEN" } } }, {})).toThrow(
      /server gh: secret TOKEN needs the environment variable GH_TOKEN/,
    );
    expect(() =>
      resolveSecrets({ name: "gh", secrets: { K: { file: "/nope" } } }, {}, () => {
        throw Object.assign(new Error("x"), { code: "ENOENT" });
      }),
    ).toThrow(/cannot be read from \/nope \(ENOENT\)/);
  });
});
