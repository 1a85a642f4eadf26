/**
 * A monitor's connection to one gateway: the handshake first (./handshake.ts: nothing the endpoint says is believed
 * before it proves it knows the run file's key), then parsed messages in, commands out, replies matched by id.
 */
import fs from "node:fs";
import net from "node:net";
import { answerChallenge, HANDSHAKE_MS, proofMatches } from "./handshake.ts";
import type { PublishedGateway } from "./paths.ts";
import { encode, lineSplitter, parseMessage, type GatewayMessage } from "./protocol.ts";

export interface GatewayConnection {
  restart(server: string): Promise<void>;
  close(): void;
}

export interface ConnectHandlers {
  onMessage(message: GatewayMessage): void;
  /** the gateway went away (or the connection broke) */
  onClose(): void;
}

/**
 * Connects and authenticates; rejects when nobody listens (a stale entry), or the endpoint does not prove it is the
 * gateway of that run file (an older mcpbox, or something else under its name). A bare Unix socket path is looked
 * up in the run file beside it.
 */
export function connectGateway(target: Pick<PublishedGateway, "socket" | "key"> | string, handlers: ConnectHandlers): Promise<GatewayConnection> {
  const { socket, key } = typeof target === "string" ? { socket: target, key: keyBeside(target) } : target;
  return new Promise((resolve, reject) => {
    if (!key) return reject(new Error(`the gateway at ${socket} published no monitor key: it is an older mcpbox (restart it to watch it)`));
    const conn = net.createConnection(socket);
    const waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
    let nextId = 1;
    let open = false;
    let gatewayNonce: string | undefined;
    let monitorNonce: string | undefined;
    const refuse = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`the gateway at ${socket} ${why}`));
      conn.destroy();
    };
    const timer = setTimeout(() => refuse("did not complete the monitor handshake in time"), HANDSHAKE_MS);
    timer.unref();

    /** Before the welcome: only the challenge, then the welcome with the gateway's proof. */
    const handshake = (message: Record<string, unknown>) => {
      if (message.type === "challenge" && gatewayNonce === undefined && typeof message.nonce === "string") {
        gatewayNonce = message.nonce;
        const answer = answerChallenge(key, gatewayNonce);
        monitorNonce = answer.nonce;
        conn.write(encode(answer.message));
        return;
      }
      if (message.type === "welcome" && gatewayNonce !== undefined && proofMatches(key, "gateway", gatewayNonce, monitorNonce, message.proof)) {
        open = true;
        clearTimeout(timer);
        return resolve(connection);
      }
      refuse(message.type === "hello" ? "speaks the monitor protocol without a handshake: it is an older mcpbox (restart it)" : "did not prove it knows the key of its run file: not that gateway");
    };

    const connection: GatewayConnection = {
      restart(server) {
        const id = nextId++;
        return new Promise<void>((ok, fail) => {
          if (conn.destroyed) return fail(new Error("the gateway is gone"));
          waiting.set(id, { resolve: ok, reject: fail });
          conn.write(encode({ v: 1, type: "restart", server, id }));
        });
      },
      close: () => conn.destroy(),
    };

    conn.on(
      "data",
      lineSplitter(
        (line) => {
          const message = parseMessage(line);
          if (!open) return message ? handshake(message as unknown as Record<string, unknown>) : refuse("sent something that is not the monitor protocol");
          if (!message) return;
          if (message.type === "reply" && message.id !== undefined) {
            const w = waiting.get(message.id);
            waiting.delete(message.id);
            if (message.ok) w?.resolve();
            else w?.reject(new Error(message.error ?? "refused"));
            return;
          }
          handlers.onMessage(message);
        },
        () => conn.destroy(),
      ),
    );
    conn.on("error", (e) => {
      clearTimeout(timer);
      if (!open) reject(e);
    });
    conn.on("close", () => {
      clearTimeout(timer);
      if (!open) reject(new Error(`the gateway at ${socket} closed the connection during the monitor handshake`));
      for (const w of waiting.values()) w.reject(new Error("the gateway is gone"));
      waiting.clear();
      if (open) handlers.onClose();
    });
  });
}

/** The key in `<session>.json` beside `<session>.sock`, if any. */
function keyBeside(socket: string): string | undefined {
  if (!socket.endsWith(".sock")) return undefined;
  try {
    const entry = JSON.parse(fs.readFileSync(`${socket.slice(0, -".sock".length)}.json`, "utf8")) as { monitor?: { key?: unknown } };
    return typeof entry.monitor?.key === "string" ? entry.monitor.key : undefined;
  } catch {
    return undefined;
  }
}
