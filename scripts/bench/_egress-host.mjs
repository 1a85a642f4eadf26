// The bench's test host (egress section): the egress e2e fixture (test/fixtures/egress/host.mjs: HTTPS 443/8443,
// HTTP 80, TCP echo 7000) plus HTTPS on 9443 with two routes: /ttfb (a short answer, then the connection closes,
// so each request opens a fresh one: CONNECT + TLS every time) and /bytes/<n> (n bytes, streamed in 64 KiB chunks).
import https from "node:https";
import "/fixtures/host.mjs";

const { CERT, KEY } = process.env;
const CHUNK = Buffer.alloc(64 * 1024, 120);
const MAX = 64 * 1024 * 1024;

https
  .createServer({ cert: CERT, key: KEY }, (req, res) => {
    if (req.url === "/ttfb") {
      res.writeHead(200, { connection: "close", "content-type": "text/plain" });
      return res.end("ttfb");
    }
    const m = /^\/bytes\/(\d+)$/.exec(req.url ?? "");
    const n = m ? Number(m[1]) : -1;
    if (!(n >= 0 && n <= MAX)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(n), connection: "close" });
    let left = n;
    const pump = () => {
      while (left > 0) {
        const part = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
        left -= part.length;
        if (!res.write(part)) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  })
  .listen(9443);
