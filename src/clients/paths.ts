/** The folders client config files live in, per OS: kept in `src/locations/dirs.ts`, named here for the clients. */
export { inHome, osOf, platformDirs, vscodeUserDir, type DirsInput } from "../locations/dirs.ts";
