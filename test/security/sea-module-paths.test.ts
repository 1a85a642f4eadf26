/**
 * Boundary 10 (hrev review of 204588d; the hole is older): nothing on disk becomes code that dist/mcpbox runs. The
 * chunks come from the binary, but the bundle's CommonJS `require` still resolves what the bundle does not hold
 * from disk: `debug` (under docker-modem) tries `require("supports-color")` at every start that loads the engine
 * code (ps, serve, doctor...), and Node looks for it in node_modules folders above the chunk's URL
 * (/mcpbox/<build>/..., on Windows C:\mcpbox\..., which any local user may create) and in its global folders, one of
 * which is <the executable's folder>/../lib/node. A binary unpacked into a folder of a shared place (e.g.
 * /tmp/mcpbox-linux-x64/mcpbox: /tmp/lib/node) then runs a file another user planted there, as the user running it.
 * Here the shared place is a sticky 1777 folder and the planted file belongs to uid 65534.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
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
  if (typeof process.getuid === "function" && process.getuid() === 0) {
    spawnSync("chown", ["-R", `${OTHER_UID}:${OTHER_UID}`, path.join(shared, "lib")]);
  }
});

afterAll(() => {
  fs.rmSync(shared, { recursive: true, force: true });
  fs.rmSync(path.dirname(marker), { recursive: true, force: true });
});

describe("dist/mcpbox runs no module file another user planted", () => {
  it.each([["ps"], ["doctor", "--json"]])("mcpbox %s", (...args) => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-sec-home-"));
    fs.rmSync(marker, { force: true });
    try {
      const r = spawnSync(path.join(shared, "mcpbox-linux-x64", "mcpbox"), args, {
        cwd: home,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), NO_COLOR: "1" },
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(r.error).toBeUndefined();
      expect(fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "").toBe("");
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
