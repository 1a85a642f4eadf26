/**
 * A stand-in gateway for the SIGKILL test: starts one server container, spawns the session reaper as the gateway
 * does, prints "ready <container id>" and waits to be killed.
 * Usage: node test/helpers/reaper-owner.ts <session> <image>
 */
import { engine } from "../../src/docker/engine.ts";
import { spawnReaper } from "../../src/docker/cleanup.ts";
import { startServerContainer } from "../../src/docker/container.ts";
import { containerOptions } from "../../src/policy/run.ts";
import { resolvedServer } from "./servers.ts";

const [session, image] = process.argv.slice(2);
if (!session || !image) throw new Error("usage: reaper-owner.ts <session> <image>");
spawnReaper(session, process.pid);
const options = containerOptions(resolvedServer("owned"), { session, configHash: "test", ownerPid: process.pid, image }, {});
const container = await startServerContainer(engine(), options);
process.stdout.write(`ready ${container.id}\n`);
setInterval(() => {}, 60_000);
