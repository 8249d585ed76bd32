"""A throwaway PostgreSQL cluster for the tests, made with the machine's server binaries (`initdb`, `pg_ctl`).

It lives in a temporary folder, listens only on a unix socket there, and runs without fsync (its data is
thrown away). PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user, which owns
the folder. A migrated template database makes a fresh database per test a fast file copy.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

TEMPLATE = "schnapsen_template"


def server_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl: from PATH, else Debian's newest /usr/lib/postgresql/*/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    # Only names the socket file; a port free on loopback also keeps other clusters' shared memory apart.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    def __init__(self, binaries: Path, *, durable: bool = False) -> None:
        self.binaries = binaries
        self.durable = durable  # fsync on, as a real server (for benchmarks); tests throw the data away
        self.folder = Path(tempfile.mkdtemp(prefix="schnapsen-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._as_postgres: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            self._as_postgres = ["runuser", "-u", "postgres", "--"]

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.folder}&port={self.port}"

    def _run(self, *command: str) -> None:
        done = subprocess.run(
            [*self._as_postgres, *command], capture_output=True, text=True, check=False, cwd=self.folder
        )
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed ({done.returncode}): {done.stderr or done.stdout}")

    def start(self) -> None:
        self._run(
            str(self.binaries / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
            "--no-locale", "-E", "UTF8", "--no-sync",
        )
        options = f"-k {self.folder} -p {self.port} -c listen_addresses='' -c max_connections=200"
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            str(self.binaries / "pg_ctl"), "-D", str(self.data), "-o", options,
            "-l", str(self.folder / "server.log"), "-w", "-t", "60", "start",
        )

    def stop(self) -> None:
        try:
            self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
