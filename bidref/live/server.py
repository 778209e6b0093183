"""The live page of a tournament, served on 127.0.0.1 with server-sent events.

One :class:`LiveServer` (the standard library's ``ThreadingHTTPServer``) serves:

- ``/live`` the page (and ``/`` when it is the home page), which loads nothing
  from anywhere but this server;
- ``/live/events`` the updates as server-sent events: the whole snapshot first,
  then each change (the ``tables`` part only when a record came);
- ``/live/state.json`` the snapshot, for the page's slow polling fallback (a
  browser or proxy that cuts the event stream);
- ``/stderr/I/S`` seat S's stderr log of finished match I (never a running one);
- everything else as the report server does (:mod:`bidref.render.tournament.server`):
  the report (``/`` or ``/report``), ``/replay/I.html``, the replay assets.

One poller thread reads the folder (:class:`~.watch.Watch`) every ``poll_s``
while at least one page listens, and sleeps otherwise: the server costs nothing
with no browser attached, and about a stat per running match per poll with one.
It never writes anything and never talks to the runner.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..render.dominoes import tile_defs
from ..render.replay_page import replay_page
from ..render.timeline import build_timeline
from ..render.tournament.server import Response, route
from .watch import Watch

POLL_S = 0.2  # how often the folder is read while a page listens
NICE = 10  # the server's threads' priority, below the matches'
KEEPALIVE_S = 15.0  # a comment line on a quiet stream (a proxy or browser may cut it)
STDERR_CAP = 256 * 1024  # bytes of a stderr log served: its end
HTML = "text/html; charset=utf-8"
JSON = "application/json"


def live_asset(name: str) -> str:
    return files("bidref.live").joinpath("assets", name).read_text(encoding="utf-8")


def live_page(title: str = "bidref tournament: live") -> str:
    """The page (``assets/live.html``), the tile drawings inside it; its data comes
    from the event stream (or the JSON fallback)."""
    page = live_asset("live.html").replace("@TITLE@", escape(title))
    return page.replace("@TILE_DEFS@", tile_defs())


def _yield_to_matches() -> None:
    """Run this thread at a lower priority (nice + 10; Linux sets it per thread): in
    the tournament's own process the page's work waits for the referees' (the
    workers and the runner keep theirs)."""
    with contextlib.suppress(OSError, AttributeError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + NICE))


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()


class LiveServer(ThreadingHTTPServer):
    """The live page of the tournament in ``out_dir`` (see the module's text);
    ``home``: what ``/`` shows, ``"live"`` or ``"report"``."""

    daemon_threads = True
    block_on_close = False

    def __init__(
        self,
        out_dir: Path,
        port: int = 0,
        host: str = "127.0.0.1",
        *,
        home: str = "live",
        poll_s: float = POLL_S,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.out_dir = out_dir
        self.home = home
        self.poll_s = poll_s
        self.watch = Watch(out_dir, now)
        self.lock = threading.Lock()  # the watch, its snapshot and the versions
        self.changed = threading.Condition(self.lock)
        # each open stream's last versions sent, and a wake for finish() when one moves
        self.sent: dict[int, tuple[int, int]] = {}
        self.delivered = threading.Condition(self.lock)
        self.listeners = 0
        self.closing = False
        self._wake = threading.Event()
        self._last_refresh = 0.0
        super().__init__((host, port), _Handler)
        self._poller = threading.Thread(target=self._poll, name="bidref-live-poll", daemon=True)
        self._poller.start()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"

    def refresh(self) -> None:
        """Read the folder now (under the lock) and wake the streams if it changed."""
        with self.lock:
            tables, boards = self.watch.refresh()
            self._last_refresh = time.monotonic()
            if tables or boards:
                self.changed.notify_all()

    def _poll(self) -> None:
        _yield_to_matches()
        while not self.closing:
            if self.listeners == 0:
                self._wake.wait()  # nobody listens: nothing to read
                self._wake.clear()
                continue
            self.refresh()
            time.sleep(self.poll_s)

    def listen(self, delta: int) -> None:
        with self.lock:
            self.listeners += delta
        self._wake.set()

    def state(self) -> bytes:
        if time.monotonic() - self._last_refresh >= self.poll_s:
            self.refresh()
        with self.lock:
            return _json(self.watch.snapshot())

    def finish(self, timeout_s: float = 2.0, clock: Callable[[], float] = time.monotonic) -> bool:
        """The run is over: read the folder a last time and give every open page up
        to ``timeout_s`` to be sent it (the last results, the final standings),
        before the server goes with the run. Whether all were."""
        self.refresh()
        end = clock() + timeout_s
        with self.lock:
            target = (self.watch.tables_version, self.watch.boards_version)
            while any(v != target for v in self.sent.values()):
                left = end - clock()
                if left <= 0:
                    return False
                self.delivered.wait(left)
        return True

    def shutdown(self) -> None:
        self.closing = True
        with self.lock:
            self.changed.notify_all()
        self._wake.set()
        super().shutdown()


def _text(status: HTTPStatus, message: str) -> Response:
    return Response(int(status), "text/plain; charset=utf-8", (message + "\n").encode())


def live_route(server: LiveServer, path: str) -> Response | None:
    """The live site's answer for ``path``; None: the event stream (the handler's)."""
    path = path.split("?", 1)[0].split("#", 1)[0]
    if path == "/live/events":
        return None
    if path in ("/live", "/live/") or (path in ("/", "/index.html") and server.home == "live"):
        return Response(200, HTML, live_page().encode())
    if path == "/live/live.js":
        return Response(200, "text/javascript; charset=utf-8", live_asset("live.js").encode())
    if path == "/live/live.css":
        return Response(200, "text/css; charset=utf-8", live_asset("live.css").encode())
    if path == "/live/state.json":
        return Response(200, JSON, server.state())
    if path.startswith("/stderr/"):
        return _stderr(server, path)
    if path.startswith("/running/"):
        return _running(server, path[len("/running/") :])
    if path in ("/report", "/report.html"):
        path = "/"
    return route(server.out_dir, path)


def _running(server: LiveServer, rel: str) -> Response:
    """The replay of a running match so far. Only what its transcript holds: the
    rounds revealed show their hands, the round being played none (the replay
    page draws a round's hands from its reveal only)."""
    with server.lock:
        run = server.watch.running.get(rel)  # (only a running match's own name)
    if run is None:
        return _text(HTTPStatus.NOT_FOUND, f"{rel}: not a running match (its replay: /report)")
    try:
        data = run.path.read_bytes()
    except OSError as e:
        return _text(HTTPStatus.NOT_FOUND, f"cannot read {rel}: {e.strerror or e}")
    page = replay_page(build_timeline(data), f"{rel} (running: reload for more)", assets="/assets/")
    return Response(200, HTML, page.encode())


def _stderr(server: LiveServer, path: str) -> Response:
    parts = path.split("/")
    if len(parts) != 4 or not parts[2].isdigit() or parts[3] not in ("0", "1"):
        return _text(HTTPStatus.NOT_FOUND, f"{path}: no such log (give /stderr/MATCH/SEAT)")
    with server.lock:
        server.watch.refresh()
        log_path = server.watch.stderr_log(int(parts[2]), int(parts[3]))
    if log_path is None:
        return _text(
            HTTPStatus.NOT_FOUND,
            f"match {parts[2]}: no stderr log of seat {parts[3]} (keep them with "
            "bidref tournament --stderr-dir DIR)",
        )
    try:
        with log_path.open("rb") as f:
            size = f.seek(0, 2)
            f.seek(max(0, size - STDERR_CAP))
            data = f.read(STDERR_CAP)
    except OSError as e:
        return _text(HTTPStatus.NOT_FOUND, f"cannot read {log_path}: {e.strerror or e}")
    head = b"" if size <= STDERR_CAP else f"[the last {STDERR_CAP} bytes of {size}]\n".encode()
    return Response(200, "text/plain; charset=utf-8", head + data)


class _Handler(BaseHTTPRequestHandler):
    server: LiveServer

    def do_GET(self) -> None:
        r = live_route(self.server, self.path)
        if r is None:
            self._events()
            return
        self.send_response(r.status)
        self.send_header("Content-Type", r.content_type)
        self.send_header("Content-Length", str(len(r.body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(r.body)

    def _events(self) -> None:
        """The event stream: the snapshot, then each change, until the page goes."""
        srv = self.server
        _yield_to_matches()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        srv.listen(+1)
        sent = (-1, -1)  # the tables and boards versions this page has
        key = threading.get_ident()
        with srv.lock:
            srv.sent[key] = sent
        try:
            srv.refresh()
            while not srv.closing:
                with srv.lock:
                    w = srv.watch
                    now = (w.tables_version, w.boards_version)
                    if now == sent:
                        srv.changed.wait(KEEPALIVE_S)
                        now = (w.tables_version, w.boards_version)
                    message: dict[str, Any] = {}
                    if now[0] != sent[0]:
                        message["tables"] = w.tables()
                    if now[1] != sent[1]:
                        message["boards"] = w.boards()
                    data = _json(message) if message else None
                    sent = now
                self.wfile.write(b"data: " + data + b"\n\n" if data else b": keep-alive\n\n")
                self.wfile.flush()
                with srv.lock:
                    srv.sent[key] = sent
                    srv.delivered.notify_all()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass  # the page went away
        finally:
            with srv.lock:
                srv.sent.pop(key, None)
                srv.delivered.notify_all()
            srv.listen(-1)

    def log_message(self, format: str, *args: object) -> None:
        pass  # (only the CLI prints)
