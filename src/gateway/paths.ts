/**
 * The path-argument guard (SPEC 4.4): every string in a call's arguments that names a path must stay inside the
 * server's mount targets (or its private /tmp), judged in the container's posix terms. Pure.
 *
 * What it judges, at any depth (array items take the name of their array):
 * - values of properties named like a path (`path`, `file_path`, `sourceDir`, ...) or listed in `pathArguments`;
 * - values of URI-like properties (`uri`, `url`, `href`, ...) that are `file:` URIs or bare paths;
 * - any value that is a `file:` URI, whatever its property (scheme in any case, `localhost` host, %-encoding).
 * A path is refused when any reading of it lands outside: as written, %-decoded, with `\` as a separator. Relative
 * paths and `~` are refused: the server's working folder is unknown to the gateway, so where they land cannot be told.
 * Arguments too deep or too large to walk are refused rather than half judged.
 */
import path from "node:path";

const posix = path.posix;

/** Word parts of argument names that name a path. */
const PATH_WORDS = new Set([
  "path", "paths", "pathname", "file", "files", "filename", "filepath", "dir", "dirs", "dirname",
  "directory", "directories", "root", "roots", "folder", "folders",
]);
/**
 * Word parts of argument names that hold a URI, or often a path (`move_file(source, destination)`, `cwd`): judged
 * when the value is a `file:` URI or looks like a path (starts with / \ ~ or .), so `source: "en"` still passes.
 */
const URI_WORDS = new Set([
  "uri", "uris", "url", "urls", "href", "hrefs",
  "source", "sources", "src", "destination", "destinations", "dest", "target", "targets", "cwd", "workdir",
  "location", "locations", "input", "output",
]);

/** The container's own scratch space: a tmpfs that holds nothing from the host. */
export const SCRATCH = "/tmp";
/** Bounds of the walk: a deeper or larger argument is refused (it cannot stall the gateway). */
export const MAX_DEPTH = 32;
export const MAX_VALUES = 1_000_000;
export const MAX_PATHS = 10_000;
/** How much of a refused value the reason quotes. */
const SHOWN = 200;

type Kind = "path" | "uri" | "other";
const judged = new Map<string, Kind>();

/** true for `path`, `file_path`, `sourceDir`, `root-directory`, ...: any word part names a path. */
export function looksLikePathArgument(name: string): boolean {
  return kindOf(name) === "path";
}

/** A property name, not data used as a key (a map of file names to contents, as the code runner's `files`). */
const NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

function kindOf(name: string): Kind {
  let kind = judged.get(name);
  if (kind === undefined && !NAME.test(name)) kind = "other";
  if (kind === undefined) {
    const words = name
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^a-z0-9]+/);
    const lower = name.toLowerCase();
    kind = words.some((w) => PATH_WORDS.has(w)) || PATH_WORDS.has(lower) ? "path" : words.some((w) => URI_WORDS.has(w)) ? "uri" : "other";
    if (judged.size < 10_000) judged.set(name, kind); // argument names come from tool schemas: a few dozen
  }
  return kind;
}

/** Is `p` (absolute, normalized) equal to or inside `root`? */
export function isInside(p: string, root: string): boolean {
  const r = root === "/" ? "/" : root.replace(/\/+$/, "");
  return p === r || p.startsWith(r === "/" ? "/" : `${r}/`);
}

const FILE_URI = /^file:/i;
/** A URL with a scheme other than file (`https://`, `s3://`): not a file system path, unless a server reads it as one. */
const OTHER_URL = /^[a-z][a-z0-9+.-]+:\/\//i;
const CLIMBS = /(^|[/\\])\.\.([/\\]|$)/;
const TAB_OR_NEWLINE = new Set([0x09, 0x0a, 0x0d]);

/** How many C0 controls and spaces `v` starts with. */
function blanksBefore(v: string): number {
  let i = 0;
  while (i < v.length && v.charCodeAt(i) <= 0x20) i++;
  return i;
}

/**
 * `v` as URL parsers read it (the URL standard, so Node's `new URL` and `fileURLToPath`; Python's urlsplit) when that
 * is a `file:` URI, else undefined: they cut leading and trailing C0 controls and spaces and drop tabs and newlines
 * anywhere, so ` file:///etc/passwd` and `fi\tle:///etc/passwd` name /etc/passwd to a server. Loops, not regexes:
 * the value is the caller's, and a backtracking trim would take quadratic time on a long run of spaces.
 */
function fileUri(v: string): string | undefined {
  const first = v.charCodeAt(0);
  if ((first === 0x66 || first === 0x46) && FILE_URI.test(v)) return v;
  if (first > 0x20 && first !== 0x66 && first !== 0x46) return undefined; // cannot become one
  const start = blanksBefore(v);
  let head = "";
  for (let i = start; i < v.length && head.length < 5; i++) if (!TAB_OR_NEWLINE.has(v.charCodeAt(i))) head += v[i];
  if (head.toLowerCase() !== "file:") return undefined;
  let end = v.length;
  while (end > start && v.charCodeAt(end - 1) <= 0x20) end--;
  return v.slice(start, end).replace(/[\t\n\r]/g, "");
}

/** A `..` segment as written or once %-decoded (a value decoded past 4 rounds counts as climbing). */
const climbs = (v: string) => CLIMBS.test(v) || CLIMBS.test(percentDecoded(v) ?? "..");

/**
 * Every place a path value may land in the container, normalized; undefined when one of them cannot be told
 * (relative, home-relative, a NUL, a file URI on another host or badly encoded).
 */
export function containerPaths(value: string): string[] | undefined {
  const readings = FILE_URI.test(value) ? fileUriPaths(value) : [value];
  if (readings === undefined) return undefined;
  const out = new Set<string>();
  for (const r of readings) {
    const decoded = percentDecoded(r);
    if (decoded === undefined) return undefined;
    const forms = new Set([r, decoded, r.replaceAll("\\", "/"), decoded.replaceAll("\\", "/")]);
    for (const p of forms) {
      if (p.includes("\0") || !p.startsWith("/")) return undefined;
      out.add(posix.normalize(p));
    }
  }
  return [...out];
}

/**
 * The path of a `file:` URI as the URL standard reads it and as naive parsers do (the scheme and authority cut by
 * hand, with and without what follows `?` or `#`); undefined for another host or a URI the standard refuses.
 */
function fileUriPaths(value: string): string[] | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.hostname !== "" && url.hostname.toLowerCase() !== "localhost") return undefined;
  const authority = /^[/\\]{2}([^/\\]*)/.exec(value.slice(5));
  if (authority && authority[1] !== "" && authority[1]!.toLowerCase() !== "localhost") return undefined;
  const rest = value.slice(5 + (authority?.[0].length ?? 0));
  return [url.pathname, rest.split(/[?#]/, 1)[0]!, rest];
}

/** %-decodes valid escapes until nothing changes (%252e is %2e is .), as lenient decoders do; undefined past 4 rounds. */
function percentDecoded(s: string): string | undefined {
  if (!s.includes("%")) return s;
  let v = s;
  for (let i = 0; i < 4; i++) {
    const next = v.replace(/(?:%[0-9a-f]{2})+/gi, (run) => Buffer.from(run.replaceAll("%", ""), "hex").toString("utf8"));
    if (next === v) return v;
    v = next;
  }
  return undefined;
}

export type PathVerdict = { ok: true } | { ok: false; argument: string; value: string; reason: string };

/**
 * Checks every path in the arguments (see the header). `extraNames` are property names (or dotted paths such as
 * `options.target`) from the server's `pathArguments`, judged as paths whatever they are called.
 */
export function checkPathArguments(
  args: Readonly<Record<string, unknown>>,
  mountTargets: readonly string[],
  extraNames: readonly string[] = [],
): PathVerdict {
  if (args === null || typeof args !== "object") return { ok: true };
  return new Walk(rootsOf(mountTargets), extraNames).object(args, 0) ?? { ok: true };
}

/** The roots a path may lie under and their words in a refusal, once per list of mount targets (per server). */
const roots = new WeakMap<readonly string[], { roots: readonly string[]; where: string }>();
function rootsOf(mountTargets: readonly string[]): { roots: readonly string[]; where: string } {
  let r = roots.get(mountTargets);
  if (!r) roots.set(mountTargets, (r = { roots: [...mountTargets, SCRATCH], where: mountTargets.join(", ") || "no mounts" }));
  return r;
}

type Refusal = Extract<PathVerdict, { ok: false }>;

/** One walk over one call's arguments; where it stands is a stack of keys and indices, made a label only to refuse. */
class Walk {
  #values = 0;
  #paths = 0;
  #at: (string | number)[] = [];
  readonly #roots: readonly string[];
  readonly #where: string;
  readonly #extra: readonly string[];

  constructor(at: { roots: readonly string[]; where: string }, extra: readonly string[]) {
    this.#roots = at.roots;
    this.#where = at.where;
    this.#extra = extra;
  }

  object(o: object, depth: number): Refusal | undefined {
    const record = o as Record<string, unknown>;
    for (const name of Object.keys(record)) {
      this.#at.push(name);
      const refusal = this.#value(record[name], this.#kind(name), depth + 1);
      this.#at.pop();
      if (refusal) return refusal;
    }
    return undefined;
  }

  #kind(name: string): Kind {
    if (this.#extra.length > 0 && (this.#extra.includes(name) || this.#extra.includes(this.#dotted()))) return "path";
    return kindOf(name);
  }

  #value(v: unknown, kind: Kind, depth: number): Refusal | undefined {
    if (++this.#values > MAX_VALUES) return this.#refuse("", `the arguments hold more than ${MAX_VALUES} values, too many for mcpbox to check their paths`);
    if (typeof v === "string") return v === "" ? undefined : this.#string(v, kind);
    if (v === null || typeof v !== "object") return undefined;
    if (depth > MAX_DEPTH) return this.#refuse("", `argument "${this.#label()}" is nested deeper than ${MAX_DEPTH} levels, too deep for mcpbox to check its paths`);
    if (!Array.isArray(v)) return this.object(v, depth);
    for (let i = 0; i < v.length; i++) {
      this.#at.push(i);
      const refusal = this.#value(v[i], kind, depth + 1); // items are judged by their array's name
      this.#at.pop();
      if (refusal) return refusal;
    }
    return undefined;
  }

  #string(v: string, kind: Kind): Refusal | undefined {
    const uri = fileUri(v);
    const file = uri !== undefined;
    if (!file) {
      if (kind === "other") return undefined;
      if (OTHER_URL.test(v)) {
        // https:, s3:, ...: not a path (egress is another guard), unless a server reading it as one could climb
        if (!climbs(v)) return undefined;
        return this.#refuse(v, `argument "${this.#label()}" (${shown(v)}) is a URL with a .. segment, refused where a path is expected (${this.#where})`);
      }
      // a host name or a relative URL, not a path; unless it climbs: `x/../../proc/self/environ` is a relative path
      // that a server resolving it from its working folder (often /) reads outside every mount
      // (after leading blanks, which a server may trim)
      if (kind === "uri" && !/^[/\\~.]/.test(v.slice(blanksBefore(v))) && !climbs(v)) return undefined;
    }
    if (++this.#paths > MAX_PATHS) return this.#refuse(v, `the arguments hold more than ${MAX_PATHS} paths, too many for mcpbox to check`);
    const places = containerPaths(uri ?? v);
    if (places === undefined) {
      const why = v.startsWith("~")
        ? "starts with ~ (a home folder)"
        : v.includes("\0")
          ? "holds a NUL byte"
          : file
            ? "is a file: URI that mcpbox cannot place (another host, a relative path, or bad encoding)"
            : (percentDecoded(v) ?? "").startsWith("/") || v.startsWith("\\")
              ? "cannot be read as one path (%-encoding nested too deep)"
              : "is a relative path (the server's working folder is unknown)";
      return this.#refuse(v, `argument "${this.#label()}" (${shown(v)}) ${why}: give an absolute path inside the folders this server may use (${this.#where})`);
    }
    if (places.every((p) => this.#roots.some((root) => isInside(p, root)))) return undefined;
    return this.#refuse(v, `argument "${this.#label()}" (${shown(v)}) is outside the folders this server may use (${this.#where})`);
  }

  /** `edits[1].path` */
  #label(): string {
    return this.#at.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? k : `.${k}`)).join("");
  }

  /** `options.target`: the keys without the indices, as `pathArguments` may name them */
  #dotted(): string {
    return this.#at.filter((k) => typeof k === "string").join(".");
  }

  #refuse(value: string, reason: string): Refusal {
    return { ok: false, argument: this.#label(), value, reason };
  }
}

const shown = (v: string) => (v.length > SHOWN ? `${v.slice(0, SHOWN)}…` : v);
