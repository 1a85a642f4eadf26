// Runs inside a bench client container (egress section), through `docker exec`: measures with Node's fetch, which
// goes through the proxy variables mcpbox sets when they are there (NODE_USE_ENV_PROXY=1), and prints one JSON line.
//   ttfb <url> <n>: n requests one after the other; for each, ms from fetch() to the response's headers (first byte)
//   bulk <url> <bytes>: one download; ms from fetch() to the last byte, and the bytes read (checked)
const [mode, url, arg] = process.argv.slice(2);
const n = Number(arg);

async function ttfb() {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const ms = performance.now() - t0;
    const body = await res.text();
    if (res.status !== 200 || body !== "ttfb") throw new Error(`ttfb: ${res.status} ${body.slice(0, 200)}`);
    samples.push(ms);
  }
  return { samples };
}

async function bulk() {
  const t0 = performance.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(120_000) });
  if (res.status !== 200) throw new Error(`bulk: ${res.status}`);
  let bytes = 0;
  for await (const chunk of res.body) bytes += chunk.length;
  const ms = performance.now() - t0;
  if (bytes !== n) throw new Error(`bulk: read ${bytes} bytes, not ${n}`);
  return { ms, bytes };
}

try {
  console.log(JSON.stringify(mode === "ttfb" ? await ttfb() : await bulk()));
} catch (e) {
  console.log(JSON.stringify({ error: String(e?.cause?.message ?? e?.message ?? e) }));
  process.exitCode = 1;
}
