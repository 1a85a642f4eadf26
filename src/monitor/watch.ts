/**
 * The monitor side: finds published gateways (one session or all), connects to each, folds what they send into a
 * MonitorStore, and keeps looking for gateways that start later. A gateway that goes away stays on screen as gone.
 */
import { messageOf } from "../errors.ts";
import type { ServerRow } from "./fold.ts";
import { connectGateway, type GatewayConnection } from "./client.ts";
import { mcpboxHome } from "../home.ts";
import { listGateways, type PublishedGateway } from "./paths.ts";
import { MonitorStore } from "./store.ts";

export interface WatchOptions {
  home?: string;
  session?: string;
  /** how often to look for new gateways; 0: never */
  rescanMs?: number;
  /** how long a gateway that went away stays on screen, marked gone */
  forgetGoneMs?: number;
}

const FORGET_GONE_MS = 5 * 60_000;

export interface Watch {
  store: MonitorStore;
  restart(row: ServerRow): void;
  /** resolves once every gateway found at the start has sent its snapshot (or could not be reached) */
  ready: Promise<void>;
  close(): void;
}

export function findGateways(options: WatchOptions = {}): PublishedGateway[] {
  return listGateways(options.home ?? mcpboxHome()).filter((g) => !options.session || g.info.session === options.session);
}

export function watchGateways(found: PublishedGateway[], options: WatchOptions = {}): Watch {
  const store = new MonitorStore();
  const connections = new Map<string, GatewayConnection>();
  const pending = new Set<string>();
  let closed = false;

  const connect = async (gateway: PublishedGateway): Promise<void> => {
    const { session } = gateway.info;
    if (connections.has(session) || pending.has(session)) return;
    pending.add(session);
    let snapshot!: () => void;
    const gotSnapshot = new Promise<void>((r) => (snapshot = r));
    try {
      const conn = await connectGateway(gateway, {
        onMessage: (m) => {
          store.apply(session, m);
          if (m.type === "snapshot") snapshot();
        },
        onClose: () => {
          connections.delete(session);
          store.gone(session);
          snapshot();
          setTimeout(() => connections.has(session) || store.remove(session), options.forgetGoneMs ?? FORGET_GONE_MS).unref();
        },
      });
      if (closed) return conn.close();
      connections.set(session, conn);
      store.add(session, gateway.info);
      await gotSnapshot;
    } catch {
      // not listening (yet, or any more): the next scan tries again
    } finally {
      pending.delete(session);
    }
  };

  const ready = Promise.all(found.map(connect)).then(() => undefined);
  const timer = options.rescanMs ? setInterval(() => findGateways(options).forEach((g) => void connect(g)), options.rescanMs) : undefined;
  timer?.unref();

  return {
    store,
    ready,
    restart(row) {
      const conn = connections.get(row.session);
      if (!conn) return store.notify(`gateway ${row.session} is gone`);
      store.notify(`restarting ${row.server}…`);
      conn.restart(row.server).then(
        () => store.notify(`restarted ${row.server}`),
        (e: unknown) => store.notify(`restart of ${row.server} failed: ${messageOf(e)}`),
      );
    },
    close() {
      closed = true;
      if (timer) clearInterval(timer);
      for (const conn of connections.values()) conn.close();
      connections.clear();
    },
  };
}
