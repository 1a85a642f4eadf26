/** A monitor's connection to one gateway socket: parsed messages in, commands out, replies matched by id. */
import net from "node:net";
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

/** Connects; rejects when nobody listens on the socket (a stale entry). */
export function connectGateway(socket: string, handlers: ConnectHandlers): Promise<GatewayConnection> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket);
    const waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
    let nextId = 1;
    let open = false;
    conn.on(
      "data",
      lineSplitter(
        (line) => {
          const message = parseMessage(line);
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
    conn.once("connect", () => {
      open = true;
      resolve({
        restart(server) {
          const id = nextId++;
          return new Promise<void>((ok, fail) => {
            if (conn.destroyed) return fail(new Error("the gateway is gone"));
            waiting.set(id, { resolve: ok, reject: fail });
            conn.write(encode({ v: 1, type: "restart", server, id }));
          });
        },
        close: () => conn.destroy(),
      });
    });
    conn.on("error", (e) => {
      if (!open) reject(e);
    });
    conn.on("close", () => {
      for (const w of waiting.values()) w.reject(new Error("the gateway is gone"));
      waiting.clear();
      if (open) handlers.onClose();
    });
  });
}
