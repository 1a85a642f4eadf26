/**
 * How HTTP clients meet the gateway: each transport (one per Mcp-Session-Id, or one per stateless request) becomes a
 * client session of its own on the shared gateway (src/gateway/session.ts): the servers and their containers are
 * shared, each client's calls, progress, notifications and server-to-client requests are its own.
 */
import type { Gateway } from "../gateway/gateway.ts";
import type { ClientHost } from "./server.ts";

export function gatewayClients(gateway: Gateway): ClientHost {
  return {
    async open(transport) {
      await gateway.connect(transport);
    },
    modern: () => gateway.modernServer(),
    changes(listener) {
      gateway.changeListeners.add(listener);
      return () => void gateway.changeListeners.delete(listener);
    },
    holdResources: (uris) => gateway.holdSubscriptions(uris),
  };
}
