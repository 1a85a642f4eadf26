import { describe, expect, it } from "vitest";
import { parseAllowlist } from "./allowlist.ts";
import { decide } from "./decide.ts";

const dnsTable: Record<string, string[]> = {
  "api.example.com": ["140.82.112.3"],
  "rebind.example.com": ["10.0.0.5"],
  "mixed.example.com": ["127.0.0.1", "140.82.112.4"],
  "gw.example.com": ["203.0.113.1"],
  "meta.example.com": ["169.254.169.254"],
  "0x7f000001": ["127.0.0.1"], // getaddrinfo reads hex and octal dotted forms as inet_aton does
  "xn--bcher-kva.example.com": ["140.82.112.5"],
};
const resolve = async (h: string) => {
  const found = dnsTable[h];
  if (!found) throw new Error("ENOTFOUND");
  return found;
};
const verdict = (allow: string[], host: string, port: number) =>
  decide(host, port, { rules: parseAllowlist(allow).rules, resolve, gateways: ["203.0.113.1"] });

describe("decide", () => {
  it("allows a listed name and returns the checked address to connect to", async () => {
    expect(await verdict(["api.example.com"], "api.example.com", 443)).toEqual({ ok: true, address: "140.82.112.3", rule: "api.example.com" });
  });

  it("refuses what is not listed, and unlisted ports", async () => {
    expect(await verdict(["api.example.com"], "other.example.com", 443)).toMatchObject({ ok: false, reason: "not on the allowlist" });
    expect(await verdict(["api.example.com"], "api.example.com", 22)).toMatchObject({ ok: false });
  });

  it("refuses a listed name that resolves to a private, metadata or gateway address unless an entry names it", async () => {
    expect(await verdict(["rebind.example.com"], "rebind.example.com", 443)).toMatchObject({ ok: false, reason: /10\.0\.0\.5 \(private\)/ });
    expect(await verdict(["*.example.com"], "meta.example.com", 80)).toMatchObject({ ok: false, reason: /link-local/ });
    expect(await verdict(["gw.example.com"], "gw.example.com", 443)).toMatchObject({ ok: false, reason: /gateway/ });
    expect(await verdict(["rebind.example.com", "10.0.0.5/32:443"], "rebind.example.com", 443)).toMatchObject({ ok: true, address: "10.0.0.5" });
    expect(await verdict(["rebind.example.com", "10.0.0.5/32:80"], "rebind.example.com", 443)).toMatchObject({ ok: false });
  });

  it("connects only to an address that passed, never to a refused one", async () => {
    expect(await verdict(["mixed.example.com"], "mixed.example.com", 443)).toEqual({ ok: true, address: "140.82.112.4", rule: "mixed.example.com" });
  });

  it("IP literals: only an address entry allows them; * allows public ones only", async () => {
    expect(await verdict(["api.example.com"], "140.82.112.3", 443)).toMatchObject({ ok: false });
    expect(await verdict(["10.0.0.5/32:443"], "10.0.0.5", 443)).toMatchObject({ ok: true });
    expect(await verdict(["10.0.0.5/32:443"], "[::ffff:10.0.0.5]", 443)).toMatchObject({ ok: true, address: "10.0.0.5" });
    expect(await verdict(["*"], "140.82.112.3", 443)).toMatchObject({ ok: true });
    expect(await verdict(["*"], "127.0.0.1", 443)).toMatchObject({ ok: false, reason: /loopback/ });
    expect(await verdict(["*"], "rebind.example.com", 443)).toMatchObject({ ok: false });
  });

  it("refuses names that do not resolve and requests that are not names", async () => {
    expect(await verdict(["nx.example.com"], "nx.example.com", 443)).toMatchObject({ ok: false, reason: /does not resolve/ });
    expect(await verdict(["*"], "bad host", 443)).toMatchObject({ ok: false, reason: /not a valid host/ });
    expect(await verdict(["*"], "api.example.com", 0)).toMatchObject({ ok: false, reason: /port/ });
  });

  it("refuses the other spellings of a forbidden address, whatever the list (an attacker's forms)", async () => {
    for (const host of ["2130706433", "017700000001", "127.1", "0177.0.0.1", "[fe80::1%25eth0]", "[::ffff:10.0.0.5%eth0]"]) {
      expect(await verdict(["*", "10.0.0.5/32:443"], host, 443), host).toMatchObject({ ok: false, reason: "not a valid host name" });
    }
    for (const host of ["0x7f000001", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]", "[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[::]"]) {
      expect(await verdict(["*"], host, 443), host).toMatchObject({ ok: false });
    }
  });

  it("matches names as the DNS does: case and a trailing dot aside, nothing else passes for a listed one", async () => {
    expect(await verdict(["api.example.com"], "API.Example.COM.", 443)).toMatchObject({ ok: true, address: "140.82.112.3" });
    for (const host of ["api.example.com.evil.test", "evil-api.example.com", "api.example.com..", "api.example.com\u0000", "api\u3002example.com", "xapi.example.com"]) {
      expect(await verdict(["api.example.com"], host, 443), host).toMatchObject({ ok: false });
    }
    expect(await verdict(["*.example.com"], "example.com", 443)).toMatchObject({ ok: false, reason: "not on the allowlist" });
    expect(await verdict(["*.example.com"], "bücher.example.com", 443)).toMatchObject({ ok: false, reason: "not a valid host name" });
    expect(await verdict(["*.example.com"], "xn--bcher-kva.example.com", 443)).toMatchObject({ ok: true });
  });
});
