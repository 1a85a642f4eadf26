/** The pieces of `init --from`: launch parsing, docker run flags to policy, env to secrets, redaction, literals. */
import { describe, expect, it } from "vitest";
import { convertEntry, npxLaunch, uvxLaunch } from "./convert.ts";
import { convertDockerRun, parseRunArgs } from "./docker-run.ts";
import { redactedCommand, redactText, splitEnv } from "./secrets.ts";
import { literal } from "./emit.ts";
import { uniqueName } from "./index.ts";
import { extractEntries } from "./extract.ts";
import { parseJsonc } from "../formats/json.ts";
import type { ImportEnv } from "./types.ts";

const existing = new Set(["/home/me/projects", "/home/me/projects/notes", "/home/me/data/app.db", "/srv/data", "/var/run/docker.sock", "/home/me"]);
const env: ImportEnv = { home: "/home/me", exists: (p) => existing.has(p), realpath: (p) => p };

describe("npx and uvx", () => {
  it("reads the package and its arguments", () => {
    expect(npxLaunch(["-y", "@modelcontextprotocol/server-memory@2026.8.31", "--flag"])).toEqual({
      template: "node",
      package: "@modelcontextprotocol/server-memory@2026.8.31",
      args: ["--flag"],
      notes: [],
    });
    expect(npxLaunch(["--yes", "--package=@scope/pkg", "pkg-bin", "a"])).toMatchObject({ package: "@scope/pkg", args: ["a"] });
    expect(npxLaunch(["--weird"])).toBe("npx option --weird is not understood");
  });

  it("turns uvx specs into pip specs, and --from into the package", () => {
    expect(uvxLaunch(["mcp-server-fetch@2025.4.7", "--ignore-robots-txt"])).toMatchObject({
      template: "python",
      package: "mcp-server-fetch==2025.4.7",
      args: ["--ignore-robots-txt"],
    });
    expect(uvxLaunch(["--from", "mcp-server-git==1.2", "mcp-server-git", "--repository", "/r"])).toMatchObject({
      package: "mcp-server-git==1.2",
      args: ["--repository", "/r"],
      notes: [],
    });
    expect(uvxLaunch(["--from", "git+https://github.com/x/y", "y"])).toMatch(/from a URL/);
    expect(uvxLaunch(["--python", "3.12", "pkg@latest"])).toMatchObject({ package: "pkg" });
  });
});

describe("host paths become mounts", () => {
  it("mounts each existing path at /data/<basename> and rewrites the arguments", () => {
    const c = convertEntry("fs", { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/projects", "~/projects/notes"], env: {} }, env);
    expect(c).toMatchObject({
      kind: "converted",
      server: {
        template: "node",
        args: ["/data/projects", "/data/notes"],
        mounts: [
          { source: "/home/me/projects", target: "/data/projects" },
          { source: "/home/me/projects/notes", target: "/data/notes" },
        ],
      },
    });
  });

  it("rewrites --flag=/path and env values too; a missing or sensitive path keeps the server out", () => {
    const c = convertEntry("db", { command: "uvx", args: ["mcp-server-sqlite", "--db-path=/home/me/data/app.db"], env: { DB: "/home/me/data/app.db" } }, env);
    expect(c).toMatchObject({ server: { args: ["--db-path=/data/app.db"], env: { DB: "/data/app.db" } } });
    expect(convertEntry("x", { command: "npx", args: ["pkg", "/nope"], env: {} }, env)).toMatchObject({
      kind: "skipped",
      reason: "/nope does not exist on this machine",
    });
    expect(convertEntry("x", { command: "npx", args: ["pkg", "/home/me"], env: {} }, env)).toMatchObject({
      kind: "skipped",
      reason: expect.stringMatching(/your home folder/),
    });
  });
});

describe("docker run", () => {
  it("splits flags, the image and its arguments", () => {
    expect(parseRunArgs(["-it", "--rm", "-e", "A", "--memory=1g", "img:1", "serve", "-x"])).toEqual({
      flags: [
        { name: "-i", value: undefined },
        { name: "-t", value: undefined },
        { name: "--rm", value: undefined },
        { name: "-e", value: "A" },
        { name: "--memory", value: "1g" },
      ],
      image: "img:1",
      rest: ["serve", "-x"],
    });
    expect(parseRunArgs(["--frobnicate", "img"]).unknown).toBe("--frobnicate");
  });

  it("turns flags into policy and never copies -e values", () => {
    const r = convertDockerRun(
      ["-i", "--rm", "-e", "TOKEN", "-e", "API_KEY=sk-abcdefghijklmnopqrstuvwxyz", "-v", "/srv/data:/data:ro", "--mount", "type=bind,source=/home/me/projects,target=/work",
        "--network", "mcp-net", "--memory", "256m", "--cpus", "0.5", "--pids-limit", "64", "--user", "1001", "--cap-add", "NET_ADMIN", "ghcr.io/x/y:1", "stdio"],
      env,
    );
    expect(r.server).toEqual({
      image: "ghcr.io/x/y:1",
      args: ["stdio"],
      mounts: [
        { source: "/srv/data", target: "/data" },
        { source: "/home/me/projects", target: "/work" },
      ],
      network: { network: "mcp-net" },
      limits: { memory: "256m", cpus: 0.5, pids: 64 },
      user: "1001",
      secrets: { TOKEN: { env: "TOKEN" }, API_KEY: { env: "API_KEY" } },
    });
    expect(JSON.stringify(r)).not.toContain("sk-abcdef");
    expect(r.notes.join("\n")).toMatch(/--cap-add NET_ADMIN dropped/);
    expect(r.notes.join("\n")).toMatch(/--mount type=bind,source=\/home\/me\/projects,target=\/work mounted read-only \(docker's default is read-write\)/);
  });

  it("mounts -v and --mount folders read-only unless the command says rw", () => {
    const mounts = (args: string[]) => convertDockerRun([...args, "img"], env).server?.mounts;
    expect(mounts(["-v", "/srv/data:/data"])).toEqual([{ source: "/srv/data", target: "/data" }]);
    expect(mounts(["-v", "/srv/data:/data:z"])).toEqual([{ source: "/srv/data", target: "/data" }]);
    expect(mounts(["-v", "/srv/data:/data:rw"])).toEqual([{ source: "/srv/data", target: "/data", readOnly: false }]);
    expect(mounts(["--mount", "type=bind,src=/srv/data,dst=/data,readonly=false"])).toEqual([{ source: "/srv/data", target: "/data", readOnly: false }]);
    expect(mounts(["--mount", "type=bind,src=/srv/data,dst=/data,ro"])).toEqual([{ source: "/srv/data", target: "/data" }]);
  });

  it("refuses the Docker socket, a root user and host networking in its own ways", () => {
    expect(convertDockerRun(["-v", "/var/run/docker.sock:/var/run/docker.sock", "img"], env).problem).toMatch(/container engine socket/);
    const r = convertDockerRun(["--user", "root", "--network", "host", "img"], env);
    expect(r.server).toEqual({ image: "img", network: "bridge" });
    expect(r.notes.join("\n")).toMatch(/--user root dropped/);
  });
});

describe("env and redaction", () => {
  it("says which host variable a reference hands over (hrev round 5)", () => {
    expect(splitEnv({ X: "${env:AWS_SECRET_ACCESS_KEY}" }).notes).toEqual([
      "secret X: `mcpbox serve` gives it the value of AWS_SECRET_ACCESS_KEY from its own environment, as the client did",
    ]);
  });

  it("keeps plain values, makes references and credentials secrets by name", () => {
    expect(splitEnv({ LOG: "debug", TOKEN: "${env:GH}", KEY: "$OTHER", DB_PASSWORD: "x", V: "{env:OC}", IN: "${input:tok}" })).toMatchObject({
      env: { LOG: "debug" },
      secrets: { TOKEN: { env: "GH" }, KEY: { env: "OTHER" }, DB_PASSWORD: { env: "DB_PASSWORD" }, V: { env: "OC" }, IN: { env: "IN" } },
    });
  });

  it("hides secret values in shown command lines", () => {
    expect(redactedCommand("node", ["s.js", "--token", "abc", "--api-key=xyz", "ghp_0123456789abcdefghij0123456789"])).toBe(
      "node s.js --token <redacted> --api-key=<redacted> <redacted>",
    );
    expect(redactedCommand("docker", ["run", "-e", "A=b", "img"])).toBe("docker run -e A=<redacted> img");
    // hrev round 5: the joined forms, which a skipped entry (an unknown flag) showed as written
    expect(redactedCommand("docker", ["run", "--env=DB_PASS=hunter2", "-eAPI=plainvalue", "--frob", "img"])).toBe(
      "docker run --env=DB_PASS=<redacted> -eAPI=<redacted> --frob img",
    );
  });
});

describe("output", () => {
  it("prints TypeScript literals with bare keys where possible", () => {
    expect(literal({ a: 1, "b-c": ["x"], d: { e: true } }, 0)).toBe('{ a: 1, "b-c": ["x"], d: { e: true } }');
  });

  it("makes valid, unique server names", () => {
    const taken = new Set<string>();
    expect(["GitHub", "github", "My Server!", "---", "x".repeat(60)].map((n) => uniqueName(n, taken))).toEqual([
      "github",
      "github-2",
      "my-server",
      "server",
      "x".repeat(44),
    ]);
  });
});

describe("reading every client's shape", () => {
  it("finds entries under each client's key", () => {
    const names = (doc: unknown) => extractEntries(doc, undefined).map((f) => [f.name, f.entry.command, f.entry.args, f.entry.env, f.entry.remote]);
    expect(names({ mcp: { a: { type: "local", command: ["npx", "-y", "p"], environment: { K: "v" } }, r: { type: "remote", url: "u" } } })).toEqual([
      ["a", "npx", ["-y", "p"], { K: "v" }, undefined],
      ["r", undefined, [], {}, "u"],
    ]);
    expect(names({ extensions: { g: { cmd: "uvx", args: ["x"], envs: { A: "1" }, type: "stdio" }, dev: { type: "builtin", name: "developer" } } })).toEqual([
      ["g", "uvx", ["x"], { A: "1" }, undefined],
      ["dev", undefined, [], {}, "goose builtin"],
    ]);
    expect(names({ context_servers: { z: { command: { path: "npx", args: ["p"], env: {} } } } })).toEqual([["z", "npx", ["p"], {}, undefined]]);
    expect(names({ mcpServers: [{ name: "c", command: "npx", args: ["p"] }] })).toEqual([["c", "npx", ["p"], {}, undefined]]);
    expect(names({ mcp_servers: { x: { command: "uvx", args: ["p"] } } })).toEqual([["x", "uvx", ["p"], {}, undefined]]);
    expect(names({ mcp: { servers: { v: { type: "stdio", command: "npx", args: [] } } } })).toEqual([["v", "npx", [], {}, undefined]]);
  });

  it("reads Claude Code's per-project servers for the working folder", () => {
    const doc = { mcpServers: { u: { command: "npx", args: ["a"] } }, projects: { "/w": { mcpServers: { p: { command: "npx", args: ["b"] } } } } };
    expect(extractEntries(doc, undefined, "/w").map((f) => f.name)).toEqual(["p", "u"]);
    expect(extractEntries(doc, undefined, "/other").map((f) => f.name)).toEqual(["u"]);
  });
});

describe("hostile entries (hrev round 5)", () => {
  it("writes every hiding character of a string as an escape of the same value, and __proto__ as a key", () => {
    const value = { a: "x\u2028y\u2029\u202ez\u2066\u00a0\u200b\u{e0041}\u0085\u007f é日本\\\u2028", b: ["${x}`", '"); x("'] } as Record<string, unknown>;
    Object.defineProperty(value, "__proto__", { value: { env: "P" }, enumerable: true });
    const text = literal(value, 0);
    expect(text).not.toMatch(/[\u2028\u2029\u202e\u2066\u00a0\u200b\u0085\u007f]|\u{e0041}/u);
    expect(text).toContain('["__proto__"]: { env: "P" }');
    expect(text).toContain("é日本"); // other text stays readable
    const back = new Function(`return (${text});`)() as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(back)).toEqual(["a", "b", "__proto__"]);
    expect(JSON.stringify(back)).toBe(JSON.stringify(value));
  });

  it("never copies a secret into a comment: URL passwords and keys, header values, token-looking words", () => {
    const shown = [
      "uvx --index-url https://__token__:pypi-AgEIcHlwaS5vcmc@pypi.example.com/simple dropped",
      "https://user:hunter2pass@mcp.example.com/sse?api_key=abc123def&page=2",
      "npx mcp-remote https://x.io --header Authorization: Bearer eyJhbGciOi.J9 --header X-API-Key:k3y-v4lue --header Authorization:Basic dXNlcjpwYXNz",
      "https://actions.zapier.com/mcp/sk-ak-0123456789abcdefghijkl/sse",
    ].map(redactText);
    for (const secret of ["pypi-AgEI", "hunter2pass", "abc123def", "eyJhbGciOi", "k3y-v4lue", "dXNlcjpwYXNz", "sk-ak-0123"]) {
      expect(shown.join("\n")).not.toContain(secret);
    }
    expect(shown[0]).toBe("uvx --index-url https://__token__:<redacted>@pypi.example.com/simple dropped");
    expect(shown[1]).toBe("https://user:<redacted>@mcp.example.com/sse?api_key=<redacted>&page=2");
    expect(redactText("a remote server (nothing runs locally to sandbox); keep it in the client; Basic authentication")).toBe(
      "a remote server (nothing runs locally to sandbox); keep it in the client; Basic authentication",
    );
  });

  it("removes credential arguments a remote proxy carries, with their --header flag", () => {
    const c = convertEntry(
      "remote",
      { command: "npx", args: ["-y", "mcp-remote", "https://mcp.example.com/sse?token=t0ken123", "--header", "Authorization: Bearer eyJhbGciOi.J9", "--debug"], env: {} },
      env,
    );
    expect(c).toMatchObject({ kind: "converted", server: { package: "mcp-remote", args: ["--debug"] } });
    expect(JSON.stringify(c)).not.toMatch(/t0ken123|eyJhbGciOi/);
    // mcp-remote's documented form names a variable it fills from its environment: kept, the variable a secret
    const ref = convertEntry("r", { command: "npx", args: ["mcp-remote", "https://x.io/sse", "--header", "Authorization:${AUTH_HEADER}"], env: { AUTH_HEADER: "Bearer abc123def456" } }, env);
    expect(ref).toMatchObject({ server: { args: ["https://x.io/sse", "--header", "Authorization:${AUTH_HEADER}"], secrets: { AUTH_HEADER: { env: "AUTH_HEADER" } } } });
    // a variable named like a header is prose in a note, not a header whose value is hidden
    for (const note of ["secret GITHUB_PERSONAL_ACCESS_TOKEN: its value was not copied", "secret TOKEN: its value was not copied"]) expect(redactText(note)).toBe(note);
  });

  it("takes only variable names from docker -e and the client's env, never __proto__ or an inherited key", () => {
    expect(convertDockerRun(["--cpus", "Infinity", "img"], env).server?.limits).toBeUndefined(); // JSON would write null
    const r = convertDockerRun(["-e", "A B=1", "-e", "__proto__", "-e", "OK", "img"], env);
    expect(r.server?.secrets).toEqual({ OK: { env: "OK" } });
    expect(r.notes).toContain('-e "A B" dropped: not a variable name');
    const c = convertEntry("d", { command: "docker", args: ["run", "-e", "X", "img"], env: { toString: "z", X: "plain", __proto__: "p" } }, env);
    expect(c).toMatchObject({ server: { env: { X: "plain" } } });
    expect((c as unknown as { server: { env: object } }).server.env).toEqual({ X: "plain" });
    expect(splitEnv(JSON.parse('{"__proto__": "sk-abcdefghijklmnopqrstuvwxyz", "A": "1"}') as Record<string, string>)).toEqual({
      env: { A: "1" },
      secrets: {},
      notes: ['env "__proto__" dropped: not a variable name'],
    });
  });
});

describe("a __proto__ key (hrev round 5)", () => {
  it("is an own key, as every client's parser reads it: it hides no server and makes none appear", () => {
    const doc = parseJsonc('{"__proto__": {"mcpServers": {"hidden": {"command": "npx", "args": ["evil"]}}}, "mcpServers": {"__proto__": {"command": "npx", "args": ["p"]}, "a": {"args": ["x"], "__proto__": {"command": "npx"}}}}', "f");
    expect(doc).toEqual(JSON.parse('{"__proto__": {"mcpServers": {"hidden": {"command": "npx", "args": ["evil"]}}}, "mcpServers": {"__proto__": {"command": "npx", "args": ["p"]}, "a": {"args": ["x"], "__proto__": {"command": "npx"}}}}'));
    const found = extractEntries(doc, undefined).map((f) => [f.name, f.entry.command, f.entry.args]);
    expect(found).toEqual([
      ["a", undefined, ["x"]], // the one without a command of its own is skipped later ("no command")
      ["__proto__", "npx", ["p"]],
    ]);
  });
});
