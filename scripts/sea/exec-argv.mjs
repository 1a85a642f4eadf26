/**
 * The V8 flags the single executable runs with (its SEA execArgv, scripts/build.mjs), in one place: the build, and
 * whatever must run a Node exactly as the binary does (a compile-cache entry made for the binary's folder,
 * test/binary-unpack.test.ts; the bench's reference Nodes), take them from here. Node names its compile-cache folder
 * by a hash of these flags, so a Node with other flags reads and writes another folder.
 */
// V8 sizes its young generation for throughput: up to 2 x 16 MB committed that the gateway fills with short-lived
// garbage (a heap snapshot after 20k calls holds no more than at start). With 1 MB, serve with 10 servers: 136 -> 105 MB
// at start and +11 MB instead of +25 MB after 20k calls, at the same calls/s (issue 15).
// No TurboFan (--no-turbofan; Maglev is the top tier): a gateway routes messages whose heavy work (JSON, buffers,
// regular expressions) is native code; its JavaScript gains nothing measurable from TurboFan (16 in flight, 6 x 2000
// calls: 9083 vs 7842 calls/s, 44 vs 56 us CPU per call; echo p50 0.96 vs 0.98 ms), while TurboFan's code (and
// Turboshaft's) touched in the executable stays resident: serve with 10 servers 82.2-82.5 -> 77.8-80.4 MB, its
// executable pages 46.3-46.8 -> 41.0 MB. (--max-opt=2 saves the same but made the cached start 14-16 ms slower,
// 113 -> 127 ms; --no-turbofan does not, 90.5 vs 92.1 ms, 12 rounds each.) Issue 15
export const EXEC_ARGV = ["--max-semi-space-size=1", "--no-turbofan"];
