# The code runner's launcher (the container's entrypoint). It waits for one request on stdin: a marker line, then JSON
# {nonce, language, code, stdin?, files?}. It writes the files and the code under /work (a fresh tmpfs), runs the
# interpreter as its child and, when that exits normally, writes a trailer \0MCPBOX-EXIT:<nonce>:<status>\0 on stderr
# so mcpbox can answer without waiting for the engine to notice the exit (a program killed by a signal gets no trailer:
# mcpbox then reads the exit and the OOM flag from the engine). The code never appears in any process's argv.
import json
import os
import sys

MARKER = b"\nMCPBOX-RUN-1\n"
WORK = "/work"
PROGRAM = {"python": ("python3", ".run_code.py"), "node": ("node", ".run_code.js"), "bash": ("bash", ".run_code.sh")}


def fail(message):
    sys.stderr.write("mcpbox: " + message + "\n")
    sys.exit(125)


def place(rel, content):
    target = os.path.normpath(os.path.join(WORK, rel))
    if os.path.isabs(rel) or not target.startswith(WORK + "/"):
        fail("file path must stay inside /work: " + rel)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "x", encoding="utf-8") as f:
        f.write(content)


def main():
    data = sys.stdin.buffer.read()
    at = data.find(MARKER)
    if at < 0:
        return 0  # stdin closed without a request: a warm container that was never used
    request = json.loads(data[at + len(MARKER):])
    command, name = PROGRAM[request["language"]]
    try:
        for rel, content in sorted((request.get("files") or {}).items()):
            place(rel, content)
        place(name, request["code"])
        stdin_path = "/tmp/.run_code.stdin"
        with open(stdin_path, "w", encoding="utf-8") as f:
            f.write(request.get("stdin") or "")
    except OSError as e:
        fail("could not write the files: " + str(e))
    os.chdir(WORK)
    pid = os.fork()
    if pid == 0:
        run_child(stdin_path, command, name)
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status):
        return 128 + os.WTERMSIG(status)
    code = os.WEXITSTATUS(status)
    os.write(2, b"\0MCPBOX-EXIT:" + request["nonce"].encode("ascii") + b":" + str(code).encode("ascii") + b"\0")
    return code


def run_child(stdin_path, command, name):
    try:
        fd = os.open(stdin_path, os.O_RDONLY)
        os.dup2(fd, 0)
        os.close(fd)
        os.unlink(stdin_path)
        os.execvp(command, [command, name])
    except OSError as e:
        os.write(2, ("mcpbox: could not start " + command + ": " + str(e) + "\n").encode())
    os._exit(127)


sys.exit(main())
