/**
 * Config discovery (SPEC 1): the working folder, then each folder above it, for the SPEC's names only; never past
 * the repository root (a folder holding .git) or the user's home, and never into a folder the user does not own
 * or that other users may write (a file planted there is not the user's config). Root's folders count as the user's:
 * only root can plant a file there, and root can replace mcpbox itself. The file system is passed in.
 */
import path from "node:path";

export interface DiscoverFs {
  uid: number | undefined;
  home: string;
  exists: (p: string) => boolean;
  stat: (p: string) => { uid: number; mode: number } | undefined;
}

export interface Discovery {
  file: string | undefined;
  /** the folders searched, nearest first */
  searched: string[];
  /** why the search stopped where it did */
  stop: string;
}

export function discover(cwd: string, names: readonly string[], dfs: DiscoverFs): Discovery {
  const searched: string[] = [];
  const home = path.resolve(dfs.home);
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const foreign = notTheUsers(dir, dfs);
    if (foreign) return { file: undefined, searched, stop: `before ${dir}, which ${foreign}` };
    searched.push(dir);
    const file = names.map((n) => path.join(dir, n)).find((f) => dfs.exists(f));
    if (file) return { file, searched, stop: "found" };
    if (dfs.exists(path.join(dir, ".git"))) return { file: undefined, searched, stop: `at the repository root ${dir}` };
    if (dir === home) return { file: undefined, searched, stop: `at your home folder ${dir}` };
    if (path.dirname(dir) === dir) return { file: undefined, searched, stop: "at /" };
  }
}

function notTheUsers(dir: string, dfs: DiscoverFs): string | undefined {
  if (dfs.uid === undefined) return undefined;
  const st = dfs.stat(dir);
  if (!st) return "cannot be read";
  if (st.uid !== dfs.uid && st.uid !== 0) return `is owned by uid ${st.uid}, not by you`;
  if (st.mode & 0o022) return "other users can write";
  return undefined;
}
