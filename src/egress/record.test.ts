import { describe, expect, it } from "vitest";
import { auditLine, formatRecord, parseRecord, type EgressRecord } from "./record.ts";
import { readSettings } from "./process.ts";
import { forwardHosts, forwarderSettings, serverProxyEnv } from "./settings.ts";
import { defaultGateways } from "./proxy.ts";

const record: EgressRecord = {
  time: "2026-12-01T09:00:00.000Z", server: "gh", host: "api.github.com", port: 443, outcome: "ok",
  bytesUp: 512, bytesDown: 4096, durationMs: 31, via: "connect",
};

describe("egress records", () => {
  it("round-trip through the proxy's stdout line", () => {
    expect(parseRecord(formatRecord(record))).toEqual(record);
  });

  it("becomes the SPEC 4.7 audit line", () => {
    expect(auditLine("s1", { ...record, outcome: "denied", reason: "not on the allowlist" })).toEqual({
      time: record.time, session: "s1", server: "gh", method: "egress", host: "api.github.com", port: 443, outcome: "denied",
      reason: "not on the allowlist", bytesUp: 512, bytesDown: 4096, duration: 31, via: "connect",
    });
  });

  it("ignores what is not a record and bounds what a server could influence", () => {
    for (const line of ["listening", "{not json", '{"type":"ready"}', JSON.stringify({ ...record }), formatRecord({ ...record, port: -1 }),
      JSON.stringify({ type: "egress", ...record, outcome: "maybe" }), `{"type":"egress","x":"${"a".repeat(5000)}"}`]) {
      expect(parseRecord(line)).toBeUndefined();
    }
    const forged = parseRecord(formatRecord({ ...record, host: `evil\u001b[2J\n${"x".repeat(400)}` }))!;
    expect(forged.host).toMatch(/^evil\?\[2J\?x+$/);
    expect(forged.host.length).toBe(300);
  });
});

describe("egress settings", () => {
  it("gives each host:port name its own loopback address, ports kept", () => {
    const f = forwarderSettings("db", ["api.example.com", "db.internal:5432", "db.internal:6379", "cache.internal:6379"]);
    expect(f).toEqual({
      role: "forward", socket: "/egress/db.sock", http: { listen: "127.0.0.1", port: 3128 },
      allow: ["api.example.com", "db.internal:5432", "db.internal:6379", "cache.internal:6379"],
      tcp: [
        { listen: "127.0.1.1", port: 5432, host: "db.internal" },
        { listen: "127.0.1.1", port: 6379, host: "db.internal" },
        { listen: "127.0.1.2", port: 6379, host: "cache.internal" },
      ],
    });
    expect(forwardHosts(f)).toEqual(["db.internal:127.0.1.1", "cache.internal:127.0.1.2"]);
  });

  it("sets the usual proxy variables and Node's switch for them", () => {
    expect(serverProxyEnv()).toMatchObject({ HTTPS_PROXY: "http://127.0.0.1:3128", HTTP_PROXY: "http://127.0.0.1:3128", NODE_USE_ENV_PROXY: "1", NO_PROXY: "localhost,127.0.0.1,::1" });
  });

  it("reads its settings back, refusing malformed ones", () => {
    const f = forwarderSettings("db", ["db.internal:5432"]);
    expect(readSettings({ MCPBOX_EGRESS: JSON.stringify(f) })).toEqual(f);
    expect(readSettings({})).toMatch(/not set/);
    expect(readSettings({ MCPBOX_EGRESS: "{" })).toMatch(/not JSON/);
    expect(readSettings({ MCPBOX_EGRESS: JSON.stringify({ role: "proxy", listeners: [{ server: "a" }] }) })).toMatch(/bad proxy/);
    expect(readSettings({ MCPBOX_EGRESS: JSON.stringify({ ...f, http: { listen: "127.0.0.1", port: 0 } }) })).toMatch(/bad forwarder/);
  });

  it("finds the default gateways in /proc/net/route", () => {
    const routes = "Iface\tDestination\tGateway \tFlags\n eth0\t00000000\t010071CB\t0003\neth0\t007100CB\t00000000\t0001\n";
    expect(defaultGateways(routes)).toEqual(["203.113.0.1"]);
  });
});
