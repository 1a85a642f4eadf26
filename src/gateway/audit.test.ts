import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { auditFolder, isoTime, openAudit, type AuditRecord } from "./audit.ts";

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

  it("writes a line without waiting for close, and the lines left at the process's exit", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-audit-"));
    const sink = openAudit({ audit: { enabled: true, path: dir } });
    sink.write(record("2026-11-29T10:00:00.000Z"));
    const file = path.join(dir, "2026-11-29.jsonl");
    while (!fs.existsSync(file) || fs.readFileSync(file, "utf8") === "") await new Promise((r) => setTimeout(r, 5));
    expect(JSON.parse(fs.readFileSync(file, "utf8")).time).toBe("2026-11-29T10:00:00.000Z");
    await sink.close();
    const exiting = `import { openAudit } from ${JSON.stringify(path.join(import.meta.dirname, "audit.ts"))};
      const sink = openAudit({ audit: { enabled: true, path: ${JSON.stringify(dir)} } });
      sink.write(${JSON.stringify(record("2026-11-30T10:00:00.000Z"))});
      process.exit(0);`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", exiting], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(JSON.parse(fs.readFileSync(path.join(dir, "2026-11-30.jsonl"), "utf8")).time).toBe("2026-11-30T10:00:00.000Z");
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

describe("isoTime", () => {
  it("is toISOString, whatever came before it", () => {
    const times = [Date.now(), 0, 999, 1000, 1001, -1, -999, -1000, 1_764_633_600_000, 1_764_633_600_007, 1_764_633_600_099, 1_764_633_600_100, 1_764_633_599_999, 253_402_300_800_000, -62_198_755_200_000, 1.5];
    for (let i = 0; i < 2000; i++) times.push(Math.floor(Math.random() * 4e12) - 1e12);
    for (const t of [...times, ...times.reverse()]) expect(isoTime(t)).toBe(new Date(t).toISOString());
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
