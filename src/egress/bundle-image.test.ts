import { describe, expect, it } from "vitest";
import { bundleProgram, NODE_IN_IMAGE, PROGRAM_IN_IMAGE, programContextEntries } from "./bundle-image.ts";
import { npmBundleOf } from "./egress-image.ts";
import { SOCKET_DIR } from "./settings.ts";

describe("the egress image of the npm package", () => {
  const entries = programContextEntries(bundleProgram("/usr/lib/node_modules/mcpbox/dist/npm/mcpbox.mjs"), "node:24-bookworm-slim", "#!/bin/sh\n");
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
    expect(final.trim().split("\n").at(-1)).toBe(`ENTRYPOINT ["${NODE_IN_IMAGE}", "/usr/local/lib/mcpbox/mcpbox.mjs", "__egress"]`);
    expect(entries.find((e) => e.name === `rootfs${PROGRAM_IN_IMAGE}/mcpbox.mjs`)).toMatchObject({ file: "/usr/lib/node_modules/mcpbox/dist/npm/mcpbox.mjs", mode: 0o644 });
    expect(entries.find((e) => e.name === "socket")).toMatchObject({ dir: true, mode: 0o700 });
  });

  it("a macOS or Windows executable's embedded program goes in whole, its entry run", () => {
    const program = { entry: "main.mjs", files: [{ path: "main.mjs", text: "import './chunks/a.mjs';" }, { path: "chunks/a.mjs", text: "export {};" }] };
    const e = programContextEntries(program, "node:24-bookworm-slim", "");
    expect(e.filter((x) => x.name.startsWith("rootfs/usr/local/lib/")).map((x) => [x.name, x.data])).toEqual([
      ["rootfs/usr/local/lib/mcpbox/main.mjs", "import './chunks/a.mjs';"], ["rootfs/usr/local/lib/mcpbox/chunks/a.mjs", "export {};"],
    ]);
    expect(e.find((x) => x.name === "Dockerfile")!.data).toContain('ENTRYPOINT ["/usr/local/bin/node", "/usr/local/lib/mcpbox/main.mjs", "__egress"]');
  });

  it("the npm package is told apart from an executable and from the sources", () => {
    expect(npmBundleOf(false, ["/usr/bin/node", "/usr/lib/node_modules/mcpbox/dist/npm/mcpbox.mjs"])).toBe("/usr/lib/node_modules/mcpbox/dist/npm/mcpbox.mjs");
    expect(npmBundleOf(false, ["C:\\Program Files\\nodejs\\node.exe", "C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\mcpbox\\dist\\npm\\mcpbox.mjs"])).toMatch(/mcpbox\.mjs$/);
    expect(npmBundleOf(true, ["/usr/local/bin/mcpbox"])).toBeUndefined();
    expect(npmBundleOf(false, ["/repo/node_modules/.bin/node", "/repo/src/cli/main.ts"])).toBeUndefined();
  });
});
