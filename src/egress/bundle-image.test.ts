import { describe, expect, it } from "vitest";
import { BUNDLE_IN_IMAGE, bundleContextEntries, NODE_IN_IMAGE } from "./bundle-image.ts";
import { npmBundleOf } from "./egress-image.ts";
import { SOCKET_DIR } from "./settings.ts";

describe("the egress image of the npm package", () => {
  const entries = bundleContextEntries("/usr/lib/node_modules/mcpbox/dist/npm/mcpbox.mjs", "node:24-bookworm-slim", "#!/bin/sh\n");
  const dockerfile = entries.find((e) => e.name === "Dockerfile")!.data!;
  const final = dockerfile.slice(dockerfile.indexOf("FROM scratch"));

  it("takes Node and its libraries from the node base image into scratch, with the bundle and the executable's layout", () => {
    expect(dockerfile.split("\n")[0]).toBe("FROM node:24-bookworm-slim AS node");
    // the final stage: nothing but copies (no RUN, no shell), user 1000, the proxy's socket folder, the egress role
    expect(final.split("\n").filter((l) => l && !/^(FROM scratch|COPY |USER |LABEL |ENTRYPOINT )/.test(l))).toEqual([]);
    expect(final).toContain("COPY --from=node /rootfs/ /");
    expect(final).toContain(`COPY --chown=1000:1000 socket/ ${SOCKET_DIR}/`);
    expect(final).toContain("USER 1000:1000");
    expect(final).toContain("LABEL mcpbox.egress=image");
    expect(final.trim().split("\n").at(-1)).toBe(`ENTRYPOINT ["${NODE_IN_IMAGE}", "${BUNDLE_IN_IMAGE}", "__egress"]`);
    expect(entries.find((e) => e.name === `rootfs${BUNDLE_IN_IMAGE}`)).toMatchObject({ file: "/usr/lib/node_modules/mcpbox/dist/npm/mcpbox.mjs", mode: 0o644 });
    expect(entries.find((e) => e.name === "socket")).toMatchObject({ dir: true, mode: 0o700 });
  });

  it("is the npm package's way only: an executable or the sources keep the Linux executable", () => {
    expect(npmBundleOf(false, ["/usr/bin/node", "/usr/lib/node_modules/mcpbox/dist/npm/mcpbox.mjs"])).toBe("/usr/lib/node_modules/mcpbox/dist/npm/mcpbox.mjs");
    expect(npmBundleOf(false, ["C:\\Program Files\\nodejs\\node.exe", "C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\mcpbox\\dist\\npm\\mcpbox.mjs"])).toMatch(/mcpbox\.mjs$/);
    expect(npmBundleOf(true, ["/usr/local/bin/mcpbox"])).toBeUndefined();
    expect(npmBundleOf(false, ["/repo/node_modules/.bin/node", "/repo/src/cli/main.ts"])).toBeUndefined();
  });
});
