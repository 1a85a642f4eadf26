/**
 * Task handles of the tasks extension (2025-11-25, SEP-1686) in an aggregate (SPEC 4.8): a server's `taskId` is
 * shown to clients as `<server>:<taskId>`, so two servers' tasks never meet and `tasks/get`, `tasks/result` and
 * `tasks/cancel` reach the server that made the task. A transparent proxy shows the server's ids as they are. Pure.
 */
const RELATED_TASK = "io.modelcontextprotocol/related-task";

export const taskHandle = (server: string, taskId: string): string => `${server}:${taskId}`;

/** The server and its own task id a client's handle names (server names never hold a colon). */
export function parseTaskHandle(handle: unknown): { server: string; taskId: string } | undefined {
  if (typeof handle !== "string") return undefined;
  const at = handle.indexOf(":");
  if (at <= 0 || at === handle.length - 1) return undefined;
  return { server: handle.slice(0, at), taskId: handle.slice(at + 1) };
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

const renamed = (task: unknown, server: string): unknown =>
  isRec(task) && typeof task.taskId === "string" ? { ...task, taskId: taskHandle(server, task.taskId) } : task;

/**
 * A server's result or notification with its task ids as the client sees them: a created task (`{ task }`), a task
 * itself (`tasks/get`, `tasks/cancel`, `notifications/tasks/status`), a list (`{ tasks }`), and a related-task `_meta`.
 */
export function withTaskHandles<T>(value: T, server: string): T {
  if (!isRec(value)) return value;
  let out: Rec = value;
  if (isRec(out.task)) out = { ...out, task: renamed(out.task, server) };
  if (typeof out.taskId === "string" && "status" in out) out = renamed(out, server) as Rec;
  if (Array.isArray(out.tasks)) out = { ...out, tasks: out.tasks.map((t) => renamed(t, server)) };
  const meta = out._meta;
  if (isRec(meta) && isRec(meta[RELATED_TASK])) out = { ...out, _meta: { ...meta, [RELATED_TASK]: renamed(meta[RELATED_TASK], server) } };
  return out as T;
}
