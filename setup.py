"""The optional accelerator of the AI: engine/ai/solver.py compiled with mypyc (docs/ai.md, "The accelerator").

Everything else about the package is in pyproject.toml. Where a C compiler is found, the build asks for mypy
(which ships mypyc) and compiles a copy of solver.py as the extension ``engine.ai._solver_compiled``, with the
source's SHA-256 in it; solver.py uses that extension only while its own text still has that hash. Without a
compiler, or when mypyc or the compiler fails, the install goes on without the extension and the AI runs the
same solver as pure Python (same answers, several times the CPU). ``BAUERNSCHNAPSEN_PURE_SOLVER=1`` at build
time skips the extension on purpose.
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
SOURCE = Path("engine", "ai", "solver.py")  # relative: mypyc names the module by its path
COPY = SOURCE.with_name("_solver_compiled.py")
MYPY = "mypy>=1.11"


def compiler_found() -> bool:
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(command)
    return bool(words) and shutil.which(words[0]) is not None


def accelerator_wanted() -> bool:
    return not os.environ.get("BAUERNSCHNAPSEN_PURE_SOLVER") and compiler_found()


def compiled_extensions() -> list[object]:
    """The mypyc extension of a copy of solver.py (the copy exists only while mypyc reads it), or none."""
    try:
        from mypyc.build import mypycify
    except ImportError:  # the build environment has no mypy: no compiler was found when it was made
        return []
    text = (ROOT / SOURCE).read_text(encoding="utf-8")
    digest = hashlib.sha256((ROOT / SOURCE).read_bytes()).hexdigest()
    copy = ROOT / COPY
    copy.write_text(text + f'\n\nSOURCE_SHA256 = "{digest}"\n', encoding="utf-8")
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        # The project's mypy settings are for checking, not compiling: the empty config ignores them.
        extensions = mypycify(["--config-file=", str(COPY)], opt_level="3", debug_level="0")
    except (Exception, SystemExit) as error:  # mypyc reports a failed compile by SystemExit
        print(f"warning: the solver's accelerator is not built ({error!r}); the AI runs as pure Python")
        return []
    finally:
        os.chdir(cwd)
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
            print(f"warning: the solver's accelerator is not built ({error!r}); the AI runs as pure Python")


wanted = accelerator_wanted()
setup(
    ext_modules=compiled_extensions() if wanted else [],
    cmdclass={"build_ext": OptionalBuildExt},
    # Asked of the build backend before the build (setuptools' get_requires_for_build_*): mypy only where
    # it can be used, so an install without a compiler does not fetch it.
    setup_requires=[MYPY] if wanted else [],
)
