/** A server whose source is missing or half-given still has its policy checked: every problem shows at once. */
import { describe, expect, it } from "vitest";
import { checkRawConfig } from "./zod-check.ts";
import { dotted } from "./problems.ts";
import type { CheckEnv } from "./checks.ts";

const env: CheckEnv = { home: "/home/ada", exists: () => false, realpath: (p) => p };
const paths = (server: Record<string, unknown>) =>
  checkRawConfig({ servers: { a: server } }, "/work/p/sandbox.config.ts", env).problems.map((p) => dotted(p.path));
const policy = { network: "host", user: "0:0" };

describe("policy errors beside a source error", () => {
  it("a template without its package", () => {
    expect(paths({ template: "node", ...policy })).toEqual(["servers.a.package", "servers.a.user", "servers.a.network"]);
  });

  it("no source at all", () => {
    expect(paths(policy)).toEqual(["servers.a", "servers.a.user", "servers.a.network"]);
  });

  it("two sources, and code-runner keys without the builtin", () => {
    expect(paths({ image: "x:1", build: { context: "." }, ...policy })).toEqual(["servers.a", "servers.a.user", "servers.a.network"]);
    expect(paths({ pool: 2, ...policy })).toEqual(["servers.a", "servers.a.pool", "servers.a.user", "servers.a.network"]);
  });

  it("says nothing about the stand-in source it checked the policy with", () => {
    const problems = checkRawConfig({ servers: { a: { network: "bridge" } } }, "/work/p/sandbox.config.ts", env).problems;
    expect(problems.map((p) => p.message).join("\n")).not.toContain("stand-in");
    expect(problems.filter((p) => p.severity === "error")).toHaveLength(1); // "bridge" adds its warning
  });
});
