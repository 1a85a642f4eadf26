/** The absolute path of a program on PATH: GUI clients (Claude Desktop on macOS) start servers with a minimal PATH. */
import fs from "node:fs";
import path from "node:path";

export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): string | undefined {
  const exts = platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").map((e) => e.toLowerCase()) : [""];
  for (const dir of (env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    for (const ext of exts) {
      const file = path.join(dir, name + ext);
      try {
        if (fs.statSync(file).isFile()) {
          if (platform !== "win32") fs.accessSync(file, fs.constants.X_OK);
          return file;
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
