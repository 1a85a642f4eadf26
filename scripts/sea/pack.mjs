/**
 * Many small files as one SEA asset: their bytes one after the other, each found by `at[name] = [offset, length]`
 * (kept in the manifest). Node reads every asset's header (its name and size) as it starts, so a hundred assets put
 * the pages around each of them in every process (issue 15: the executable's resident pages); one asset's pages are
 * read only where a file in it is. Used for the compile cache, which a warm start never reads (the chunks, which it
 * reads, gained nothing packed: measured, 2880 kB of the blob resident either way).
 */
import fs from "node:fs";
import path from "node:path";

/** Writes `out` from `files` (names, read from `dir`) and returns where each lies in it. */
export function packFiles(files, dir, out) {
  const at = {};
  let offset = 0;
  const parts = files.map((name) => {
    const bytes = fs.readFileSync(path.join(dir, name));
    at[name] = [offset, bytes.length];
    offset += bytes.length;
    return bytes;
  });
  fs.writeFileSync(out, Buffer.concat(parts));
  return at;
}
