import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { auditFolder, openAudit, type AuditRecord } from "./audit.ts";

const record = (time: string): AuditRecord => ({
  time,
  session: "abcd1234",
  server: "s",
  method: "tools/call",
  tool: "t",
  arguments: { a: 1 },
  outcome: "ok",
  durationMs: 3,
  bytes: 10,
});

describe("audit log", () => {
  it("writes one JSON line per call in a file per day, readable by its user only", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-audit-"));
    const sink = openAudit({ audit: { enabled: true, path: dir } });
    sink.write(record("2026-11-29T10:00:00.000Z"));
    sink.write(record("2026-11-29T11:00:00.000Z"));
    sink.write(record("2026-11-30T00:00:01.000Z"));
    await sink.close();
    expect(fs.readdirSync(dir).sort()).toEqual(["2026-11-29.jsonl", "2026-11-30.jsonl"]);
    const lines = fs.readFileSync(path.join(dir, "2026-11-29.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).time)).toEqual(["2026-11-29T10:00:00.000Z", "2026-11-29T11:00:00.000Z"]);
    expect(fs.statSync(path.join(dir, "2026-11-29.jsonl")).mode & 0o777).toBe(0o600);
  });

  it("defaults to $MCPBOX_HOME/audit and can be turned off", async () => {
    expect(auditFolder({ audit: { enabled: true, path: undefined } }, { MCPBOX_HOME: "/h" })).toBe("/h/audit");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-audit-"));
    const off = openAudit({ audit: { enabled: false, path: dir } });
    off.write(record("2026-11-29T10:00:00.000Z"));
    await off.close();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe("audit log failures", () => {
  it("reports an unwritable folder once on stderr and lets calls go on", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-audit-"));
    const blocked = path.join(dir, "file-not-folder");
    fs.writeFileSync(blocked, "");
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (errors.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const sink = openAudit({ audit: { enabled: true, path: blocked } });
      sink.write(record("2026-11-29T10:00:00.000Z"));
      sink.write(record("2026-11-29T10:00:01.000Z"));
      await sink.close();
    } finally {
      process.stderr.write = write;
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^mcpbox: audit log: .*file-not-folder/);
  });
});

describe("audit log against planted files", () => {
  it("never appends through a day file planted as a symbolic link, and says so", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-audit-"));
    const victim = path.join(dir, "victim");
    fs.writeFileSync(victim, "precious\n");
    fs.mkdirSync(path.join(dir, "audit"), { mode: 0o700 });
    fs.symlinkSync(victim, path.join(dir, "audit", "2026-11-29.jsonl"));
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (errors.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const sink = openAudit({ audit: { enabled: true, path: path.join(dir, "audit") } });
      sink.write(record("2026-11-29T10:00:00.000Z"));
      await sink.close();
    } finally {
      process.stderr.write = write;
    }
    expect(fs.readFileSync(victim, "utf8")).toBe("precious\n");
    expect(errors.join("")).toMatch(/2026-11-29\.jsonl is a symbolic link; mcpbox does not write through links/);
  });

  it("refuses, before any call, an audit.path folder that others can write", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-audit-"));
    fs.chmodSync(dir, 0o777);
    expect(() => openAudit({ audit: { enabled: true, path: dir } })).toThrow(/^audit\.path .* is writable by group and others \(mode 0777\)/);
  });
});
