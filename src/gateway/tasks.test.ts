import { describe, expect, it } from "vitest";
import { parseTaskHandle, taskHandle, withTaskHandles } from "./tasks.ts";

describe("task handles", () => {
  it("name the server, and come apart at the first colon", () => {
    expect(taskHandle("ev", "t:1")).toBe("ev:t:1");
    expect(parseTaskHandle("ev:t:1")).toEqual({ server: "ev", taskId: "t:1" });
    for (const bad of ["", ":x", "ev:", "nocolon", 7, undefined]) expect(parseTaskHandle(bad)).toBeUndefined();
  });

  it("rename a created task, a task, a list and a related-task _meta, and nothing else", () => {
    expect(withTaskHandles({ task: { taskId: "a", status: "working" } }, "ev")).toEqual({ task: { taskId: "ev:a", status: "working" } });
    expect(withTaskHandles({ taskId: "a", status: "completed", ttl: 5 }, "ev")).toEqual({ taskId: "ev:a", status: "completed", ttl: 5 });
    expect(withTaskHandles({ tasks: [{ taskId: "a" }, { taskId: "b" }] }, "ev")).toEqual({ tasks: [{ taskId: "ev:a" }, { taskId: "ev:b" }] });
    const meta = { content: [], _meta: { "io.modelcontextprotocol/related-task": { taskId: "a" } } };
    expect(withTaskHandles(meta, "ev")._meta).toEqual({ "io.modelcontextprotocol/related-task": { taskId: "ev:a" } });
    expect(withTaskHandles({ content: [{ type: "text", text: "taskId" }] }, "ev")).toEqual({ content: [{ type: "text", text: "taskId" }] });
  });
});
