import { CommanderError } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { McpboxError } from "../errors.ts";
import { formatError, report } from "./run.ts";

let stderr = "";
beforeEach(() => {
  stderr = "";
  vi.spyOn(process.stderr, "write").mockImplementation((s) => {
    stderr += String(s);
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

describe("error reporting (the one place that maps errors to exit codes)", () => {
  it("maps each kind to its SPEC exit code", () => {
    expect(report(new McpboxError("config", "bad"))).toBe(1);
    expect(report(new McpboxError("failed", "bad"))).toBe(1);
    expect(report(new McpboxError("usage", "bad"))).toBe(2);
    expect(report(new McpboxError("environment", "no engine"))).toBe(3);
    expect(report(new CommanderError(1, "commander.unknownOption", "error: unknown option"), CommanderError)).toBe(2);
    expect(report(new CommanderError(0, "commander.helpDisplayed", ""), CommanderError)).toBe(0);
    expect(report(new TypeError("x is undefined"))).toBe(70);
  });

  it("prints message, details and hint without a stack", () => {
    const e = new McpboxError("config", "sandbox.config.ts has 1 problem", {
      details: ["sandbox.config.ts: servers.a.user: runs as root"],
      hint: "remove it",
      cause: new Error("inner"),
    });
    expect(formatError(e)).toBe(
      "error: sandbox.config.ts has 1 problem\n  sandbox.config.ts: servers.a.user: runs as root\nhint: remove it\n",
    );
  });

  it("says where to report a bug, and hides the stack unless MCPBOX_DEBUG", () => {
    delete process.env.MCPBOX_DEBUG;
    report(new Error("boom"));
    expect(stderr).toContain("internal error: boom");
    expect(stderr).toContain("Please report it at");
    expect(stderr).not.toMatch(/^\s+at /m);
  });
});
