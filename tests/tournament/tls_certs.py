"""Certificates for tests over TLS on 127.0.0.1, made with the openssl command:
a CA, and one certificate it signs (for 127.0.0.1 and localhost, for both server
and client use) that the scheduler, the workers and the coordinator all present."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from bidref.tournament.loopback import TlsFiles


def make_certificates(folder: Path) -> TlsFiles:
    openssl = shutil.which("openssl")
    if openssl is None:  # (the CI image has it; a machine without it cannot run TLS tests)
        raise RuntimeError("these tests need the openssl command")
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (
        folder / n for n in ("ca.key", "ca.pem", "node.key", "node.csr", "node.pem")
    )
    ext = folder / "node.ext"
    ext.write_text(
        "basicConstraints=CA:FALSE\n"
        "keyUsage=digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth,clientAuth\n"
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
    )

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], check=True, capture_output=True, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca),
        "-days", "2", "-subj", "/CN=bidref test CA")  # fmt: skip
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr),
        "-subj", "/CN=127.0.0.1")  # fmt: skip
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key),
        "-CAcreateserial", "-out", str(cert), "-days", "2", "-extfile", str(ext))  # fmt: skip
    return TlsFiles(ca, cert, key)
