# The code runner's launcher (the container's entrypoint). It writes a ready mark on stdout and on stderr, then waits
# for one request on stdin: a marker line, a line with the JSON's length in bytes, then that JSON
# {nonce, language, code, stdin?, files?} (it does not wait for the end of stdin). It writes the files and the code under /work (a fresh tmpfs), runs the
# interpreter as its child with stdin a pipe it feeds the request's stdin into, and when that ends writes a trailer
# \0MCPBOX-EXIT:<nonce>:<status>:<oom kills>\0 on stdout and on stderr.
# Then it lingers: the engine may drop the last output of a container that stops at once, so mcpbox removes the
# container once the trailer arrived. The code never appears in any process's argv.
# A python container (argument "python") starts its interpreter before the request arrives: a fresh `python3` of its
# own exec (normal flags) running STUB, its stdin a pipe it blocks on; the launcher writes "go", the code's length and
# the code (also written to /work/.run_code.py, its __file__), then the run's stdin, on that pipe, and the stub runs the
# code as `python3 .run_code.py < pipe` would. It never sees the rest of the request or the nonce. Under gVisor this
# takes the interpreter's start off the run's time, and each system call a run saves there is worth about 50 us
# (ptrace platform; more on a loaded machine), so the run's critical path makes as few as it can.
import json
import os
import select
import signal
import sys
import time

MARKER = b"\nMCPBOX-RUN-2\n"
READY = b"\0MCPBOX-READY\0"
WORK = "/work"
LINGER_SECONDS = 60  # mcpbox removes the container long before; this only bounds a container nobody removes
# python3 ignores these at its start, and an ignored signal stays ignored across exec: the run gets them back as a
# shell would give them (else `seq 1 100000 | head -1` fails with EPIPE, and under gVisor lost the run's output)
DEFAULT_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ)
PROGRAM = {"python": ("python3", ".run_code.py"), "node": ("node", ".run_code.js"), "bash": ("bash", ".run_code.sh")}


# Runs in the pre-started interpreter: fd 0 is the launcher's pipe, which after the code carries the run's stdin (sys.stdin
# is Python's own for it: nothing read it before the run). Whatever the user's code can observe is set as for
# `python3 .run_code.py` in /work: argv, sys.path[0], cwd, stdin, a fresh __main__; an uncaught exception prints its
# traceback (without this stub's frame) and exits 1, SystemExit as usual.
# Everything that carries nothing of a request is done before it: the imports the set-up needs, the compiler's first
# use (under gVisor's ptrace platform these cost about 8 ms of a run, measured), cwd, argv, sys.path[0] and the fresh
# __main__ module (the interpreter is fresh, its container serves one run). After "go" it reads the code and runs it.
STUB = r"""
import os, sys
import atexit, builtins, gc, importlib.machinery, io, types, _weakref
compile("print(1)\n", "<mcpbox-warm-up>", "exec", dont_inherit=True)
_mcpbox_stdlib = os.path.dirname(os.__file__) + "/"
gc.freeze()  # what exists now (nothing of the run) stays out of gc.get_objects() and the collections
_mcpbox_path = "/work/.run_code.py"
os.chdir("/work")
sys.argv[:] = [".run_code.py"]
sys.orig_argv[:] = ["python3", ".run_code.py"]
sys.path[0] = "/work"
_mcpbox_main = types.ModuleType("__main__")
_mcpbox_main.__loader__ = importlib.machinery.SourceFileLoader("__main__", _mcpbox_path)
_mcpbox_main.__annotations__ = {}
_mcpbox_main.__builtins__ = builtins
_mcpbox_main.__file__ = _mcpbox_path
_mcpbox_main.__cached__ = None
def _mcpbox_read(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            os._exit(0)  # the launcher went away or dropped this interpreter: nothing ran
        data += chunk
    return data
_mcpbox_head = _mcpbox_read(12)
if _mcpbox_head[:2] != b"go" or not _mcpbox_head[2:].isdigit():
    os._exit(0)
_mcpbox_source = _mcpbox_read(int(_mcpbox_head[2:]))
_mcpbox_status = [0]
def _mcpbox_exit():
    # The first atexit callback registered, so the last run: the code's own callbacks have run, and before them Python
    # joined its non-daemon threads. What Python's exit does after this is free the interpreter, about 5 ms of a run
    # under gVisor (2.5 natively; measured). That is skipped (stdout and stderr flushed, then the same status) only
    # when freeing what the run made can show nothing: among the run's objects, alive or garbage in a cycle (gc.freeze
    # above keeps the stub's own out of gc.get_objects), no open writer, no object with __del__, no generator or
    # coroutine, no weakref with a callback, no module from outside the stdlib (as a helper from the files), and few
    # enough objects to look through in well under a millisecond. Else, or for anything unusual (a status that is no
    # C int, a flush that fails, ctypes loaded), Python's own exit frees them in its own order, as python3 would.
    status = _mcpbox_status[0]
    if type(status) is not int or not -2**31 <= status < 2**31 or "_ctypes" in sys.modules:
        return  # ctypes: C code may hold output in its stdio buffers, which only exit() flushes
    try:
        alive = gc.get_objects()
        if len(alive) > 500:
            return
        std = (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
        for o in alive:
            if isinstance(o, io.IOBase):
                if not any(o is f for f in std) and not o.closed and o.writable():
                    return
            elif isinstance(o, (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)):
                return
            elif isinstance(o, _weakref.ReferenceType):
                if o.__callback__ is not None:
                    return
            elif isinstance(o, types.ModuleType):
                if o is not _mcpbox_main and o.__name__ not in sys.builtin_module_names:
                    file = o.__dict__.get("__file__")
                    if not isinstance(file, str) or not file.startswith(_mcpbox_stdlib) or "-packages/" in file:
                        return
            elif getattr(type(o), "__del__", None) is not None:
                return
        for f in (sys.stdout, sys.stderr):
            if f is not None and not f.closed:
                f.flush()
    except BaseException:
        return
    os._exit(status)
atexit.register(_mcpbox_exit)
def _mcpbox_run():
    global _mcpbox_source
    source, _mcpbox_source = _mcpbox_source, None
    sys.modules["__main__"] = _mcpbox_main
    try:
        exec(compile(source, _mcpbox_path, "exec", dont_inherit=True), _mcpbox_main.__dict__)
    except SystemExit as e:
        # Python's exit status for it (a message other than None or an int is printed, status 1)
        _mcpbox_status[0] = 0 if e.code is None else int(e.code) if isinstance(e.code, int) else 1
        raise
    except BaseException as e:
        e.__traceback__ = e.__traceback__.tb_next  # without this function's frame
        sys.excepthook(type(e), e, e.__traceback__)
        return e
    return None
_mcpbox_error = _mcpbox_run()
if isinstance(_mcpbox_error, KeyboardInterrupt):
    import signal
    atexit.unregister(_mcpbox_exit)
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
if _mcpbox_error is not None:
    _mcpbox_status[0] = 1
    sys.exit(1)
"""


def prestart():
    """The pre-started python3 (pid, write end of its pipe, non-blocking), or None."""
    if sys.argv[1:] != ["python"]:
        return None
    r, w = os.pipe()
    try:
        pid = os.posix_spawnp("python3", ["python3", "-c", STUB], os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, r, 0)], setsigdef=DEFAULT_SIGNALS)
    except OSError:
        os.close(w)
        return None
    finally:
        os.close(r)
    os.set_blocking(w, False)  # only the launcher's end: the run's stdin stays a blocking pipe
    return pid, w


def go(stub, code, stdin):
    """Lets the pre-started interpreter run the code: (its pid, what is left to write), or None when it is gone (then
    the code runs as usual)."""
    pid, w = stub
    view = memoryview(b"go%010d" % len(code) + code + stdin)
    try:
        # the pipe is empty: this writes at least the header (a pipe holds 4 KiB at the very least)
        return pid, view[os.write(w, view):]
    except OSError:
        os.close(w)
        drop(stub)
        return None


def feed_and_wait(pid, w, view):
    """Writes the rest of the run's stdin to `w` (non-blocking) while the run goes on, then closes it; the run's wait
    status. A run that does not read its stdin (or closes it) leaves the rest unwritten, as a pipe would."""
    view = feed(w, view)
    if not view:
        os.close(w)
        return os.waitpid(pid, 0)[1]
    # more than the pipe holds: write as the run reads, and wake when it ends (SIGCHLD to a wake-up pipe)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            readable, writable, _ = select.select([wake_r], [w] if view else [], [])
            if readable:
                os.read(wake_r, 4096)
            if writable:
                view = feed(w, view)
                if not view:
                    os.close(w)
    finally:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        if view:
            os.close(w)


def feed(w, view):
    """Writes what the pipe takes now; what is left (empty also when the reader is gone)."""
    try:
        while view:
            view = view[os.write(w, view):]
    except BlockingIOError:
        pass
    except OSError:  # EPIPE: the run closed its stdin
        return view[:0]
    return view


def drop(stub):
    try:
        os.kill(stub[0], 9)
    except OSError:
        pass
    os.waitpid(stub[0], 0)


def fail(message):
    sys.stderr.write("mcpbox: " + message + "\n")
    sys.exit(125)


def place(rel, content):
    target = os.path.normpath(os.path.join(WORK, rel))
    if os.path.isabs(rel) or not target.startswith(WORK + "/"):
        fail("file path must stay inside /work: " + rel)
    parent = os.path.dirname(target)
    if parent != WORK:
        os.makedirs(parent, exist_ok=True)
    return write_file(target, content)


def write_file(path, text):
    """As open(path, "x", encoding="utf-8").write(text), in fewer system calls (each costs under gVisor); the bytes."""
    data = text.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    return data


def main():
    stub = prestart()
    oom = oom_source()  # before the request: after the run, one read
    os.write(1, READY)  # mcpbox sends the request only once both marks arrived: both streams are connected
    os.write(2, READY)
    body = read_request()
    if body is None:
        return 0  # stdin closed without a request: a warm container that was never used
    request = json.loads(body)
    command, name = PROGRAM[request["language"]]
    if stub and request["language"] != "python":
        drop(stub)
        stub = None
    try:
        for rel, content in sorted((request.get("files") or {}).items()):
            place(rel, content)
        code = place(name, request["code"])
    except OSError as e:
        fail("could not write the files: " + str(e))
    stdin = (request.get("stdin") or "").encode("utf-8")
    started = go(stub, code, stdin) if stub else None
    if started:
        pid, view = started
        w = stub[1]
    else:
        os.chdir(WORK)
        r, w = os.pipe()
        os.set_blocking(w, False)
        pid = os.fork()
        if pid == 0:
            run_child(r, command, name)
        os.close(r)
        view = memoryview(stdin)
    status = feed_and_wait(pid, w, view)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
    trailer = ("\0MCPBOX-EXIT:%s:%d:%d\0" % (request["nonce"], code, oom_kills(oom))).encode("ascii")
    os.write(1, trailer)  # on both streams: the engine copies them independently, so each needs its own end
    os.write(2, trailer)
    time.sleep(LINGER_SECONDS)
    return code


def read_request():
    """The request's JSON bytes from stdin, once all of them arrived; None when stdin ends before."""
    data = b""
    while True:  # what comes before the marker (Podman's attach body) is skipped
        chunk = os.read(0, 65536)
        if not chunk:
            return None
        data += chunk
        at = data.find(MARKER)
        end = data.find(b"\n", at + len(MARKER)) if at >= 0 else -1
        if end >= 0:
            break
    length = data[at + len(MARKER):end]
    if not length.isdigit():
        fail("malformed request")
    want = int(length)
    parts = [data[end + 1:end + 1 + want]]
    have = len(parts[0])
    while have < want:
        chunk = os.read(0, min(want - have, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        have += len(chunk)
    return b"".join(parts)


def oom_source():
    """(an open fd, key) of the file counting this container's OOM kills (cgroup v1 or v2), or None (under gVisor there
    is no cgroup file system inside)."""
    for path, key in (("/sys/fs/cgroup/memory/memory.oom_control", b"oom_kill"), ("/sys/fs/cgroup/memory.events", b"oom_kill")):
        try:
            return os.open(path, os.O_RDONLY | os.O_CLOEXEC), key
        except OSError:
            pass
    return None


def oom_kills(source):
    """How many processes the kernel killed in this container for lack of memory."""
    if source is None:
        return 0
    fd, key = source
    try:
        for line in os.pread(fd, 4096, 0).splitlines():
            name, _, value = line.partition(b" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def run_child(stdin_fd, command, name):
    try:
        os.dup2(stdin_fd, 0)
        for sig in DEFAULT_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
        os.execvp(command, [command, name])
    except OSError as e:
        os.write(2, ("mcpbox: could not start " + command + ": " + str(e) + "\n").encode())
    os._exit(127)


sys.exit(main())
