/**
 * `serve --http` settings and start-up (SPEC 4.9): the flags checked before anything starts, the token made or read,
 * then the listener in front of the gateway. The gateway side (clients.ts) decides how many clients it takes.
 */
import { McpboxError } from "../errors.ts";
import type { Gateway } from "../gateway/gateway.ts";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../gateway/stdio.ts";
import { tokenFile } from "../home.ts";
import { isLoopback, parseListen, type ListenAddress } from "./address.ts";
import { gatewayClients } from "./clients.ts";
import { startHttp, type HttpGateway } from "./server.ts";
import { ensureToken, TokenSource } from "./token.ts";

export interface HttpSettings {
  listen: ListenAddress;
  token: TokenSource | undefined;
}

/** undefined without --http; throws a usage error for flags that do not go together. */
export function httpSettings(options: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): HttpSettings | undefined {
  const open = options.allowUnauthenticated === true;
  if (options.http === undefined) {
    if (open) throw new McpboxError("usage", "--allow-unauthenticated goes with --http only", { hint: "serve over HTTP with --http [host:]port, or drop the flag" });
    return undefined;
  }
  const listen = parseListen(options.http);
  if (open && !isLoopback(listen.host)) {
    throw new McpboxError("usage", `--allow-unauthenticated refuses ${listen.host}: anyone who can reach that address could use every server`, {
      hint: "listen on 127.0.0.1 (the default) without a token, or keep the token on other addresses",
    });
  }
  if (open) return { listen, token: undefined };
  const file = tokenFile(env);
  return { listen, token: new TokenSource(file, ensureToken(file)) };
}

export async function serveHttp(gateway: Gateway, settings: HttpSettings, log: (line: string) => void): Promise<HttpGateway> {
  let served: HttpGateway;
  try {
    served = await startHttp({ ...settings, host: gatewayClients(gateway), log, maxBodyBytes: DEFAULT_MAX_MESSAGE_BYTES });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const where = `${settings.listen.host}:${settings.listen.port}`;
    if (code === "EADDRINUSE") throw new McpboxError("failed", `cannot listen on ${where}: the port is in use`, { hint: "pick another port with --http [host:]port" });
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") throw new McpboxError("failed", `cannot listen on ${where}: no such address on this machine`, { hint: "use 127.0.0.1 or an address of this machine" });
    if (code === "EACCES") throw new McpboxError("failed", `cannot listen on ${where}: permission denied`, { hint: "pick a port above 1023" });
    throw e;
  }
  if (settings.token) log(`serving ${served.url} (clients send Authorization: Bearer <token>; \`mcpbox token\` prints it)`);
  else log(`warning: serving ${served.url} WITHOUT a token (--allow-unauthenticated): any local program or user can use every server`);
  return served;
}
