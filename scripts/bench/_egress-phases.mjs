// Runs inside a bench client container (egress profile, _egress-profile.mjs): one HTTPS request on a fresh connection,
// by hand, with a timestamp per step, so the time through the proxy can be split into its hops.
//   <host> <port> <n> [proxyHost proxyPort]: n requests; per request ms at tcp (connected), connect (the
//   proxy's 200, proxied only), tls (handshake done), first (first byte of the answer). Prints one JSON line.
import net from "node:net";
import tls from "node:tls";
import fs from "node:fs";

const [host, portText, nText, proxyHost, proxyPortText] = process.argv.slice(2);
const ca = fs.readFileSync("/ca/cert.pem");

function once() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const at = {};
    const mark = (k) => { at[k] = performance.now() - t0; if (process.env.TRACE) process.stderr.write(`C ${k} ${(performance.timeOrigin + performance.now()).toFixed(3)}\n`); };
    if (process.env.TRACE) process.stderr.write(`C start ${(performance.timeOrigin + performance.now()).toFixed(3)}\n`);
    const sock = net.connect({ host: proxyHost ?? host, port: Number(proxyPortText ?? portText), noDelay: true });
    sock.once("error", reject);
    const startTls = () => {
      const t = tls.connect({ socket: sock, servername: host, ca });
      t.once("error", reject);
      t.once("secureConnect", () => {
        mark("tls");
        t.write(`GET /ttfb HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      });
      t.once("data", () => {
        mark("first");
        t.destroy();
        resolve(at);
      });
    };
    sock.once("connect", () => {
      mark("tcp");
      if (!proxyHost) return startTls();
      sock.write(`CONNECT ${host}:${portText} HTTP/1.1\r\nHost: ${host}:${portText}\r\n\r\n`);
      let head = "";
      const onData = (d) => {
        head += d.toString("latin1");
        if (!head.includes("\r\n\r\n")) return;
        sock.off("data", onData);
        if (!head.startsWith("HTTP/1.1 200")) return reject(new Error(head));
        mark("connect");
        startTls();
      };
      sock.on("data", onData);
    });
  });
}

const samples = [];
for (let i = 0; i < Number(nText); i++) samples.push(await once());
console.log(JSON.stringify({ samples }));
