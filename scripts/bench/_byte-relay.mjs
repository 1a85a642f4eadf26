/**
 * The reference for the gateway's latency: a process that does nothing but copy bytes between its stdio and one
 * container's stdio (created with the baseline's options and attached the same way, no parsing at all). It shows
 * what any extra process hop costs on this machine before any work is done. Usage: node _byte-relay.mjs <image> <session>
 */
import { attachStdio } from "../../src/docker/_attach.ts";
import { removeContainer } from "../../src/docker/_http.ts";
import { engine } from "../../src/docker/engine.ts";
import { directContainerOptions } from "./_gateway-lib.mjs";

const [image, session] = process.argv.slice(2);
const docker = engine();
const { id } = await docker.createContainer(directContainerOptions(image, "relay", session));
const { stdin, stdout } = await attachStdio(docker, id, { chunkOfLines: false });
await docker.getContainer(id).start();
stdout.on("data", (chunk) => process.stdout.write(chunk));
process.stdin.on("data", (chunk) => stdin.write(chunk));
process.stdin.on("end", () => void removeContainer(docker, id).finally(() => process.exit(0)));
