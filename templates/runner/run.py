# The code runner's launcher (the container's entrypoint). It writes a ready mark on stdout and on stderr, then waits
# for one request on stdin: a marker line, then JSON
# {nonce, language, code, stdin?, files?}. It writes the files and the code under /work (a fresh tmpfs), runs the
# interpreter as its child, and when that ends writes a trailer \0MCPBOX-EXIT:<nonce>:<status>:<oom kills>\0 on
# stdout and on stderr.
# Then it lingers: the engine may drop the last output of a container that stops at once, so mcpbox removes the
# container once the trailer arrived. The code never appears in any process's argv.
# A python container (argument "python") starts its interpreter before the request arrives: a fresh `python3` of its
# own exec (normal flags) running STUB, blocked on a pipe; on "go" it runs /work/.run_code.py as `python3 .run_code.py`
# would. It never sees the request or the nonce. Under gVisor this takes the interpreter's start off the run's time.
import json
import os
import signal
import sys
import time

MARKER = b"\nMCPBOX-RUN-1\n"
READY = b"\0MCPBOX-READY\0"
WORK = "/work"
LINGER_SECONDS = 60  # mcpbox removes the container long before; this only bounds a container nobody removes
STDIN_PATH = "/tmp/.run_code.stdin"
# python3 ignores these at its start, and an ignored signal stays ignored across exec: the run gets them back as a
# shell would give them (else `seq 1 100000 | head -1` fails with EPIPE, and under gVisor lost the run's output)
DEFAULT_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ)
PROGRAM = {"python": ("python3", ".run_code.py"), "node": ("node", ".run_code.js"), "bash": ("bash", ".run_code.sh")}


# Runs in the pre-started interpreter: fd 0 is the launcher's pipe until "go", then the run's stdin. Whatever the user's
# code can observe is set as for `python3 .run_code.py` in /work: argv, sys.path[0], cwd, stdin, a fresh __main__;
# an uncaught exception prints its traceback (without this stub's frame) and exits 1, SystemExit as usual.
# What the set-up below needs is imported, and the compiler used once, before the request: under gVisor's ptrace
# platform the imports (file look-ups) and the compiler's first use cost about 8 ms of a run (measured); neither
# carries anything of a request (the interpreter is fresh, its container serves one run).
STUB = r"""
import os, sys
import atexit, builtins, gc, importlib.machinery, io, types, _weakref
compile("print(1)\n", "<mcpbox-warm-up>", "exec", dont_inherit=True)
_mcpbox_stdlib = os.path.dirname(os.__file__) + "/"
gc.freeze()  # what exists now (nothing of the run) stays out of gc.get_objects() and the collections
if os.read(0, 2) != b"go":
    os._exit(0)
fd = os.open("/tmp/.run_code.stdin", os.O_RDONLY)
os.dup2(fd, 0)
os.close(fd)
os.unlink("/tmp/.run_code.stdin")
os.chdir("/work")
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
    global _mcpbox_main
    old = sys.stdin
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.open(0, "rb", closefd=False), encoding=old.encoding, errors=old.errors, newline="\n")
    sys.stdin.buffer.raw.name = "<stdin>"
    path = "/work/.run_code.py"
    sys.argv[:] = [".run_code.py"]
    sys.orig_argv[:] = ["python3", ".run_code.py"]
    sys.path[0] = "/work"
    main = types.ModuleType("__main__")
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    main.__annotations__ = {}
    main.__builtins__ = builtins
    main.__file__ = path
    main.__cached__ = None
    sys.modules["__main__"] = _mcpbox_main = main
    with open(path, "rb") as f:
        source = f.read()
    try:
        exec(compile(source, path, "exec", dont_inherit=True), main.__dict__)
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
    """The pre-started python3 (pid, write end of its pipe), or None."""
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
    return pid, w


def go(stub):
    """Lets the pre-started interpreter run the code; its pid, or None when it is gone (then the code runs as usual)."""
    pid, w = stub
    try:
        os.write(w, b"go")
        os.close(w)
        return pid
    except OSError:
        os.close(w)
        drop(stub)
        return None


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
    write_file(target, content, os.O_EXCL)


def write_file(path, text, flags):
    """As open(path, "x" or "w", encoding="utf-8").write(text), in fewer system calls (each costs under gVisor)."""
    data = text.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | flags, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def main():
    stub = prestart()
    os.write(1, READY)  # mcpbox sends the request only once both marks arrived: both streams are connected
    os.write(2, READY)
    data = sys.stdin.buffer.read()
    at = data.find(MARKER)
    if at < 0:
        return 0  # stdin closed without a request: a warm container that was never used
    request = json.loads(data[at + len(MARKER):])
    command, name = PROGRAM[request["language"]]
    if stub and request["language"] != "python":
        drop(stub)
        stub = None
    try:
        for rel, content in sorted((request.get("files") or {}).items()):
            place(rel, content)
        place(name, request["code"])
        write_file(STDIN_PATH, request.get("stdin") or "", os.O_TRUNC)
    except OSError as e:
        fail("could not write the files: " + str(e))
    os.chdir(WORK)
    pid = go(stub) if stub else None
    if pid is None:
        pid = os.fork()
        if pid == 0:
            run_child(STDIN_PATH, command, name)
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
        for sig in DEFAULT_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
        os.execvp(command, [command, name])
    except OSError as e:
        os.write(2, ("mcpbox: could not start " + command + ": " + str(e) + "\n").encode())
    os._exit(127)


sys.exit(main())
