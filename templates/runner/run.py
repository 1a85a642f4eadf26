# The code runner's launcher (the container's entrypoint). It picks a random nonce and writes a ready mark carrying it
# on stdout and on stderr; then a request comes on stdin: a marker line, the length of the rest in 10 digits and a
# newline, a line "<language> <code length>[ <path length> <content length>]...", and those bytes (the code, then each
# file's path and content). Whatever follows the request on stdin is the run's own stdin: the request is read up to its
# last byte and not one further, and the run reads the rest of that same stream (mcpbox ends it after the stdin), so
# nothing copies it in between. The files and the code go under /work (a fresh tmpfs); when the run ends, a trailer
# \0MCPBOX-EXIT:<nonce>:<status>:<oom kills>\0 goes on stdout and on stderr. The nonce is never on stdin: the run
# cannot learn it from its input.
# Then it lingers: the engine may drop the last output of a container that stops at once, so mcpbox removes the
# container once the trailer arrived. The code never appears in any process's argv.
# A python container (argument "python") starts its interpreter before the request arrives: a fresh `python3` of its
# own exec (normal flags) running STUB on the container's stdin. That interpreter reads the request itself (READER),
# writes the files and the code (/work/.run_code.py, its __file__) and runs the code as `python3 .run_code.py` would;
# the launcher only waits for it and writes the trailer (at once when the stub reports its status on its status pipe,
# once nothing of the run is left to show: see _mcpbox_exit). Under gVisor this takes the interpreter's start off the
# run's time, and the run's critical path has one process woken by the request instead of two (each system call costs
# about 50 us on the ptrace platform, each hand-off between processes a millisecond or more on a loaded machine).
import os
import select
import sys
import time

LINGER_SECONDS = 60  # mcpbox removes the container long before; this only bounds a container nobody removes

# Reads and places a request: run by the launcher (node and bash containers, or when no stub started) and by the stub,
# so it uses only what a fresh python3 has loaded already (os, _signal).
READER = r"""
import os, _signal
MARKER = b"\nMCPBOX-RUN-3\n"
WORK = "/work"
PROGRAM = {"python": ("python3", ".run_code.py"), "node": ("node", ".run_code.js"), "bash": ("bash", ".run_code.sh")}
# python3 ignores these at its start, and an ignored signal stays ignored across exec: the run gets them back as a
# shell would give them (else `seq 1 100000 | head -1` fails with EPIPE, and under gVisor lost the run's output)
DEFAULT_SIGNALS = (_signal.SIGPIPE, _signal.SIGXFSZ)
# the stub dies of this signal when stdin ended before any request (a warm container nobody used): /work is then empty
NO_REQUEST = _signal.SIGUSR2
# the stub's status pipe to the launcher: high, so the run's own files get the numbers python3 would give them
STATUS_FD = 254


def read_request():
    '''(language, code, {path: content}), bytes but the language, read from fd 0 up to the request's last byte; None
    when stdin ends before. What comes before the marker (Podman's attach body) is skipped.'''
    head = len(MARKER) + 11  # the marker, 10 digits, a newline: no read goes past them before the length is known
    buf = b""
    while True:
        at = buf.find(MARKER)
        if at >= 0:
            if len(buf) - at >= head:
                break
            want = at + head - len(buf)
        else:
            keep = len(MARKER) - 1  # the longest end of buf that may begin the marker
            while keep and not buf.endswith(MARKER[:keep]):
                keep -= 1
            buf = buf[len(buf) - keep:]
            want = head - keep
        chunk = os.read(0, want)
        if not chunk:
            return None
        buf += chunk
    length = buf[at + len(MARKER):at + head]
    if length[-1:] != b"\n" or not length[:-1].isdigit():
        fail("malformed request")
    want = int(length[:-1])
    parts = []
    while want:
        chunk = os.read(0, min(want, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        want -= len(chunk)
    line, _, rest = b"".join(parts).partition(b"\n")
    fields = line.split(b" ")
    language = fields[0].decode("ascii", "replace")
    if language not in PROGRAM or len(fields) % 2 != 0 or not all(f.isdigit() for f in fields[1:]):
        fail("malformed request")
    sizes = [int(f) for f in fields[1:]]
    if sum(sizes) != len(rest):
        fail("malformed request")
    at = sizes[0]
    code = rest[:at]
    files = {}
    for i in range(1, len(sizes), 2):
        path = rest[at:at + sizes[i]].decode("utf-8")
        at += sizes[i]
        files[path] = rest[at:at + sizes[i + 1]]
        at += sizes[i + 1]
    return language, code, files


def place_all(name, code, files):
    '''Writes the files (in path order) and then the code under /work.'''
    try:
        for rel in sorted(files):
            place(rel, files[rel])
        place(name, code)
    except OSError as e:
        fail("could not write the files: " + str(e))


def place(rel, data):
    target = os.path.normpath(os.path.join(WORK, rel))
    if os.path.isabs(rel) or not target.startswith(WORK + "/"):
        fail("file path must stay inside /work: " + rel)
    parent = os.path.dirname(target)
    if parent != WORK:
        os.makedirs(parent, exist_ok=True)
    # as open(target, "xb").write(data), in fewer system calls (each costs under gVisor)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def fail(message):
    os.write(2, ("mcpbox: " + message + "\n").encode())
    os._exit(125)


def run_program(command, name):
    '''Replaces this process with `command name` (cwd /work), the signals python3 ignores back to their defaults.'''
    try:
        for sig in DEFAULT_SIGNALS:
            _signal.signal(sig, _signal.SIG_DFL)
        os.execvp(command, [command, name])
    except OSError as e:
        os.write(2, ("mcpbox: could not start " + command + ": " + str(e) + "\n").encode())
    os._exit(127)
"""
exec(READER)


# Runs in the pre-started interpreter, whose fd 0 is the container's stdin. Whatever the user's code can observe is set
# as for `python3 .run_code.py` in /work: argv, sys.path[0], cwd, stdin (what follows the request on the stream;
# sys.stdin is Python's own for it and read nothing before the run), a fresh __main__; an uncaught exception prints its
# traceback (without this stub's frame) and exits 1, SystemExit as usual.
# Everything that carries nothing of a request is done before it: the imports the set-up needs, the compiler's first
# use (under gVisor's ptrace platform these cost about 8 ms of a run, measured), cwd, argv, sys.path[0] and the fresh
# __main__ module (the interpreter is fresh, its container serves one run). Then it reads the request, writes the files
# and the code, and runs the code (a request for another language execs that language's program instead).
STUB = READER + r"""
import sys
import atexit, builtins, gc, importlib.machinery, io, types, _thread, _weakref
os.set_inheritable(STATUS_FD, False)  # no program the run starts gets it
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
_mcpbox_request = read_request()
if _mcpbox_request is None:
    os.kill(os.getpid(), NO_REQUEST)
    os._exit(0)
_mcpbox_language, _mcpbox_source, _mcpbox_files = _mcpbox_request
place_all(PROGRAM[_mcpbox_language][1], _mcpbox_source, _mcpbox_files)
del _mcpbox_request, _mcpbox_files
if _mcpbox_language != "python":
    run_program(*PROGRAM[_mcpbox_language])
_mcpbox_status = [0]
# A process the run forks (no exec) has this interpreter's atexit callbacks and file descriptors: it exits as python3
# would, and the status pipe is closed in it, so only the stub itself reports the run's status.
_mcpbox_pid = os.getpid()
def _mcpbox_forked():
    try:
        os.close(STATUS_FD)
    except OSError:
        pass
os.register_at_fork(after_in_child=_mcpbox_forked)
def _mcpbox_exit():
    # The first atexit callback registered, so the last run: the code's own callbacks have run, and before them Python
    # joined its non-daemon threads. What Python's exit does after this is free the interpreter, about 5 ms of a run
    # under gVisor (2.5 natively; measured). That is skipped (stdout and stderr flushed, then the same status) only
    # when freeing what the run made can show nothing: among the run's objects, alive or garbage in a cycle (gc.freeze
    # above keeps the stub's own out of gc.get_objects), no open writer, no object with __del__, no generator or
    # coroutine, no weakref with a callback, no module from outside the stdlib (as a helper from the files), and few
    # enough objects to look through in well under a millisecond. Else, or for anything unusual (a status that is no
    # C int, a flush that fails, ctypes loaded), Python's own exit frees them in its own order, as python3 would.
    if os.getpid() != _mcpbox_pid:
        return  # a forked process of the run: Python's own exit, its status is not the run's
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
    # Nothing of the run is left to show: the launcher reports this status now, and this process waits to be removed
    # with its container instead of exiting first. Its exit and reaping took 1.1 ms natively, 2.8 under gVisor, where
    # an exiting process also holds up the launcher's wake-up (measured); it is no part of the run's result.
    if _thread._count():
        os._exit(status)  # a daemon thread runs until the exit, as in python3 (the launcher waits for the exit)
    try:
        os.write(STATUS_FD, b"%d" % status)
        while True:
            _signal.pause()
    except BaseException:
        pass
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
    """The pre-started python3 (its pid, the read end of its status pipe), or None."""
    if sys.argv[1:] != ["python"]:
        return None
    r, w = os.pipe()
    try:
        pid = os.posix_spawnp("python3", ["python3", "-c", STUB], os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, w, STATUS_FD)], setsigdef=DEFAULT_SIGNALS)
    except OSError:
        os.close(r)
        return None
    finally:
        os.close(w)
    return pid, r


def child_woken():
    """A pipe that becomes readable when a child exits (SIGCHLD through the wake-up fd)."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    _signal.signal(_signal.SIGCHLD, lambda *_: None)
    _signal.set_wakeup_fd(w)
    return r


def wait_stub(pid, status_r, woken):
    """The stub's wait status, or one made of the status it reported before its exit (any other bytes on the pipe, or
    its end, and the real one is waited for; an orphan that ends meanwhile only wakes this up)."""
    while True:
        readable = select.select([status_r, woken], [], [])[0]
        if status_r in readable:
            data = os.read(status_r, 16)
            if data.lstrip(b"-").isdigit():
                return (int(data) & 0xFF) << 8  # as os._exit(int(data)) would show in waitpid
            return os.waitpid(pid, 0)[1]
        os.read(woken, 512)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status


def undumpable():
    """This launcher holds the exit trailer's nonce: made not dumpable (prctl PR_SET_DUMPABLE 0), a run of the same
    user cannot read it from /proc/<pid>/mem and forge the trailer (the status or the OOM flag, before its end).
    Programs it starts get dumpable back at their exec; the stub was started before this."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except Exception:
        pass


def main():
    stub = prestart()
    undumpable()  # after the stub's start (it overlaps it), before the nonce exists
    nonce = os.urandom(8).hex().encode("ascii")
    ready = b"\0MCPBOX-READY:" + nonce + b"\0"
    woken = child_woken() if stub else None
    oom = oom_source()  # before the request: after the run, one read
    os.write(1, ready)  # mcpbox sends the request only once both marks arrived: both streams are connected
    os.write(2, ready)
    if stub:
        pid = stub[0]
        status = wait_stub(pid, stub[1], woken)
    else:
        request = read_request()
        if request is None:
            return 0  # stdin closed without a request: a warm container that was never used
        language, code, files = request
        command, name = PROGRAM[language]
        place_all(name, code, files)
        del request, code, files
        os.chdir(WORK)
        pid = os.fork()
        if pid == 0:
            run_program(command, name)
        status = os.waitpid(pid, 0)[1]
    if stub and os.WIFSIGNALED(status) and os.WTERMSIG(status) == NO_REQUEST and not os.listdir(WORK):
        return 0  # the stub saw stdin end before a request: a warm container that was never used
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
    trailer = b"\0MCPBOX-EXIT:%s:%d:%d\0" % (nonce, code, oom_kills(oom))
    os.write(1, trailer)  # on both streams: the engine copies them independently, so each needs its own end
    os.write(2, trailer)
    time.sleep(LINGER_SECONDS)
    return code


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


sys.exit(main())
