"""The optional accelerator of the AI: its solver and world sampler compiled with mypyc (docs/ai.md, "The
accelerator").

Everything else about the package is in pyproject.toml. Where a C compiler is found, the build asks for mypy
(which ships mypyc) and compiles a copy of each module of ``ACCELERATED`` (engine/ai/NAME.py) as the
extension ``engine.ai._NAME_compiled``, with the source's SHA-256 in it; the module uses that extension only
while its own text still has that hash (engine/ai/accelerator.py). Without a compiler, or when mypyc or the
compiler fails, the install goes on without the extensions and the AI runs the same code as pure Python
(same answers, several times the CPU). ``BAUERNSCHNAPSEN_PURE_SOLVER=1`` at build time skips them on purpose.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# engine/ai/accelerator.py's list too (a test holds them equal): setup.py cannot import the package it builds.
ACCELERATED = ("solver", "knowledge")
MYPY = "mypy>=1.11"


def compiler_found() -> bool:
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(command)
    return bool(words) and shutil.which(words[0]) is not None


def accelerator_wanted() -> bool:
    return not os.environ.get("BAUERNSCHNAPSEN_PURE_SOLVER") and compiler_found()


def compiled_extensions() -> list[object]:
    """The mypyc extensions of copies of the ``ACCELERATED`` modules (the copies exist only while mypyc reads
    them), or none."""
    try:
        from mypyc.build import mypycify
    except ImportError:  # the build environment has no mypy: no compiler was found when it was made
        return []
    copies = []
    cwd = os.getcwd()
    try:
        for name in ACCELERATED:
            source = ROOT / "engine" / "ai" / f"{name}.py"
            digest = hashlib.sha256(source.read_bytes()).hexdigest()
            copy = source.with_name(f"_{name}_compiled.py")
            copies.append(copy)
            text = source.read_text(encoding="utf-8")
            copy.write_text(text + f'\n\nSOURCE_SHA256 = "{digest}"\n', encoding="utf-8")
        os.chdir(ROOT)
        # Relative paths: mypyc names each module by its path. The project's mypy settings are for checking,
        # not compiling: the empty config ignores them. ``separate``: one runtime library per module, named
        # after it (engine.ai._NAME_compiled__mypyc).
        paths = [str(copy.relative_to(ROOT)) for copy in copies]
        extensions = mypycify(["--config-file=", *paths], opt_level="3", debug_level="0", separate=True)
    except (Exception, SystemExit) as error:  # mypyc reports a failed compile by SystemExit
        print(f"warning: the AI's accelerator is not built ({error!r}); the AI runs as pure Python")
        return []
    finally:
        os.chdir(cwd)
        for copy in copies:
            copy.unlink(missing_ok=True)
    for extension in extensions:
        extension.optional = True  # a compiler that fails leaves the install pure Python, not failed
    return list(extensions)


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing for any error of an optional extension (setuptools catches
    only the compiler's own errors; a missing linker or header can raise others)."""

    def build_extension(self, ext: object) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            if not getattr(ext, "optional", False):
                raise
            print(
                f"warning: {getattr(ext, 'name', ext)} is not built ({error!r}); that part of the AI runs as pure Python"
            )


wanted = accelerator_wanted()
setup(
    ext_modules=compiled_extensions() if wanted else [],
    cmdclass={"build_ext": OptionalBuildExt},
    # Asked of the build backend before the build (setuptools' get_requires_for_build_*): mypy only where
    # it can be used, so an install without a compiler does not fetch it.
    setup_requires=[MYPY] if wanted else [],
)
