/**
 * The engine's pull stream as a few human lines: one per finished layer and the closing status, never one per
 * downloaded chunk (stderr of a gateway and CI logs stay short). Lines are terminal-safe: a registry names the layers.
 */
import { terminalLine } from "../text/terminal.ts";

export interface PullMessage {
  [key: string]: unknown;
  status?: unknown;
  id?: unknown;
}

export class PullProgress {
  #layers = new Set<string>();
  #done = new Set<string>();

  /** The line this message is worth, if any. */
  feed(m: PullMessage): string | undefined {
    const status = typeof m.status === "string" ? m.status : "";
    const id = typeof m.id === "string" ? m.id : "";
    if (status === "Pulling fs layer" || status === "Waiting" || status === "Already exists") this.#layers.add(id);
    if ((status === "Pull complete" || status === "Already exists") && id && !this.#done.has(id)) {
      this.#layers.add(id);
      this.#done.add(id);
      const what = status === "Already exists" ? "already present" : "pulled";
      return terminalLine(`layer ${id} ${what} (${this.#done.size}/${this.#layers.size})`);
    }
    if (status.startsWith("Digest:") || status.startsWith("Status:")) return terminalLine(status);
    return undefined;
  }
}
