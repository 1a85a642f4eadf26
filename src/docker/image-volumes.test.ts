import { describe, expect, it } from "vitest";
import type Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";
import { boundImageVolumes, imageVolumes } from "./image-volumes.ts";

const TMP = "rw,noexec,nosuid,nodev,size=1024";
const options = (host: ContainerCreateOptions["HostConfig"] = {}, user = "1000:1000"): ContainerCreateOptions => ({
  Image: "i",
  User: user,
  HostConfig: { Tmpfs: { "/tmp": TMP }, Binds: [], ...host },
});

describe("boundImageVolumes", () => {
  it("puts a tmpfs of the /tmp options, owned by the container's user, at each VOLUME of the image", () => {
    const o = boundImageVolumes(options(), ["/data", "/var/lib/db/"]);
    expect(o.HostConfig?.Tmpfs).toEqual({ "/tmp": TMP, "/data": `${TMP},uid=1000,gid=1000`, "/var/lib/db": `${TMP},uid=1000,gid=1000` });
  });

  it("leaves a path a configured mount or tmpfs already covers, and an image without VOLUMEs, as they are", () => {
    const host = { Binds: ["/home/me/data:/data:rw", "C:\\Users\\me\\x:/x:ro"], Mounts: [{ Type: "volume" as const, Source: "v", Target: "/m" }], Tmpfs: { "/tmp": TMP, "/run": "rw" } };
    const given = options(host);
    expect(boundImageVolumes(given, ["/data", "/x", "/m/", "/tmp", "/run"])).toBe(given);
    expect(boundImageVolumes(given, [])).toBe(given);
  });

  it("takes the owner from a numeric user only, else a sticky world-writable folder", () => {
    expect(boundImageVolumes(options({}, "app"), ["/data"]).HostConfig?.Tmpfs?.["/data"]).toBe(`${TMP},mode=1777`);
    expect(boundImageVolumes(options({ Tmpfs: { "/tmp": `${TMP},uid=5,gid=5,mode=0700` } }, "7:8"), ["/d"]).HostConfig?.Tmpfs?.["/d"]).toBe(`${TMP},uid=7,gid=8`);
  });
});

describe("imageVolumes", () => {
  /** an engine whose image inspect answers after a tick, counting the inspects of each image */
  const engine = (volumes: Record<string, Record<string, object>>) => {
    const asked: string[] = [];
    const docker = {
      getImage: (ref: string) => ({
        inspect: async () => {
          asked.push(ref);
          await new Promise((r) => setTimeout(r, 5));
          if (!(ref in volumes)) throw Object.assign(new Error("no such image"), { statusCode: 404 });
          return { Config: { Volumes: volumes[ref] } };
        },
      }),
    } as unknown as Docker;
    return { docker, asked };
  };

  it("shares one inspect among the creates of one image at the same moment, and asks again once it is answered", async () => {
    const { docker, asked } = engine({ a: { "/data": {} }, b: {} });
    const first = await Promise.all([imageVolumes(docker, "a"), imageVolumes(docker, "a"), imageVolumes(docker, "b"), imageVolumes(docker, "a")]);
    expect(first).toEqual([["/data"], ["/data"], [], ["/data"]]);
    expect(asked).toEqual(["a", "b"]);
    // each caller has its own array
    first[0]!.push("/x");
    expect(first[1]).toEqual(["/data"]);
    // a rebuilt image is read afresh: nothing is kept once answered
    expect(await imageVolumes(docker, "a")).toEqual(["/data"]);
    expect(asked).toEqual(["a", "b", "a"]);
  });

  it("gives none when the engine cannot say (the create then reports the missing image), and asks again next time", async () => {
    const { docker, asked } = engine({});
    expect(await Promise.all([imageVolumes(docker, "gone"), imageVolumes(docker, "gone")])).toEqual([[], []]);
    expect(await imageVolumes(docker, "gone")).toEqual([]);
    expect(asked).toEqual(["gone", "gone"]);
  });
});
