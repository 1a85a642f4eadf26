import { describe, expect, it } from "vitest";
import { resolvedServer } from "../../test/helpers/servers.ts";
import { serverNetworkName, serverNetworkOptions, wantsOwnNetwork } from "./server-network.ts";

describe("a bridge server's own network", () => {
  it("is made for network \"bridge\" only", () => {
    expect(wantsOwnNetwork(resolvedServer("web", { image: "x:1", network: "bridge" }))).toBe(true);
    expect(wantsOwnNetwork(resolvedServer("off", { image: "x:1" }))).toBe(false);
    expect(wantsOwnNetwork(resolvedServer("named", { image: "x:1", network: { network: "mine" } }))).toBe(false);
    expect(wantsOwnNetwork(resolvedServer("gh", { image: "x:1", network: { allow: ["api.github.com"] } }))).toBe(false);
  });

  it("is named after the server's container and has ICC off and the labels", () => {
    expect(serverNetworkName("s1", "web")).toBe("mcpbox-s1-web-net");
    expect(serverNetworkOptions("n", { "mcpbox.session": "s1" })).toEqual({
      Name: "n",
      Driver: "bridge",
      Labels: { "mcpbox.session": "s1" },
      Options: { "com.docker.network.bridge.enable_icc": "false" },
    });
  });
});
