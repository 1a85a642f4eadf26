/**
 * Boundary 14 for `mcpbox init --from` (hrev round 5), against dist/mcpbox: a cloned repository's (or unpacked
 * archive's) `.cursor/mcp.json`, read for a user who has no Cursor file of their own, is the attacker. The
 * sandbox.config.ts it becomes is run as a module by every later command: whatever its strings hold (quotes, `${`,
 * backticks, U+2028/U+2029, `*` + `/`, newlines, bidi overrides), the file is data that `validate` accepts, nothing
 * in it runs (a marker the strings would write, were they code, never appears; the control shows that the same
 * statement as code does write it when validate loads the file), the reader sees every character (no raw separator,
 * bidi or zero-width character), and no secret of the entries reaches it, not even as a comment. A project file
 * that is a FIFO or a link to a device, or nests deeper than a parser recurses, fails at once (exit 1), naming it;
 * one another local user owns, or in a folder others may write, is not taken for the user's own (as discovery).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpboxCommand } from "../helpers/gateway.ts";
import { tempDir } from "./_hostile.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

function mcpbox(args: string[], cwd: string, home: string, timeout = 60_000) {
  const { command, args: pre } = mcpboxCommand();
  const env = { ...process.env, HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), XDG_CONFIG_HOME: path.join(home, ".config"), NO_COLOR: "1" };
  const r = spawnSync(command, [...pre, ...args], { cwd, encoding: "utf8", timeout, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, timedOut: (r.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT" };
}

/** A cloned repository holding `.cursor/mcp.json` (what `write` gives it), and a home without a Cursor file. */
function clone(prefix: string, write: (file: string) => void) {
  const dir = tempDir(prefix);
  made.push(dir);
  const home = path.join(dir, "home");
  const repo = path.join(dir, "repo");
  fs.mkdirSync(home);
  fs.mkdirSync(path.join(repo, ".cursor"), { recursive: true });
  write(path.join(repo, ".cursor", "mcp.json"));
  return { dir, home, repo };
}

const SECRETS = ["hunter2pass", "k3y-abc123def", "pypi-AgEIcHlwaS5vcmc", "eyJhbGciOiJIUzI1NiJ9.e30"];
const HIDING = /[\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]/u;

describe("init --from a cloned repository's hostile client file", () => {
  it("writes data that validates, runs nothing, hides nothing and holds no secret", () => {
    let marker = "";
    const { home, repo } = clone("init-hostile", (file) => {
      const root = path.dirname(path.dirname(file));
      marker = path.join(path.dirname(root), "MARKER");
      const code = `process.getBuiltinModule("fs").writeFileSync(${JSON.stringify(marker)}, "ran")`;
      const payloads = [`"); ${code}; ("`, `\${${code}}`, "`; " + code + "; `", `\u2028${code}; //`, `\u2029${code}; //`, `*/ ${code}; /*`];
      const servers = {
        [`notes\u2028${code}`]: {
          command: "npx",
          args: ["-y", "@us/notes", ...payloads, "ok\u202e\u2066\u200bdone", "--header", `Authorization: Bearer ${SECRETS[3]}`],
          env: { PLAIN: payloads[3], API_TOKEN: "not-copied-value-1" },
        },
        [`\n${code}\n//`]: { command: "docker", args: ["run", "-i", "--rm", "-e", "A B=1", "--health-cmd", `\n${code}\n`, "img:1", payloads[4]] },
        py: { command: "uvx", args: ["--index-url", `https://__token__:${SECRETS[2]}@pypi.example.com/simple`, "--python", `\n${code}\n`, "mcp-x"] },
        remote: { url: `https://me:${SECRETS[0]}@mcp.example.com/sse?api_key=${SECRETS[1]}&n=\n${code}\n` },
        // the repository's own folder, writable: the server could rewrite the config it runs from
        rw: { command: "docker", args: ["run", "-i", "-v", `${root}:/work:rw`, "img:1"] },
      };
      fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }));
    });

    const init = mcpbox(["init", "--from", "cursor"], repo, home);
    expect(init.stderr).not.toMatch(/^\s+at /m);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/3 converted, 2 kept as comments/);
    const text = fs.readFileSync(path.join(repo, "sandbox.config.ts"), "utf8");
    expect(HIDING.test(text), text).toBe(false);
    for (const s of SECRETS) expect(text).not.toContain(s);
    expect(text).not.toContain("not-copied-value-1");
    expect(text).not.toMatch(/^\s*dangerous/m);
    expect(text).toMatch(/\/\/ rw: validate would refuse it: mounts\.0\.readOnly: is writable and holds/);
    expect(`${init.stdout}${init.stderr}`).not.toMatch(new RegExp(SECRETS.join("|")));

    const validate = mcpbox(["validate"], repo, home);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/sandbox\.config\.ts is valid: 3 servers/);
    expect(fs.existsSync(marker)).toBe(false);

    // the control: the same statement as code runs when validate loads the file
    fs.writeFileSync(path.join(repo, "sandbox.config.ts"), `process.getBuiltinModule("fs").writeFileSync(${JSON.stringify(marker)}, "ran");\nexport default { servers: {} };\n`);
    mcpbox(["validate"], repo, home);
    expect(fs.readFileSync(marker, "utf8")).toBe("ran");
  });

  it("refuses a project file another local user owns or could swap, and reads it when the user names it", () => {
    const { home, repo } = clone("init-theirs", (f) => fs.writeFileSync(f, JSON.stringify({ mcpServers: { theirs: { command: "npx", args: ["-y", "@them/server"] } } })));
    const file = path.join(repo, ".cursor", "mcp.json");
    fs.chownSync(file, 4242, 4242); // the tests run as root (CI too), who may give a file away
    const r = mcpbox(["init", "--from", "cursor"], repo, home);
    expect(r.stderr).not.toMatch(/^\s+at |internal error/m);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`--from cursor would read the project file ${file}: refused: owned by uid 4242`);
    expect(fs.existsSync(path.join(repo, "sandbox.config.ts"))).toBe(false);
    fs.chownSync(file, process.getuid!(), process.getgid!());
    fs.chmodSync(repo, 0o777); // a shared folder without the sticky bit: anyone may replace .cursor
    expect(mcpbox(["init", "--from", "cursor"], repo, home).stderr).toMatch(/refused: its folder .*repo is writable by other users/);
    fs.chmodSync(repo, 0o755);
    const named = mcpbox(["init", "--from", file], repo, home);
    expect(named.code, named.stderr).toBe(0);
    expect(fs.readFileSync(path.join(repo, "sandbox.config.ts"), "utf8")).toContain("@them/server");
    expect(named.stderr).not.toContain("another user");
    // named by the user but another user's: read as named, and said to be so
    fs.chownSync(file, 4242, 4242);
    const theirs = mcpbox(["init", "--force", "--from", file], repo, home);
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(theirs.stderr).toContain(`note: ${file} belongs to another user (uid 4242): read because you named it; check its servers before you serve them`);
  });

  it("fails at once, naming the file, for a FIFO, a link to a device and a nesting bomb", () => {
    const cases: Array<[string, (file: string) => void, RegExp]> = [
      ["init-fifo", (f) => spawnSync("mkfifo", [f]), /mcp\.json is not a regular file \(a FIFO\)/],
      // /dev/zero is writable by all: refused as a file others could change (as discovery would), or as no regular file
      ["init-device", (f) => fs.symlinkSync("/dev/zero", f), /mcp\.json (\(-> \/dev\/zero\): refused: writable by other users|is not a regular file \(a device\))/],
      ["init-deep", (f) => fs.writeFileSync(f, `{"mcpServers":{"a":{"command":"npx","args":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}`), /mcp\.json: cannot be read: it nests values too deeply/],
    ];
    for (const [prefix, write, message] of cases) {
      const { home, repo } = clone(prefix, write);
      const r = mcpbox(["init", "--from", "cursor"], repo, home, 15_000);
      expect(r.timedOut, prefix).toBe(false);
      expect(r.stderr).not.toMatch(/^\s+at |internal error/m);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(fs.existsSync(path.join(repo, "sandbox.config.ts"))).toBe(false);
    }
  });
});
