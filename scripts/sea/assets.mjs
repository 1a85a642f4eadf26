/** The repository folders embedded in the binary as SEA assets (key = path from the repo root, with "/"). */
import fs from "node:fs";
import path from "node:path";

export const ASSET_DIRS = ["templates"];

export function assetFiles(root) {
  const keys = [];
  const walk = (rel) => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) keys.push(child);
    }
  };
  for (const dir of ASSET_DIRS) walk(dir);
  return keys.sort();
}
