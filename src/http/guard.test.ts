import { describe, expect, it } from "vitest";
import { isLoopback, parseListen } from "./address.ts";
import { allowedHosts, checkBearer, checkHost, checkOrigin } from "./guard.ts";

describe("parseListen", () => {
  it("takes [host:]port with 127.0.0.1:8808 as the default", () => {
    expect(parseListen(true)).toEqual({ host: "127.0.0.1", port: 8808 });
    expect(parseListen("9000")).toEqual({ host: "127.0.0.1", port: 9000 });
    expect(parseListen("localhost:9000")).toEqual({ host: "localhost", port: 9000 });
    expect(parseListen("[::1]:9000")).toEqual({ host: "::1", port: 9000 });
    expect(parseListen("0.0.0.0:0")).toEqual({ host: "0.0.0.0", port: 0 });
  });
  it("refuses what is not one, naming the form", () => {
    for (const bad of ["", "x", "1.2.3.4:", "70000", "::1:80", "[nothost]:80", "a:b"]) expect(() => parseListen(bad)).toThrow(/\[host:\]port|0 to 65535|IPv6/);
  });
  it("tells loopback addresses", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"]) expect(isLoopback(h)).toBe(true);
    for (const h of ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "evil.example", "localhost.evil.example"]) expect(isLoopback(h)).toBe(false);
  });
});

describe("Host and Origin", () => {
  const hosts = allowedHosts({ host: "127.0.0.1", port: 8808 });
  it("takes the listener's own names with the port", () => {
    for (const h of ["127.0.0.1:8808", "localhost:8808", "LOCALHOST:8808", "[::1]:8808"]) expect(checkHost(h, hosts)).toBeUndefined();
  });
  it("refuses a rebinding name, a missing Host and another port", () => {
    for (const h of ["evil.example:8808", "127.0.0.1", "127.0.0.1:8809", undefined, "localhost.evil.example:8808"]) expect(checkHost(h, hosts)?.status).toBe(403);
  });
  it("takes a missing Origin and loopback origins, refuses the rest", () => {
    for (const o of [undefined, "http://localhost:3000", "http://127.0.0.1", "https://[::1]:1"]) expect(checkOrigin(o)).toBeUndefined();
    for (const o of ["http://evil.example", "null", "file://", "http://127.0.0.1.evil.example", "chrome-extension://abc"]) expect(checkOrigin(o)?.status).toBe(403);
  });
});

describe("checkBearer", () => {
  const token = "a".repeat(43);
  it("takes exactly the token", () => {
    expect(checkBearer(`Bearer ${token}`, token)).toBeUndefined();
    expect(checkBearer(`bearer ${token}`, token)).toBeUndefined();
  });
  it("refuses a wrong, partial, missing or differently framed token without saying why", () => {
    for (const h of [undefined, "", "Bearer", `Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, token]) {
      expect(checkBearer(h, token)).toEqual({ status: 401, message: "Unauthorized" });
    }
  });
});
