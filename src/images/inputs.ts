/**
 * The files a build reads from the host, each held to its folder (guard.ts): a local package, the CA bundle, the
 * user's Dockerfile; and the strings that reach a rendered Dockerfile, held free of control characters.
 */
import fs from "node:fs";
import path from "node:path";
import { isLocalPackage } from "../config/checks.ts";
import { hostPath } from "../config/resolve.ts";
import { McpboxError } from "../errors.ts";
import { fileAt, folderFiles, type ContextFile } from "./context.ts";
import { isInside, readRegular, realSource } from "./guard.ts";
import { controlCharIn, shellQuote } from "./render.ts";

/**
 * A local folder or archive goes into the context under package/ (only what is really inside the config's folder,
 * or the folder named); a registry spec adds nothing.
 */
export function packageFiles(spec: string, dir: string, where: string): { local: boolean; path: string; files: ContextFile[] } {
  if (!isLocalPackage(spec)) return { local: false, path: "", files: [] };
  const abs = hostPath(dir, spec);
  if (!fs.existsSync(abs)) {
    throw new McpboxError("config", `package ${spec} does not exist (${abs})`, {
      hint: "a local package is a folder or archive path relative to the config file",
    });
  }
  const real = realSource(dir, abs, where);
  if (fs.statSync(real).isDirectory()) {
    return { local: true, path: "/mcpbox-build/package", files: folderFiles(real, "package/", { where }) };
  }
  const file = path.basename(abs);
  const archive = { name: `package/${file}`, ...readRegular(real, where, false) };
  return { local: true, path: `/mcpbox-build/package/${shellQuote(file)}`, files: [archive] };
}

export function caFile(file: string, shown: string): ContextFile {
  try {
    return fileAt("mcpbox/ca.crt", file, `${shown}: build.caCerts`);
  } catch (e) {
    if (e instanceof McpboxError) throw e;
    throw new McpboxError("config", `cannot read the CA bundle ${file}`, { cause: e, hint: "check build.caCerts or --ca-cert" });
  }
}

/** The Dockerfile's "/"-separated path inside the context; one outside it (`../x`, `/abs`) is refused. */
export function dockerfileIn(context: string, dockerfile: string, where: string): string {
  const abs = path.resolve(context, dockerfile);
  if (!isInside(context, abs)) {
    throw new McpboxError("config", `${where}: ${dockerfile} is outside the build context ${context}`, {
      hint: "a build reads nothing outside its folder: move the Dockerfile into the context (dockerfile is relative to it)",
    });
  }
  return path.relative(context, abs).split(path.sep).join("/");
}

/** What reaches a rendered Dockerfile holds no control character (the renderer refuses them too). */
export function refuseControl(value: string, where: string) {
  const control = controlCharIn(value);
  if (control === undefined) return;
  throw new McpboxError("config", `${where}: holds a control character (${control}), which would end a Dockerfile line`, {
    hint: "remove newlines and other control characters from it",
  });
}

export const shownFile = (file: string) => {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith("..") ? rel : file;
};
