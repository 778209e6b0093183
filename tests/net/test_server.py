"""The seat's WebSocket server on loopback: authentication, refusals, caps, TLS."""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from bidref.engines import Line, Overlong
from bidref.net.framing import (
    CLOSE_AUTH_TIMEOUT,
    CLOSE_BAD_AUTH,
    CLOSE_BUSY,
    CLOSE_POLICY,
    CLOSE_REPLACED,
    ListenAddress,
    auth_message,
)
from bidref.net.match_seats import tls_context
from bidref.net.seat import NetworkSeat
from bidref.rules import SECOND
from bidref.testing import FakeClock

WAIT = 10.0  # real seconds a test waits for the server at most (the machine is loaded)


@pytest.fixture
def seat() -> Iterator[NetworkSeat]:
    s = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0, max_line=1000)
    s.listen()
    yield s
    s.close(None, 0)


def ws_connect(url: str, **kw: object) -> ClientConnection:
    ws = connect(url, proxy=None, **kw)  # type: ignore[arg-type]
    return ws.__enter__()  # (websockets >= 17.1 wants it used as a context manager)


def client(seat: NetworkSeat, token: str | None = None, fresh: bool = True) -> ClientConnection:
    ws = ws_connect(seat.url, open_timeout=WAIT, compression=None)
    ws.send(auth_message(seat.token if token is None else token, fresh))
    return ws


def close_code(ws: ClientConnection) -> int | None:
    with pytest.raises(ConnectionClosed) as e:
        while True:
            ws.recv(timeout=WAIT)
    return e.value.rcvd.code if e.value.rcvd else None


def events(seat: NetworkSeat) -> list[str]:
    return [n["event"] for n in seat.connection_notes()]


def test_the_right_token_takes_the_seat_and_lines_flow_both_ways(seat: NetworkSeat) -> None:
    assert seat.url.startswith("ws://127.0.0.1:") and not seat.url.endswith(":0/")
    ws = client(seat)
    assert json.loads(ws.recv(timeout=WAIT))["type"] == "welcome"
    seat.send('{"type":"ping","id":1}')
    assert ws.recv(timeout=WAIT) == '{"type":"ping","id":1}'
    ws.send('{"type":"pong","id":1}')
    got = seat.receive(seat.clock() + round(WAIT * SECOND))
    assert isinstance(got, Line) and got.text == '{"type":"pong","id":1}'
    ws.close()


def test_a_wrong_token_is_refused_and_never_disturbs_the_seat(seat: NetworkSeat) -> None:
    ws = client(seat)
    ws.recv(timeout=WAIT)  # welcome
    intruder = client(seat, token=seat.token[:-1] + ("x" if seat.token[-1] != "x" else "y"))
    assert close_code(intruder) == CLOSE_BAD_AUTH
    # the seat's own client is still there and still gets its lines
    seat.send('{"type":"ping","id":2}')
    assert ws.recv(timeout=WAIT) == '{"type":"ping","id":2}'
    notes = seat.connection_notes()
    assert [n["event"] for n in notes] == ["connect", "refused"]
    assert notes[1]["reason"] == "wrong token"
    ws.close()


def test_another_seats_token_is_refused(seat: NetworkSeat) -> None:
    other = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=1)
    other.listen()
    try:
        assert close_code(client(seat, token=other.token)) == CLOSE_BAD_AUTH
    finally:
        other.close(None, 0)
    assert events(seat) == ["refused"]


def test_a_first_message_that_is_not_auth_is_refused(seat: NetworkSeat) -> None:
    ws = ws_connect(seat.url, open_timeout=WAIT)
    ws.send('{"type":"hello","name":"x","protocol":"bidref/1"}')
    assert close_code(ws) == CLOSE_BAD_AUTH
    big = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0)  # frames up to 4 MiB
    big.listen()
    try:
        ws = ws_connect(big.url, open_timeout=WAIT)
        ws.send(json.dumps({"type": "auth", "token": big.token, "pad": "x" * 5000}))
        assert close_code(ws) == CLOSE_BAD_AUTH  # over the auth size cap, right token or not
    finally:
        big.close(None, 0)
    assert events(seat) == ["refused"] and events(big) == ["refused"]


def test_a_silent_client_is_dropped_at_the_start_up_timeout() -> None:
    clock = FakeClock(0)
    s = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0, clock=clock, startup_timeout_ns=SECOND)
    s.listen()
    try:
        ws = ws_connect(s.url, open_timeout=WAIT)
        with pytest.raises(TimeoutError):
            ws.recv(timeout=0.3)  # not dropped before its time
        clock.advance(SECOND)
        assert close_code(ws) == CLOSE_AUTH_TIMEOUT
        assert s.connection_notes()[-1]["reason"] == "no auth message within the start-up timeout"
    finally:
        s.close(None, 0)


def test_a_newer_connection_with_the_token_replaces_the_old(seat: NetworkSeat) -> None:
    first = client(seat)
    first.recv(timeout=WAIT)
    second = client(seat, fresh=False)
    assert json.loads(second.recv(timeout=WAIT))["resume"] is True
    assert close_code(first) == CLOSE_REPLACED
    seat.send('{"type":"ping","id":3}')
    assert second.recv(timeout=WAIT) == '{"type":"ping","id":3}'
    second.close()
    assert events(seat)[:2] == ["connect", "resume"]


def test_an_over_long_message_is_a_protocol_loss_and_a_huge_frame_closes(seat: NetworkSeat) -> None:
    ws = client(seat)
    ws.recv(timeout=WAIT)
    ws.send('{"type":"log","message":"' + "y" * 2000 + '"}')  # over max_line (1000)
    got = seat.receive(seat.clock() + round(WAIT * SECOND))
    assert isinstance(got, Overlong) and got.length > 1000
    ws.send("z" * 10_000)  # over the transport's frame cap: the connection is closed
    assert close_code(ws) == 1009
    got = seat.receive(seat.clock() + round(WAIT * SECOND))
    assert isinstance(got, Overlong)


def test_a_flood_of_messages_is_cut_at_the_rate_cap() -> None:
    clock = FakeClock(0)  # stands still: the bucket never refills
    s = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0, clock=clock)
    s.listen()
    try:
        ws = client(s)
        ws.recv(timeout=WAIT)
        with pytest.raises(ConnectionClosed) as e:
            for _ in range(5000):  # the cap lets 2000 through at once
                ws.send('{"type":"log","message":"spam"}')
            ws.recv(timeout=WAIT)  # (if every send got out before the close)
        assert e.value.rcvd is not None and e.value.rcvd.code == CLOSE_POLICY
    finally:
        s.close(None, 0)
    notes = s.connection_notes()
    assert [n["event"] for n in notes] == ["connect", "disconnect"]
    assert notes[1]["reason"] == "over the message rate cap"


def make_cert(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, made with the openssl CLI, or the
    cryptography package when there is no openssl."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    if shutil.which("openssl"):
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
                "-keyout",
                str(key),
                "-out",
                str(cert),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        return cert, key
    crypto = pytest.importorskip(
        "cryptography",
        reason="no openssl CLI and no cryptography package to make a test certificate",
    )
    del crypto
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    k = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    san = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    c = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(k.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(san, False)
        .sign(k, hashes.SHA256())
    )
    cert.write_bytes(c.public_bytes(serialization.Encoding.PEM))
    key.write_bytes(
        k.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, key


def test_wss_with_a_certificate_and_key(tmp_path: Path) -> None:
    cert, key = make_cert(tmp_path)
    s = NetworkSeat(ListenAddress("127.0.0.1", 0), seat=0, tls=tls_context(cert, key))
    s.listen()
    try:
        assert s.url.startswith("wss://127.0.0.1:")
        # a client that does not trust the certificate cannot connect
        with pytest.raises(ssl.SSLError):
            ws_connect(s.url, open_timeout=WAIT)
        ctx = ssl.create_default_context(cafile=str(cert))
        ws = ws_connect(s.url, ssl=ctx, open_timeout=WAIT)
        ws.send(auth_message(s.token, True))
        assert json.loads(ws.recv(timeout=WAIT))["type"] == "welcome"
        # and a plain ws:// client gets nothing from a wss:// seat
        plain = s.url.replace("wss://", "ws://")
        with pytest.raises(Exception):  # noqa: B017 (the handshake fails one way or another)
            ws_connect(plain, open_timeout=3).recv(timeout=3)
        ws.close()
    finally:
        s.close(None, 0)


def test_tls_options_need_both_files(tmp_path: Path) -> None:
    from bidref.net import NetSpecError

    with pytest.raises(NetSpecError, match="both --tls-cert and --tls-key"):
        tls_context(tmp_path / "c.pem", None)
    with pytest.raises(NetSpecError, match="cannot load the TLS certificate"):
        tls_context(tmp_path / "c.pem", tmp_path / "k.pem")


def test_idle_connections_cannot_keep_the_seats_client_out(seat: NetworkSeat) -> None:
    idle = [ws_connect(seat.url, open_timeout=WAIT) for _ in range(12)]  # over the cap (8)
    ws = client(seat)
    assert json.loads(ws.recv(timeout=WAIT))["type"] == "welcome"
    closed = 0
    for c in idle:
        try:
            c.recv(timeout=0.2)
        except ConnectionClosed as e:
            closed += e.rcvd is not None and e.rcvd.code == CLOSE_BUSY
        except TimeoutError:
            pass
        c.close()
    assert closed >= 4  # the longest waiting ones made room
    ws.close()


def test_a_client_stalled_in_the_tls_opening_does_not_hold_the_seats_close(
    tmp_path: Path,
) -> None:
    """A connection that never does its TLS handshake holds a server thread until
    its open timeout (at most OPEN_TIMEOUT_S, not the start-up timeout); closing
    the seat does not wait for it (the server's shutdown would)."""
    import socket
    import time

    from bidref.net.server import OPEN_TIMEOUT_S, STOP_WAIT_S

    cert, key = make_cert(tmp_path)
    s = NetworkSeat(
        ListenAddress("127.0.0.1", 0),
        seat=0,
        tls=tls_context(cert, key),
        startup_timeout_ns=120 * SECOND,
    )
    s.listen()
    port = int(s.url.rsplit(":", 1)[1].split("/")[0])
    stalled = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    try:
        stalled.sendall(b"\x16\x03\x01")  # the start of a TLS record, and nothing more
        time.sleep(0.2)  # (the server's thread is in the handshake: nothing to wait on)
        t0 = time.monotonic()
        s.close(None, 0)
        took = time.monotonic() - t0
    finally:
        stalled.close()
    # (the server's shutdown alone would wait for the stalled opening: up to the
    # open timeout; 2 x STOP_WAIT_S is the most the close may take now)
    assert took < 2 * STOP_WAIT_S + 1 < OPEN_TIMEOUT_S, took
