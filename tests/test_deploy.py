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
  a unit the steps enabled or started itself: its `ExecStart` as its `User` in its `WorkingDirectory`;
* the bot runs in a network namespace of its own, so Discord is unreachable: it must stop with exit status 2
  and one line (the unit's `RestartPreventExitStatus=2` keeps it stopped);
* the token typed in with `sudoedit` is written into `.env` by the test, and `$BACKUP` is the file the
  upgrade's backup named (`backup written: ...`), as the docs tell the admin to set it;
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
    "prerequisites", "install", "systemd", "backup-timer", "upgrade", "downgrade", "restore-before-upgrade"
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
def test_a_unit_does_not_restart_a_configuration_error(unit: str) -> None:
    settings = unit_settings((ROOT / "deploy" / unit).read_text(encoding="utf-8"))
    assert settings["Restart"] == "on-failure"
    assert "2" in settings["RestartPreventExitStatus"].split()
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

    def run(self, argv: list[str], *, step: str, user: str = "root", network: bool = True, timeout: float = 600,
            env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        home = "/root" if user == "root" else self.home(user)
        environment = {"PATH": CHROOT_PATH, "HOME": home, "LANG": "C.UTF-8", "USER": user, **(env or {})}
        command = ["chroot", str(self.path), "runuser", "-u", user, "--", "env", "-i",
                   *(f"{key}={value}" for key, value in environment.items()), *argv]
        if not network:
            command = ["unshare", "--net", *command]
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
    with chroot.file("/etc/hosts").open("a") as hosts:  # as on a server: its own name resolves (sudo asks)
        hosts.write(f"127.0.1.1 {socket.gethostname()}\n")
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


def start_unit(chroot: Chroot, unit: str, *, step: str) -> subprocess.CompletedProcess[str]:
    """What systemd would run for the installed `unit`: its ExecStart as its User in its WorkingDirectory."""
    settings = unit_settings(chroot.file(f"/etc/systemd/system/{unit}").read_text())
    command = f"cd {shlex.quote(settings['WorkingDirectory'])} && exec {settings['ExecStart']}"
    return chroot.run(["sh", "-c", command], step=step, user=settings["User"], network=False, timeout=180,
                      check=False)


def assert_stops_with_one_line(result: subprocess.CompletedProcess[str], expected: str, *, step: str) -> None:
    """The bot stopped with exit status 2 and one line on standard error, which says `expected`."""
    output = result.stdout + result.stderr
    explained = f"step {step!r}: exit status {result.returncode}; the output:\n{_tail(output)}"
    assert "Traceback" not in output, explained
    assert result.returncode == 2, explained
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and expected in errors[0], explained


def assert_stops_on_no_network(result: subprocess.CompletedProcess[str], *, step: str) -> None:
    """The bot reached its login, found no network and stopped with exit status 2 and one line."""
    assert_stops_with_one_line(result, "cannot log in: no network", step=step)


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
            started = start_unit(chroot, "schnapsen.service", step="start")
            assert_stops_on_no_network(started, step="start")
            assert COMPILED_SOLVER in started.stdout, _tail(started.stdout)

            # The bot opens its database before it logs in, so the backups below have one to copy.
            assert chroot.file("/opt/schnapsen/schnapsen.sqlite3").exists()
            follow_documented_step(chroot, "backup-timer", blocks["backup-timer"], repo)
            assert "systemctl enable --now schnapsen-backup.timer" in recorded_calls(chroot)
            backup = start_unit(chroot, "schnapsen-backup.service", step="backup")
            assert backup.returncode == 0, _tail(backup.stdout + backup.stderr)
            assert len(list(chroot.file("/var/backups/schnapsen").glob("schnapsen-*.sqlite3"))) == 1

            known = schema_version(chroot)
            newer, migrated = a_newer_version(bare, scratch)
            upgrade = follow_documented_step(chroot, "upgrade", blocks["upgrade"], repo)
            assert installed_commit(chroot) == newer
            assert len(list(chroot.file("/var/backups/schnapsen").glob("schnapsen-*.sqlite3"))) == 2
            assert recorded_calls(chroot)[-2:] == ["systemctl stop schnapsen", "systemctl start schnapsen"]
            upgraded = start_unit(chroot, "schnapsen.service", step="start after the upgrade")
            assert_stops_on_no_network(upgraded, step="start after the upgrade")
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
            assert_stops_on_no_network(start_unit(chroot, "schnapsen.service", step="start after the restore"),
                                       step="start after the restore")

        built = build_the_image(image_base, context, stages)
        image = stages[-1]
        assert not image.file("/usr/bin/gcc").exists(), "the compiler stays in the build stage"
        with mounted_proc(image):
            which_solver = """.venv/bin/python -c 'import engine.ai.solver as s; print(s.KIND)'"""
            kind = image.run(["sh", "-c", f"cd {shlex.quote(built.workdir)} && exec {which_solver}"],
                             step="Dockerfile: solver", user=built.user, env=built.env, network=False)
            assert kind.stdout.strip() == "compiled"
            result = image.run(["sh", "-c", f"cd {shlex.quote(built.workdir)} && exec {built.cmd}"],
                               step="Dockerfile: CMD", user=built.user, network=False,
                               env={**built.env, "DISCORD_TOKEN": DUMMY_TOKEN}, check=False)
            assert_stops_on_no_network(result, step="Dockerfile: CMD")
            assert COMPILED_SOLVER in result.stdout, _tail(result.stdout)
            assert image.file(built.env["DATABASE_PATH"]).exists(), "the database is made on the volume"
    finally:
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
