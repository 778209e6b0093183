"""Transports with real processes: framing, pipes and ptys, stderr draining, teardown."""

from __future__ import annotations

import doctest
import os
import sys
import time
from pathlib import Path

import pytest

import bidref.engines.framing
from bidref.engines import (
    EngineSpec,
    EngineStartError,
    Eof,
    Line,
    LineFramer,
    LineTooLong,
    PipeTransport,
    PtyTransport,
    resolve_engine,
    start_engine,
)
from bidref.engines.spec import EngineSpecError, load_engine_file

SCRIPTS = Path(__file__).parent / "scripts"
SECOND = 1_000_000_000


def test_framing_doctest() -> None:
    assert doctest.testmod(bidref.engines.framing, optionflags=doctest.ELLIPSIS).failed == 0


def test_framer_reports_a_long_line_once_and_recovers() -> None:
    f = LineFramer(max_line=10)
    assert f.feed(b"12345") == []
    items = f.feed(b"6789012345")
    assert len(items) == 1 and isinstance(items[0], LineTooLong)
    assert f.feed(b"more of it") == []
    assert f.feed(b"tail\nok\n") == ["ok"]
    items = f.feed(b"a" * 30 + b"\nnext\n")
    assert isinstance(items[0], LineTooLong) and items[0].length == 30 and items[1] == "next"


def test_framer_replaces_bad_utf8() -> None:
    assert LineFramer().feed(b"\xff{}\n") == ["\ufffd{}"]


def _pid_dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie not yet reaped by init counts as dead
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except OSError:
        return True


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ["pipe", "pty"])
def test_ping_pong_and_a_clean_quit(kind: str, c_first: Path) -> None:
    t = start_engine(EngineSpec("c", (str(c_first),)), kind)
    try:
        for i in range(3):
            before = time.monotonic_ns()
            sent = t.write_line(f'{{"type":"ping","id":{i}}}')
            got = t.read(time.monotonic_ns() + 5 * SECOND)
            assert isinstance(got, Line) and got.text == f'{{"type":"pong","id":{i}}}'
            # stamped after the request was written (write_line's own stamp may come
            # later still, on a loaded machine: the reader thread can run first)
            assert before <= got.t and before <= sent
    finally:
        info = t.close('{"type":"quit"}', SECOND)
    assert (info.exit_code, info.how) == (0, "quit")
    assert _pid_dead(t.pid)


@pytest.mark.e2e
@pytest.mark.parametrize("cls", [PipeTransport, PtyTransport])
def test_no_process_survives_grandchildren_included(
    cls: type[PipeTransport] | type[PtyTransport], tmp_path: Path
) -> None:
    pidfile = tmp_path / "pids"
    t = cls([sys.executable, str(SCRIPTS / "grandchild.py"), str(pidfile)])
    t.write_line('{"type":"hello"}')
    assert isinstance(t.read(time.monotonic_ns() + 10 * SECOND), Line)
    grandchild = int(pidfile.read_text())
    assert not _pid_dead(grandchild)
    info = t.close('{"type":"quit"}', 200_000_000)  # quit and SIGTERM are ignored
    assert info.how == "sigkill" and info.signal == "SIGKILL"
    give_up = time.monotonic() + 15  # (a bound for a loaded machine, not a wait)
    while not _pid_dead(grandchild) and time.monotonic() < give_up:
        time.sleep(0.01)
    assert _pid_dead(t.pid) and _pid_dead(grandchild)


@pytest.mark.e2e
@pytest.mark.parametrize("cls", [PipeTransport, PtyTransport])
def test_a_grandchild_in_a_session_of_its_own_is_ended_too(
    cls: type[PipeTransport] | type[PtyTransport], tmp_path: Path
) -> None:
    pidfile = tmp_path / "pids"
    t = cls([sys.executable, str(SCRIPTS / "escapee.py"), str(pidfile)])
    try:
        give_up = time.monotonic() + 10
        while not (pidfile.exists() and pidfile.read_text().endswith("\n")):
            assert time.monotonic() < give_up, "the grandchild did not start"
            time.sleep(0.01)
        grandchild = int(pidfile.read_text())
        assert not _pid_dead(grandchild)
    finally:
        t.close(None, 100_000_000)
    give_up = time.monotonic() + 15  # (a bound for a loaded machine, not a wait)
    while not _pid_dead(grandchild) and time.monotonic() < give_up:
        time.sleep(0.01)
    assert _pid_dead(grandchild)


@pytest.mark.e2e
def test_stderr_is_drained_while_the_engine_writes_megabytes(tmp_path: Path) -> None:
    log = tmp_path / "err.log"
    t = PipeTransport([sys.executable, str(SCRIPTS / "first_legal.py"), "flood"], stderr_log=log)
    try:
        t.write_line('{"type":"hello"}')
        got = t.read(time.monotonic_ns() + 20 * SECOND)
        assert isinstance(got, Line) and '"hello"' in got.text
    finally:
        t.close('{"type":"quit"}', SECOND)
    assert t.stderr_bytes() == 2100 * 1000
    assert log.stat().st_size < (1 << 20) + 100
    assert t.stderr_tail().endswith("x\n")


@pytest.mark.e2e
def test_an_engine_that_exits_gives_eof_and_its_exit_code() -> None:
    t = PipeTransport([sys.executable, "-c", "import sys; sys.exit(5)"])
    got = t.read(time.monotonic_ns() + 10 * SECOND)
    assert isinstance(got, Eof)
    info = t.wait_exit(5 * SECOND)
    assert info is not None and info.exit_code == 5
    assert t.close(None, SECOND).exit_code == 5


@pytest.mark.e2e
def test_pty_gets_lines_from_an_engine_that_never_flushes() -> None:
    argv = [sys.executable, str(SCRIPTS / "first_legal.py"), "noflush"]
    env = {"PYTHONUNBUFFERED": ""}  # empty: stdout buffered on a pipe, as by default
    pipe = PipeTransport(argv, env=env)
    pty = PtyTransport(argv, env=env)
    try:
        for t in (pipe, pty):
            t.write_line('{"type":"hello"}')
        assert pipe.read(time.monotonic_ns() + SECOND // 2) is None  # stuck in its buffer
        got = pty.read(time.monotonic_ns() + 10 * SECOND)
        assert isinstance(got, Line) and '"first_legal"' in got.text
    finally:
        pipe.close(None, SECOND // 5)
        pty.close(None, SECOND // 5)


def test_a_missing_program_is_a_clear_start_error() -> None:
    from bidref.engines import EngineStartError

    with pytest.raises(EngineStartError, match="cannot start"):
        PipeTransport(["/nonexistent/engine"])


def test_resolve_engine_forms(tmp_path: Path, c_first: Path) -> None:
    py = resolve_engine("sample_engines/python_random/engine.py")
    assert py.command == (sys.executable, "sample_engines/python_random/engine.py")
    assert py.name == "python_random"
    assert resolve_engine(str(c_first)).command == (str(c_first),)
    assert resolve_engine("python3 -u bot.py --fast").command == (
        "python3",
        "-u",
        "bot.py",
        "--fast",
    )
    with pytest.raises(EngineSpecError, match="there is no folder 'sample_engines/c_nothing'"):
        resolve_engine("sample_engines/c_nothing/engine")
    plain = tmp_path / "bot"
    plain.write_text("#!/bin/sh\n")
    with pytest.raises(EngineSpecError, match="chmod"):
        resolve_engine(str(plain))


def test_engine_files(tmp_path: Path) -> None:
    (tmp_path / "engine.py").write_text("")
    f = tmp_path / "greedy.toml"
    f.write_text(
        'name = "g"\ncommand = "engine.py --x"\nenv = { A = "1" }\noptions = { depth = 3 }\n'
    )
    spec = load_engine_file(f)
    assert spec.name == "g"
    assert spec.command == (sys.executable, str(tmp_path / "engine.py"), "--x")
    assert spec.cwd == str(tmp_path) and spec.env == {"A": "1"}
    assert spec.options == {"depth": 3}
    j = tmp_path / "e.json"
    j.write_text('{"command": ["sh", "-c", "true"], "colour": 1}')
    with pytest.raises(EngineSpecError, match="unknown keys \\['colour'\\]"):
        resolve_engine(str(j))


@pytest.mark.e2e
def test_write_all_writes_more_than_a_pipe_holds_in_order() -> None:
    # Over the pipe's capacity the first write is partial: the rest must follow
    # intact once the reader makes room.
    import threading

    from bidref.engines.transport import write_all

    r, w = os.pipe()
    os.set_blocking(w, False)
    got = bytearray()

    def reader() -> None:
        while chunk := os.read(r, 4096):
            got.extend(chunk)

    th = threading.Thread(target=reader)
    th.start()
    data = bytes(range(256)) * 2000  # 512 KB
    try:
        write_all(w, data)
    finally:
        os.close(w)
        th.join(timeout=10)
        os.close(r)
    assert bytes(got) == data


def test_write_all_to_a_closed_pipe_is_a_write_error() -> None:
    from bidref.engines.transport import WriteError, write_all

    r, w = os.pipe()
    os.close(r)
    try:
        with pytest.raises(WriteError, match="stdin is closed"):
            write_all(w, b"x\n")
    finally:
        os.close(w)


def test_has_input_reads_a_waiting_reply_at_once(c_first: Path) -> None:
    t = PipeTransport([str(c_first)])
    try:
        t.write_line('{"type":"ping","id":1}')
        give_up = time.monotonic() + 10
        while not t.has_input():
            assert time.monotonic() < give_up, "no pong within 10 s"
            time.sleep(0.001)
        got = t.read(t.clock())  # the deadline is now: only what is already read
        assert isinstance(got, Line) and got.text == '{"type":"pong","id":1}'
        assert not t.has_input()
    finally:
        t.close('{"type":"quit"}', SECOND)


@pytest.mark.parametrize("cls", [PipeTransport, PtyTransport])
def test_a_stderr_log_that_cannot_be_made_starts_no_process(
    cls: type[PipeTransport] | type[PtyTransport], tmp_path: Path
) -> None:
    marker = tmp_path / "started"
    with pytest.raises((OSError, EngineStartError)):
        cls(
            ["sh", "-c", f"touch {marker}; exec sleep 30"],
            stderr_log=tmp_path / "no-such-dir" / "e.log",
        )
    time.sleep(0.3)
    assert not marker.exists(), "the engine was started and left running"


def test_a_missing_interpreter_is_named_when_the_engine_cannot_start(tmp_path: Path) -> None:
    from bidref.engines import EngineStartError

    prog = tmp_path / "engine"
    prog.write_text("#!/nonexistent/python9\nprint('hello')\n")
    prog.chmod(0o755)
    with pytest.raises(EngineStartError, match="names the interpreter '/nonexistent/python9'"):
        start_engine(EngineSpec("e", (str(prog),)))


@pytest.mark.parametrize("kind", ["pipe", "pty"])
def test_a_closed_engine_is_never_written_to_again(kind: str) -> None:
    """Its stdin's descriptor is released at close, and the number is soon another
    pipe's (the next engine's stdin): a late line must not reach that one."""
    from bidref.engines import WriteError

    cls = PipeTransport if kind == "pipe" else PtyTransport
    t = cls([sys.executable, "-c", "import sys; sys.stdin.read()"])
    t.close(None, SECOND)
    r, w = os.pipe()  # (very likely the numbers just released)
    try:
        os.set_blocking(r, False)
        with pytest.raises(WriteError):
            t.write_line('{"type":"quit"}')
        with pytest.raises(BlockingIOError):
            os.read(r, 100)  # nothing arrived
    finally:
        os.close(r)
        os.close(w)


def test_close_from_two_threads_releases_once() -> None:
    """Two threads closing one engine (a match's end and an interrupt): the second
    waits for the first and gets the same result."""
    import threading

    t = PipeTransport([sys.executable, "-c", "import sys; sys.stdin.read()"])
    released = []
    real = t._release

    def counted() -> None:
        released.append(threading.current_thread().name)
        real()

    t._release = counted  # type: ignore[method-assign]
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda: got.append(t.close('{"type":"quit"}', SECOND)))
        for _ in range(2)
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=30)
    assert len(released) == 1 and len(got) == 2 and got[0] is got[1]


def test_a_closed_pty_engine_never_closes_a_descriptor_again() -> None:
    """The pty's descriptor is released once, at close: collecting the transport
    later (the cyclic GC runs whenever it likes) must not close the same number,
    by then another engine's pipe."""
    import gc

    t = PtyTransport([sys.executable, "-c", "import sys; sys.stdin.read()"])
    t.close(None, SECOND)
    fds = [os.pipe() for _ in range(4)]  # (the numbers just released among them)
    try:
        del t
        gc.collect()
        for r, w in fds:
            os.fstat(r)  # EBADF if it was closed behind our back
            os.fstat(w)
    finally:
        for pair in fds:
            for fd in pair:
                os.close(fd)


def test_the_stderr_thread_reads_its_own_descriptor_not_the_transports() -> None:
    """The transport's stderr number is released at close while a descendant may
    still hold the pipe; the thread reads a duplicate, which it closes at EOF."""
    from bidref.engines.transport import StderrSink, drain

    t = PipeTransport([sys.executable, "-c", "import sys; sys.stderr.write('x'); sys.stdin.read()"])
    try:
        assert t.proc.stderr is not None
        assert t._threads[0]._args[0] != t.proc.stderr.fileno()  # type: ignore[attr-defined]
    finally:
        t.close(None, SECOND)
    r, w = os.pipe()
    sink = StderrSink(None)
    os.write(w, b"said")
    os.close(w)
    drain(r, sink)  # (to EOF: then the thread's descriptor is closed)
    assert sink.tail() == "said"
    with pytest.raises(OSError):
        os.fstat(r)
