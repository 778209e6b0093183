"""A TCP relay on 127.0.0.1 that can cut a network seat's connection mid-turn."""

from __future__ import annotations

import contextlib
import socket
import threading

REQUEST = b'"type":"request"'


class CutProxy:
    """Relays connections to ``target``. At the ``cut_at``-th request line the
    referee sends through it, it drops that request and cuts every connection
    (the remote engine never sees it), then refuses new connections for
    ``restore_after`` seconds (None: for good)."""

    def __init__(
        self, target_port: int, cut_at: int | None = None, restore_after: float | None = None
    ) -> None:
        self.target = ("127.0.0.1", target_port)
        self.cut_at = cut_at
        self.restore_after = restore_after
        self.requests = 0
        self.cut = threading.Event()
        self.blocked = False
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self.port = self._server.getsockname()[1]
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def close(self) -> None:
        self._stop = True
        self._cut_all()
        self._server.close()

    def _accept(self) -> None:
        while not self._stop:
            try:
                c, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self.blocked:
                c.close()
                continue
            try:
                s = socket.create_connection(self.target, timeout=5)
            except OSError:
                c.close()
                continue
            s.settimeout(None)
            with self._lock:
                self._socks += [c, s]
            threading.Thread(target=self._pump, args=(c, s, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(s, c, True), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, from_referee: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if from_referee and REQUEST in data:
                    with self._lock:
                        self.requests += data.count(REQUEST)
                        cut = self.cut_at is not None and not self.cut.is_set()
                        cut = cut and self.requests >= (self.cut_at or 0)
                    if cut:
                        self._cut_now()
                        return  # the request is dropped with the connection
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for x in (src, dst):
                with contextlib.suppress(OSError):
                    x.shutdown(socket.SHUT_RDWR)

    def _cut_now(self) -> None:
        self.blocked = True
        self._cut_all()
        self.cut.set()
        if self.restore_after is not None:
            threading.Timer(self.restore_after, self._restore).start()

    def _restore(self) -> None:
        self.blocked = False

    def _cut_all(self) -> None:
        with self._lock:
            socks, self._socks = self._socks, []
        for x in socks:
            with contextlib.suppress(OSError):
                x.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                x.close()
