"""A tournament's report served on 127.0.0.1, each match's replay made on demand.

Written out, a replay page holds every step of its match drawn (about 60 times its
gzipped transcript): 120 matches made 220 MB. Served, the report is the same page
as ``bidref tournament-report DIR --html``, read afresh from the folder at every
load (a running tournament shows its progress), and a match's page is made from
its transcript when it is opened, with the one shared script and style sheet: the
folder gains nothing. The rebuild needs the rules core (a v2 transcript leaves the
events out; the page shows hands, legal actions and layouts), which is Python:
so the pages are made here, not in the browser.

:func:`route` is the whole site as a function of the path (tested without a
socket); :func:`make_server` binds it to a loopback address.
"""

from __future__ import annotations

import re
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import NamedTuple

from ...tournament.store import ResultsError
from ..replay_page import asset
from .report import Tournament, match_page

_REPLAY = re.compile(r"/replay/(\d+)\.html")
_ASSETS = {"/assets/replay.js": "text/javascript", "/assets/replay.css": "text/css"}
HTML = "text/html; charset=utf-8"


class Response(NamedTuple):
    status: int
    content_type: str
    body: bytes


def _text(status: HTTPStatus, message: str) -> Response:
    return Response(int(status), "text/plain; charset=utf-8", (message + "\n").encode())


def route(out_dir: Path, path: str) -> Response:
    """What the site answers for ``path`` (the query string ignored): ``/`` the report,
    ``/replay/I.html`` the replay of the report's match I, ``/assets/…`` the shared
    script and style sheet; 404 for anything else (no file is served by its name)."""
    path = path.split("?", 1)[0].split("#", 1)[0]
    if path in _ASSETS:
        return Response(200, _ASSETS[path] + "; charset=utf-8", asset(path[8:]).encode())
    try:
        t = Tournament.read(out_dir)
    except ResultsError as e:
        return _text(HTTPStatus.SERVICE_UNAVAILABLE, f"{out_dir}: {e}")
    if path in ("/", "/index.html"):
        links = {i: f"replay/{i}.html" for i, p in enumerate(t.transcripts) if p is not None}
        return Response(200, HTML, t.page(links).encode())
    m = _REPLAY.fullmatch(path)
    if m is None:
        return _text(HTTPStatus.NOT_FOUND, f"{path}: no such page (the report is at /)")
    i = int(m.group(1))
    if i >= len(t.records) or t.transcripts[i] is None:
        return _text(HTTPStatus.NOT_FOUND, f"match {i}: no such match, or its transcript is gone")
    transcript = t.transcripts[i]
    assert transcript is not None
    try:
        page = match_page(transcript, t.records[i], back="../", assets="../assets/")
    except OSError as e:  # removed or unreadable since the folder was read
        return _text(HTTPStatus.NOT_FOUND, f"match {i}: cannot read {transcript}: {e}")
    return Response(200, HTML, page.encode())


def make_server(out_dir: Path, port: int = 0, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server (not yet serving) of the report of ``out_dir`` on ``host:port`` (port 0:
    any free one; ``server.server_address`` says which). Raises OSError (cannot bind)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            r = route(out_dir, self.path)
            self.send_response(r.status)
            self.send_header("Content-Type", r.content_type)
            self.send_header("Content-Length", str(len(r.body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(r.body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # (only the CLI prints; a request log is not what a user asked for)

    return ThreadingHTTPServer((host, port), Handler)
