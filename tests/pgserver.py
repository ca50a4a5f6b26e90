"""A throw-away PostgreSQL server for the serve benchmark and the tests.

Debian's ``postgresql`` package (installed by ``make setup-test`` when missing)
provides ``initdb`` and ``pg_ctl``.  The cluster lives in a temporary
directory, listens on 127.0.0.1 only, on a port chosen free (another one if
that was taken before the server bound it), with trust
authentication for the one local user; it is stopped and removed on exit.
PostgreSQL refuses to run as root: as root, the cluster is created and run
as the ``postgres`` system user (``runuser``), which the package creates.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from grounded.core.errors import InputError


def pg_bindir() -> Path:
    """The directory holding initdb and pg_ctl (the newest installed major version)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if not versions:
        raise InputError("PostgreSQL is not installed (no initdb): apt-get install postgresql, or run make setup-test")
    return Path(versions[-1]).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TempPostgres:
    """``with TempPostgres() as pg: pg.url`` -- a fresh cluster, removed afterwards."""

    USER = "grounded"

    BIND_TRIES = 5
    """Ports tried when the one chosen free was taken before the server bound it (another process, meanwhile)."""

    def __init__(self, port: int | None = None):
        self.bindir = pg_bindir()
        self.chosen = port is None
        self.port = port or free_port()
        self.root = Path(tempfile.mkdtemp(prefix="grounded-pg-"))
        self.data = self.root / "data"
        self._as: list[str] = []
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError as exc:
                raise InputError("running as root and there is no postgres user to run PostgreSQL as "
                                 "(apt-get install postgresql creates it)") from exc
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self._as, *args], capture_output=True, text=True, cwd=self.root)
        if done.returncode != 0:
            raise InputError(f"{Path(args[0]).name} failed: {(done.stderr or done.stdout).strip()[-800:]}")

    @property
    def url(self) -> str:
        return f"postgresql://{self.USER}@127.0.0.1:{self.port}/postgres"

    def start(self) -> TempPostgres:
        """initdb, then pg_ctl start; a port chosen free but taken by the time the server binds it (initdb takes
        seconds) is replaced by another, at most BIND_TRIES in all."""
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", self.USER, "--auth=trust",
                  "--no-sync", "-E", "UTF8")
        log = self.root / "server.log"
        tries = 1
        while True:
            said = log.stat().st_size if log.exists() else 0
            options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=40 "
                       "-c shared_buffers=32MB")
            try:
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(log),
                          "-w", "-t", "60", "start")
                return self
            except InputError:
                taken = "could not bind" in log.read_bytes()[said:].decode("utf-8", "replace")
                if not (taken and self.chosen and tries < self.BIND_TRIES):
                    raise
            tries += 1
            self.port = free_port()

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run([*self._as, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                            "-w", "stop"], capture_output=True, cwd=self.root)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> TempPostgres:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
