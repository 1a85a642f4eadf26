import { describe, expect, it } from "vitest";
import type { CheckResult } from "./checks.ts";
import { exitCodeOf, formatHuman, summaryOf, toJson } from "./report.ts";

const ok: CheckResult = { name: "docker engine", status: "ok", message: "reachable" };
const warn: CheckResult = { name: "config", status: "warn", message: "none found", fix: "mcpbox init" };
const fail: CheckResult = { name: "base image (node)", status: "fail", message: "missing", fix: "docker pull node" };
const engineFail: CheckResult = { name: "docker engine", status: "fail", message: "no engine at unix:///x.sock", fix: "start Docker", engine: true };

describe("exit code", () => {
  it("is 0 with warnings, 1 for a failed check, 3 when the engine is unusable", () => {
    expect(exitCodeOf([ok, warn])).toBe(0);
    expect(exitCodeOf([ok, warn, fail])).toBe(1);
    expect(exitCodeOf([engineFail, fail])).toBe(3);
    expect(exitCodeOf([{ ...engineFail, status: "ok" }])).toBe(0);
  });
});

describe("output", () => {
  it("human: a line per check, aligned, with a fix line under warnings and failures", () => {
    expect(formatHuman([ok, warn, fail])).toBe(
      [
        "✓ docker engine      reachable",
        "! config             none found",
        "                     fix: mcpbox init",
        "✗ base image (node)  missing",
        "                     fix: docker pull node",
        "",
      ].join("\n"),
    );
  });

  it("json: one document with ok and every check, fix null when none", () => {
    expect(toJson([ok, fail])).toEqual({
      ok: false,
      checks: [
        { name: "docker engine", status: "ok", message: "reachable", fix: null },
        { name: "base image (node)", status: "fail", message: "missing", fix: "docker pull node" },
      ],
    });
    expect(toJson([ok, warn]).ok).toBe(true);
  });

  it("summary says what the outcome means", () => {
    expect(summaryOf([ok])).toBe("everything mcpbox needs is in place");
    expect(summaryOf([ok, warn])).toBe("ready, with 1 warning");
    expect(summaryOf([ok, warn, fail])).toBe("1 failed, 1 warning: fix the failed checks above");
    expect(summaryOf([engineFail, fail])).toBe("the Docker engine is unusable: no engine at unix:///x.sock");
  });
});
