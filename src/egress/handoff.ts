/**
 * The forwarder hands its listening sockets (made in the server's network namespace) to the proxy once, over a unix
 * socket in the shared volume (SCM_RIGHTS). The proxy then accepts the server's connections itself: a byte goes
 * server → proxy → host, one process on the way as with any HTTP proxy, not two (each hop is a process wake-up per
 * direction, what a loaded machine pays most for: issue 13's first-byte figure). The forwarder still owns the
 * namespace, and serves by copying bytes until (or unless) the proxy has taken a listener.
 *
 * Node has no public API for passing a descriptor on a socket it did not spawn; the IPC pipe under child_process does
 * it (libuv's uv_write2 / pending handles), so this file uses that binding, as child_process itself does. Both ends
 * are mcpbox's own processes; the server never mounts the volume, so it can neither send nor take a listener.
 *   forwarder: listens on `<socket>.fd`, accepts one connection, sends each listener with a JSON line naming it, and
 *              closes its own copy of a listener once the proxy said "ok" for it.
 *   proxy:     connects there (retrying while the forwarder starts), takes each listener, answers "ok" per line.
 */
import fs from "node:fs";
import net from "node:net";

/** What a handed listener serves: the HTTP proxy port, or a `host:port` entry's plain TCP forward. */
export type Handed = { listener: "http" } | { listener: "tcp"; host: string; port: number };

const MAX_LINE = 1024;
const RETRY_MS = 20;

export const handoffPath = (socket: string) => `${socket}.fd`;

interface PipeHandle {
  open(fd: number): number;
  connect(req: object, path: string): number;
  readStart(): number;
  readStop(): number;
  writeUtf8String(req: object, text: string, handle?: object): number;
  close(cb?: () => void): void;
  unref(): void;
  onread: ((buf: ArrayBuffer | undefined) => void) | null;
  pendingHandle: object | null;
}
interface Bindings {
  newPipe(): PipeHandle;
  ConnectWrap: new () => { oncomplete: (status: number) => void };
  WriteWrap: new () => { oncomplete: (status: number) => void; handle: PipeHandle; async: boolean };
  state: Int32Array;
  kRead: number;
  kOffset: number;
  kAsync: number;
}

let bindings: Bindings | undefined;
function load(): Bindings {
  if (bindings) return bindings;
  const binding = (process as unknown as { binding(name: string): Record<string, any> }).binding;
  const pipe = binding("pipe_wrap");
  const stream = binding("stream_wrap");
  bindings = {
    newPipe: () => new pipe.Pipe(pipe.constants.IPC) as PipeHandle,
    ConnectWrap: pipe.PipeConnectWrap,
    WriteWrap: stream.WriteWrap,
    state: stream.streamBaseState,
    kRead: stream.kReadBytesOrError,
    kOffset: stream.kArrayBufferOffset,
    kAsync: stream.kLastWriteWasAsync,
  };
  return bindings;
}

/** Reads newline-framed lines off an IPC pipe; each line with the descriptor that came with it (if any). */
function readLines(p: PipeHandle, onLine: (line: string, handle: object | null) => void, onEnd: () => void): void {
  const b = load();
  let text = "";
  p.onread = (buf) => {
    const handle = p.pendingHandle;
    p.pendingHandle = null;
    const n = b.state[b.kRead]!;
    if (!buf || n < 0) return onEnd();
    text += Buffer.from(buf, b.state[b.kOffset]!, n).toString("utf8");
    if (text.length > MAX_LINE) return onEnd();
    let handed = handle;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n")) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      onLine(line, handed);
      handed = null;
    }
  };
  p.readStart();
}

function write(p: PipeHandle, text: string, handle?: object): Promise<boolean> {
  const b = load();
  return new Promise((resolve) => {
    const req = new b.WriteWrap();
    req.handle = p;
    req.async = false;
    req.oncomplete = (status) => resolve(status === 0);
    const err = handle ? p.writeUtf8String(req, text, handle) : p.writeUtf8String(req, text);
    if (err !== 0) return resolve(false);
    // a write done at once never calls oncomplete (child_process reads the same flag)
    if (!b.state[b.kAsync]) resolve(true);
  });
}

/**
 * The forwarder's end: hands each listener over in turn; `taken(i)` once the proxy holds listener i (the caller
 * closes its own copy then). Resolves when all were taken, or false when the proxy went away before that.
 */
export function offerListeners(socket: string, listeners: ReadonlyArray<{ server: net.Server; what: Handed }>, taken: (i: number) => void): { done: Promise<boolean>; close(): void } {
  const path = handoffPath(socket);
  fs.rmSync(path, { force: true });
  let finish: (ok: boolean) => void = () => {};
  const done = new Promise<boolean>((r) => (finish = r));
  const keep: unknown[] = [];
  const server = net.createServer({ pauseOnConnect: true }, (c) => {
    server.close(); // one proxy, once: nothing else gets a listener later
    c.on("error", () => {});
    // the accepted socket is not an IPC pipe; one is opened on its descriptor. The socket object is kept, never
    // closed (the pipe owns the descriptor now: closing both would close a number another socket may have taken)
    keep.push(c);
    c.unref();
    const p = load().newPipe();
    if (p.open((c as unknown as { _handle: { fd: number } })._handle.fd) !== 0) return finish(false);
    p.unref();
    let next = 0;
    const send = () => {
      if (next === listeners.length) return void write(p, `${JSON.stringify({ done: true })}\n`).then(() => finish(true));
      const l = listeners[next]!;
      const handle = (l.server as unknown as { _handle: object | null })._handle;
      if (!handle) return finish(false);
      void write(p, `${JSON.stringify(l.what)}\n`, handle).then((ok) => ok || end());
    };
    const end = () => {
      p.readStop();
      p.close();
      finish(next === listeners.length);
    };
    readLines(p, (line) => {
      if (line !== "ok") return end();
      taken(next++);
      send();
    }, end);
    send();
  });
  server.on("error", () => finish(false));
  // as the proxy's socket: uid 1000 alone (the folder is 0700 too)
  server.listen(path, () => {
    try {
      fs.chmodSync(path, 0o600);
    } catch {}
  });
  return { done, close: () => (server.close(), finish(false)) };
}

/**
 * The proxy's end: connects to the forwarder's handoff socket (retrying for up to waitMs while it starts) and calls
 * onListener with each listener handed over (a handle for net.Server.listen) and what it serves.
 */
export function takeListeners(socket: string, onListener: (what: Handed, handle: object) => void, waitMs = 30_000): { close(): void } {
  const path = handoffPath(socket);
  const deadline = Date.now() + waitMs;
  let closed = false;
  let pipe: PipeHandle | undefined;
  let timer: NodeJS.Timeout | undefined;
  const attempt = () => {
    if (closed) return;
    const b = load();
    const p = b.newPipe();
    const req = new b.ConnectWrap();
    req.oncomplete = (status) => {
      if (closed) return p.close();
      if (status !== 0) {
        p.close();
        if (Date.now() < deadline) timer = setTimeout(attempt, RETRY_MS);
        return;
      }
      pipe = p;
      readLines(p, (line, handle) => {
        if (line === '{"done":true}') return stop();
        const what = parseHanded(line);
        if (!what || !handle) return stop();
        onListener(what, handle);
        void write(p, "ok\n");
      }, stop);
    };
    if (p.connect(req, path) !== 0) {
      p.close();
      if (Date.now() < deadline) timer = setTimeout(attempt, RETRY_MS);
    }
  };
  const stop = () => {
    if (!pipe) return;
    const p = pipe;
    pipe = undefined;
    p.readStop();
    p.close();
  };
  attempt();
  return {
    close: () => {
      closed = true;
      clearTimeout(timer);
      stop();
    },
  };
}

function parseHanded(line: string): Handed | undefined {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (v.listener === "http") return { listener: "http" };
    if (v.listener === "tcp" && typeof v.host === "string" && v.host.length > 0 && v.host.length <= 255 &&
      Number.isInteger(v.port) && (v.port as number) >= 1 && (v.port as number) <= 65535) {
      return { listener: "tcp", host: v.host, port: v.port as number };
    }
  } catch {}
  return undefined;
}
