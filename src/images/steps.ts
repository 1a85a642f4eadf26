/**
 * Reading the classic builder's JSON-lines stream, pure: which step runs ("Step 3/9 : RUN ..."), the last lines of
 * its output (for a failure report), the image ids it created (to clean up after a failure) and the error.
 */
export interface BuildMessage {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

export interface Step {
  readonly n: number;
  readonly total: number;
  /** the instruction, e.g. "RUN npm install ..." */
  readonly text: string;
}

export const TAIL_LINES = 20;

export class BuildLog {
  step: Step | undefined;
  error: string | undefined;
  /** image ids the build created, in order (layers and the final image) */
  readonly imageIds: string[] = [];
  /** the last lines the current step printed */
  tail: string[] = [];
  private partial = "";

  /** Feeds one message; returns true when it started a new step. */
  feed(msg: BuildMessage): boolean {
    if (msg.error !== undefined || msg.errorDetail?.message !== undefined) {
      this.error = (msg.errorDetail?.message ?? msg.error ?? "").trim();
      return false;
    }
    if (msg.aux?.ID) this.addId(msg.aux.ID);
    const text = msg.stream ?? (msg.status !== undefined ? `${msg.status}\n` : "");
    let started = false;
    const chunks = (this.partial + text).split("\n");
    this.partial = chunks.pop() ?? "";
    for (const line of chunks) started = this.line(stripAnsi(line).replace(/\r$/, "")) || started;
    return started;
  }

  private line(line: string): boolean {
    const step = parseStep(line);
    if (step) {
      this.step = step;
      this.tail = [];
      return true;
    }
    const id = /^ ---> ([0-9a-f]{12,64})$/.exec(line)?.[1] ?? /^Successfully built ([0-9a-f]{12,64})$/.exec(line)?.[1];
    if (id) this.addId(id);
    if (line.trim() === "" || /^ ---> |^Removing intermediate container /.test(line)) return false;
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    return false;
  }

  private addId(id: string) {
    const short = id.replace(/^sha256:/, "").slice(0, 12);
    if (!this.imageIds.includes(short)) this.imageIds.push(short);
  }
}

// eslint-disable-next-line no-control-regex
export const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");

export function parseStep(line: string): Step | undefined {
  const m = /^Step (\d+)\/(\d+) : (.*)$/.exec(line);
  return m ? { n: Number(m[1]), total: Number(m[2]), text: m[3]! } : undefined;
}
