// network: { allow } and dangerous.allowAnyEgress through the real loader's checks and resolution (SPEC 2.2, 2.3).
import { describe, expect, it } from "vitest";
import { checkRawConfig } from "../config/zod-check.ts";
import { formatProblem } from "../config/problems.ts";
import { resolveConfig } from "../config/resolve.ts";
import { UserConfigSchema } from "../config/schema.ts";
import type { CheckEnv } from "../config/checks.ts";

const file = "/work/project/sandbox.config.ts";
const env: CheckEnv = { home: "/home/ada", exists: () => true, realpath: (p) => p };
const check = (config: Record<string, unknown>) =>
  checkRawConfig(config, file, env).problems.map((p) => formatProblem("sandbox.config.ts", p));
const image = { image: "mcp/x:1" };

describe("network: { allow }", () => {
  it("accepts every entry form without a problem", () => {
    expect(check({ servers: { gh: { ...image, network: { allow: ["api.github.com", "*.example.com", "db.internal:5432", "10.0.0.5/32:443", "[fd00::/64]:443"] } } } })).toEqual([]);
  });

  it("reports each bad entry at its own index with a hint", () => {
    const problems = check({ servers: { gh: { ...image, network: { allow: ["ok.example", "https://api.github.com/x", "10.0.0.5", "db:99999"] } } } });
    expect(problems).toEqual([
      expect.stringMatching(/^sandbox\.config\.ts: servers\.gh\.network\.allow\.1: "https:\/\/api\.github\.com\/x" is a URL \(write the host .*"api\.github\.com"\)$/),
      expect.stringMatching(/^sandbox\.config\.ts: servers\.gh\.network\.allow\.2: "10\.0\.0\.5": an address needs a port \(e\.g\. "10\.0\.0\.5:443"\)$/),
      expect.stringMatching(/^sandbox\.config\.ts: servers\.gh\.network\.allow\.3: .*not a port/),
    ]);
  });

  it("reports bad entries in defaults under defaults", () => {
    expect(check({ defaults: { network: { allow: ["a b"] } }, servers: { gh: image } })).toEqual([expect.stringMatching(/^sandbox\.config\.ts: defaults\.network\.allow\.0: /)]);
  });

  it('refuses "*" without dangerous.allowAnyEgress, and warns with it', () => {
    expect(check({ servers: { gh: { ...image, network: { allow: ["*"] } } } })).toEqual([
      expect.stringMatching(/servers\.gh\.network\.allow\.0: "\*" allows egress to any public host, which is refused \(.*servers\.gh\.dangerous\.allowAnyEgress: true\)/),
    ]);
    expect(check({ servers: { gh: { ...image, network: { allow: ["*"] }, dangerous: { allowAnyEgress: true } } } })).toEqual([
      "sandbox.config.ts: servers.gh.dangerous.allowAnyEgress: warning: isolation is weakened by this opt-in",
    ]);
  });

  it('warns that "bridge" reaches the host\'s own services, in a server or in defaults', () => {
    expect(check({ servers: { web: { ...image, network: "bridge" } } })).toEqual([
      expect.stringMatching(/^sandbox\.config\.ts: servers\.web\.network: warning: "bridge" is full network access: .*host's own services \(anything listening on 0\.0\.0\.0\) stay reachable that way \(list the hosts .*allow/),
    ]);
    expect(check({ defaults: { network: "bridge" }, servers: { web: image } })).toEqual([expect.stringMatching(/^sandbox\.config\.ts: defaults\.network: warning: "bridge"/)]);
    expect(check({ defaults: { network: "bridge" }, servers: { web: { ...image, network: "none" } } })).toEqual([]);
  });

  it("refuses an empty list and unknown keys", () => {
    expect(check({ servers: { gh: { ...image, network: { allow: [] } } } }).join("\n")).toMatch(/servers\.gh\.network/);
    expect(check({ servers: { gh: { ...image, network: { allow: ["a.example"], deny: ["b"] } } } }).join("\n")).toMatch(/servers\.gh\.network/);
  });

  it("resolves to a container with no network of its own plus the egress allowlist", () => {
    const parsed = UserConfigSchema.parse({ defaults: { network: { allow: ["a.example"] } }, servers: { a: image, b: { ...image, network: "none" } } });
    const [a, b] = resolveConfig(parsed, file).servers;
    expect(a).toMatchObject({ network: "none", egress: { allow: ["a.example"] }, dangerous: { allowAnyEgress: false } });
    expect(b).toMatchObject({ network: "none", egress: undefined });
  });
});
