/**
 * `node probe.cjs snapshot.cjs` (scripts/sea/snapshot.mjs): loads the snapshot bundle as the snapshot build will, with
 * every source of per-process state watched, and prints JSON { reads, names }: reads lists each access during the
 * load (what was read, where), names the export names of each namespace the bundle registered. A value read at the
 * top level of a snapshotted script is the build machine's, in every binary; the build fails on any read.
 */
"use strict";
const os = require("node:os");
const crypto = require("node:crypto");
const { performance } = require("node:perf_hooks");

const target = process.argv[2];
const reads = [];
let watching = true;
function note(what) {
  if (!watching) return;
  const at = (new Error().stack || "").split("\n").slice(3, 5).map((l) => l.trim().replace(/^at /, "")).join(" <- ");
  reads.push(`  ${what} at ${at}`);
}

const restore = [];
function watch(obj, key, what) {
  const desc = Object.getOwnPropertyDescriptor(obj, key);
  if (!desc || !desc.configurable) return; // argv0 is fixed at start and the same for a binary
  restore.push(() => Object.defineProperty(obj, key, desc));
  if (typeof desc.value === "function") {
    const fn = desc.value;
    Object.defineProperty(obj, key, { ...desc, value: function (...args) { note(what); return Reflect.apply(fn, this, args); } });
  } else {
    const get = desc.get ? desc.get : () => desc.value;
    Object.defineProperty(obj, key, { configurable: true, enumerable: desc.enumerable, get() { note(what); return get.call(this); } });
  }
}

const env = process.env;
watch(process, "env", "process.env");
watch(process, "argv", "process.argv");
watch(process, "execArgv", "process.execArgv");
watch(process, "pid", "process.pid");
watch(process, "ppid", "process.ppid");
watch(process.hrtime, "bigint", "process.hrtime.bigint()");
const bigint = process.hrtime.bigint;
for (const k of ["cwd", "hrtime", "uptime", "memoryUsage", "cpuUsage", "getuid", "geteuid", "getgid", "getegid", "umask", "resourceUsage"]) watch(process, k, `process.${k}()`);
process.hrtime.bigint = bigint; // on the watched hrtime as well
for (const k of ["hostname", "homedir", "tmpdir", "userInfo", "cpus", "totalmem", "freemem", "networkInterfaces", "uptime", "loadavg", "availableParallelism"]) watch(os, k, `os.${k}()`);
for (const k of ["randomBytes", "randomUUID", "randomInt", "getRandomValues", "randomFillSync"]) watch(crypto, k, `crypto.${k}()`);
if (globalThis.crypto) for (const k of ["randomUUID", "getRandomValues"]) watch(Object.getPrototypeOf(globalThis.crypto), k, `globalThis.crypto.${k}()`);
watch(Math, "random", "Math.random()");
watch(Date, "now", "Date.now()");
watch(Object.getPrototypeOf(performance), "now", "performance.now()");
const RealDate = Date;
// `new Date()` and `Date()` without arguments read the clock; with one they do not
globalThis.Date = new Proxy(RealDate, {
  construct(target, args, newTarget) {
    if (args.length === 0) note("new Date()");
    return Reflect.construct(target, args, newTarget);
  },
  apply(target, self, args) {
    note("Date()");
    return Reflect.apply(target, self, args);
  },
});

let registry;
try {
  require(target);
  registry = globalThis[Symbol.for("mcpbox.snapshot")];
} finally {
  watching = false;
  globalThis.Date = RealDate;
  for (const r of restore.reverse()) r();
  void env;
}
if (!registry) throw new Error("the snapshot bundle registered nothing");
const names = {};
for (const [entry, ns] of Object.entries(registry)) names[entry] = Object.keys(ns);
process.stdout.write(JSON.stringify({ reads, names }));
