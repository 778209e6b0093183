"""`bidref match listen://…` and `bidref connect`: bad arguments get a clear error and status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app

ROOT = Path(__file__).resolve().parents[2]
RANDOM = str(ROOT / "sample_engines" / "python_random" / "engine.py")


def run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.output


@pytest.mark.parametrize(
    ("arg", "says"),
    [
        ("listen://127.0.0.1", "give listen://HOST:PORT"),
        ("listen://127.0.0.1:99999", "listen://127.0.0.1:99999"),
        ("listen://:9000", "give listen://HOST:PORT"),
        ("listen://127.0.0.1:0/path", "give listen://HOST:PORT"),
    ],
)
def test_a_bad_listen_address_is_refused(arg: str, says: str) -> None:
    code, out = run("match", arg, RANDOM)
    assert code == 2 and says in out


def test_network_options_without_a_network_seat_are_refused(tmp_path: Path) -> None:
    code, out = run("match", RANDOM, RANDOM, "--connect-info", str(tmp_path / "c.json"))
    assert code == 2 and "are for network seats" in out


def test_a_certificate_without_its_key_is_refused(tmp_path: Path) -> None:
    cert = tmp_path / "cert.pem"
    cert.write_text("not a certificate")
    code, out = run("match", "listen://127.0.0.1:0", RANDOM, "--tls-cert", str(cert))
    assert code == 2 and "give both --tls-cert and --tls-key" in out
    code, out = run(
        "match", "listen://127.0.0.1:0", RANDOM, "--tls-cert", str(cert), "--tls-key", str(cert)
    )
    assert code == 2 and "cannot load the TLS certificate" in out


def test_a_port_in_use_is_refused() -> None:
    import socket

    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
        code, out = run("match", f"listen://127.0.0.1:{port}", RANDOM)
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["http://x:1/", "--token", "t", "--", RANDOM], "ws:// or wss:// URL"),
        (["ws://127.0.0.1:1/", "--token", " ", "--", RANDOM], "--token is empty"),
        (["ws://127.0.0.1:1/", "--token", "t", "--retry-for", "0", "--", RANDOM], "--retry-for"),
        (["ws://127.0.0.1:1/", "--token", "t", "--", "no/such/engine"], "does not exist"),
    ],
)
def test_connect_bad_arguments(args: list[str], says: str) -> None:
    code, out = run("connect", *args)
    assert code == 2 and says in out


def test_connect_takes_the_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # nothing listens on the port: it gives up after --retry-for, having tried
    monkeypatch.setenv("BIDREF_TOKEN", "from-env")
    code, out = run("connect", "ws://127.0.0.1:1/", "--retry-for", "0.5", "--", RANDOM)
    assert code == 1 and "gave up" in out and "cannot connect" in out


def test_a_tournament_refuses_network_engines_on_a_cluster(tmp_path: Path) -> None:
    out_dir = tmp_path / "t"
    code, out = run(
        "tournament",
        "net=listen://127.0.0.1:0",
        RANDOM,
        "--cluster",
        "tcp://127.0.0.1:1",
        "--out",
        str(out_dir),
    )
    assert code == 2 and "cannot play on a --cluster" in out and "net" in out, out
    assert not (out_dir / "results.jsonl").exists()


def test_a_tournament_refuses_a_bad_listen_address(tmp_path: Path) -> None:
    code, out = run("tournament", "listen://127.0.0.1", RANDOM, "--out", str(tmp_path / "t"))
    assert code == 2 and "give listen://HOST:PORT" in out, out


def test_tournament_network_options_need_a_network_engine(tmp_path: Path) -> None:
    code, out = run(
        "tournament",
        RANDOM,
        RANDOM,
        "--startup",
        "5",
        "--out",
        str(tmp_path / "t"),
    )
    assert code == 2 and "are for network engines" in out, out
