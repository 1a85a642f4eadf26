# The code runner's launcher (the container's entrypoint). It writes a ready mark on stdout and on stderr, then waits
# for one request on stdin: a marker line, then JSON
# {nonce, language, code, stdin?, files?}. It writes the files and the code under /work (a fresh tmpfs), runs the
# interpreter as its child, and when that ends writes a trailer \0MCPBOX-EXIT:<nonce>:<status>:<oom kills>\0 on
# stdout and on stderr.
# Then it lingers: the engine may drop the last output of a container that stops at once, so mcpbox removes the
# container once the trailer arrived. The code never appears in any process's argv.
import json
import os
import sys
import time

MARKER = b"\nMCPBOX-RUN-1\n"
READY = b"\0MCPBOX-READY\0"
WORK = "/work"
LINGER_SECONDS = 60  # mcpbox removes the container long before; this only bounds a container nobody removes
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
    os.write(1, READY)  # mcpbox sends the request only once both marks arrived: both streams are connected
    os.write(2, READY)
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
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
    trailer = ("\0MCPBOX-EXIT:%s:%d:%d\0" % (request["nonce"], code, oom_kills())).encode("ascii")
    os.write(1, trailer)  # on both streams: the engine copies them independently, so each needs its own end
    os.write(2, trailer)
    time.sleep(LINGER_SECONDS)
    return code


def oom_kills():
    """How many processes the kernel killed in this container for lack of memory (cgroup v1 or v2)."""
    for path, key in (("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"), ("/sys/fs/cgroup/memory.events", "oom_kill")):
        try:
            with open(path) as f:
                for line in f:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except (OSError, ValueError):
            pass
    return 0


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
