/**
 * Boundary 10 (hrev review of 204588d; the hole is older): nothing on disk becomes code that dist/mcpbox runs. The
 * chunks come from the binary, but the bundle's CommonJS `require` still resolves what the bundle does not hold
 * from disk: `debug` (under docker-modem) tried `require("supports-color")` at every start that loaded the engine
 * code (ps, serve, doctor...; the bundle now has a `debug` that prints nothing and asks for nothing:
 * scripts/sea/debug-off.cjs), ssh2 tries `require("cpu-features")` when an ssh DOCKER_HOST loads it, and Node looks
 * for them in node_modules folders above the chunk's URL
 * (/mcpbox/<build>/..., on Windows C:\mcpbox\..., which any local user may create) and in its global folders, one of
 * which is <the executable's folder>/../lib/node. A binary unpacked into a folder of a shared place (e.g.
 * /tmp/mcpbox-linux-x64/mcpbox: /tmp/lib/node) then runs a file another user planted there, as the user running it.
 * Here the shared place is a sticky 1777 folder and the planted file belongs to uid 65534.
 */
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../helpers/gateway.ts";

const DIST = path.join(REPO, "dist", "mcpbox");
const OTHER_UID = 65534;
let shared: string;
let marker: string;

beforeAll(() => {
  shared = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-sec-shared-"));
  fs.chmodSync(shared, 0o1777); // like /tmp: anyone may create entries
  fs.mkdirSync(path.join(shared, "mcpbox-linux-x64"));
  fs.copyFileSync(DIST, path.join(shared, "mcpbox-linux-x64", "mcpbox"));
  fs.chmodSync(path.join(shared, "mcpbox-linux-x64", "mcpbox"), 0o755);
  marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-sec-marker-")), "ran");
  // what another local user plants: every place Node's require looks for a package the bundle lacks
  const plant = (file: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `require("fs").appendFileSync(${JSON.stringify(marker)}, __filename + "\\n"); module.exports = false;\n`);
  };
  plant(path.join(shared, "lib", "node", "supports-color.js")); // <executable>/../../lib/node: Node's global folder
  plant(path.join(shared, "lib", "node", "supports-color", "index.js"));
  plant(path.join(shared, "lib", "node", "cpu-features.js"));
  plant(path.join(shared, "lib", "node", "cpu-features", "index.js"));
  if (typeof process.getuid === "function" && process.getuid() === 0) {
    spawnSync("chown", ["-R", `${OTHER_UID}:${OTHER_UID}`, path.join(shared, "lib")]);
  }
});

afterAll(() => {
  fs.rmSync(shared, { recursive: true, force: true });
  fs.rmSync(path.dirname(marker), { recursive: true, force: true });
});

/** An "ssh host" of the test's own on loopback: it takes the connection and closes it (ssh2 is loaded by then). */
let sshHost: net.Server;
let sshConnections = 0;
beforeAll(async () => {
  sshHost = net.createServer((s) => (sshConnections++, s.destroy()));
  await new Promise<void>((resolve) => sshHost.listen(0, "127.0.0.1", resolve));
});
afterAll(() => new Promise<void>((resolve) => sshHost.close(() => resolve())));

describe("dist/mcpbox runs no module file another user planted", () => {
  const ssh = () => ({ DOCKER_HOST: `ssh://nobody@127.0.0.1:${(sshHost.address() as net.AddressInfo).port}` });
  it.each([
    ["ps", {}],
    ["doctor --json", {}],
    ["ps, an ssh DOCKER_HOST (ssh2 loaded)", "ssh"],
  ] as const)("mcpbox %s", async (name, extra) => {
    const args = name.split(",")[0]!.split(" ");
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-sec-home-"));
    fs.rmSync(marker, { force: true });
    try {
      // not spawnSync: the ssh host answers from this process's event loop
      const r = await new Promise<{ error?: Error; code: number | null }>((resolve) =>
        execFile(
          path.join(shared, "mcpbox-linux-x64", "mcpbox"),
          args,
          {
            cwd: home,
            env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), NO_COLOR: "1", ...(extra === "ssh" ? ssh() : {}) },
            timeout: 60_000,
          },
          (error) => resolve({ ...(error && error.killed ? { error } : {}), code: error ? (typeof error.code === "number" ? error.code : null) : 0 }),
        ),
      );
      expect(r.error).toBeUndefined(); // it ran to its end (an exit code of its own: the ssh host closes at once)
      if (extra === "ssh") expect(sshConnections).toBeGreaterThan(0); // ssh2 was loaded: it dialled
      expect(fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "").toBe("");
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
