// Links /opt/mcpbox/server to the binary of the package that `npm install` added to /opt/mcpbox/app:
// its only bin, or the one named like the package.
import fs from "node:fs";
import path from "node:path";

const app = "/opt/mcpbox/app";
const deps = Object.keys(JSON.parse(fs.readFileSync(`${app}/package.json`, "utf8")).dependencies ?? {});
if (deps.length !== 1) throw new Error(`expected one installed package, found: ${deps.join(", ") || "none"}`);
const name = deps[0];
const dir = path.join(app, "node_modules", name);
const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
const bins = typeof pkg.bin === "string" ? { [name.replace(/^@[^/]+\//, "")]: pkg.bin } : (pkg.bin ?? {});
const names = Object.keys(bins);
const chosen = names.length === 1 ? names[0] : names.find((b) => b === name.replace(/^@[^/]+\//, ""));
if (!chosen) {
  console.error(`${name} has ${names.length ? `several binaries (${names.join(", ")})` : "no binary (bin)"}: set command in the config`);
  process.exit(1);
}
fs.symlinkSync(path.resolve(dir, bins[chosen]), "/opt/mcpbox/server");
console.log(`entrypoint: ${name} bin ${chosen} -> ${bins[chosen]}`);
