"""Which compiled copies of the AI's modules a process uses (docs/ai.md, "The accelerator").

setup.py compiles a copy of each module of ``ACCELERATED`` with mypyc, where a C compiler is found, as
``_<name>_compiled`` beside it, with the SHA-256 of the module's source written into the copy. The module
uses its copy only while its own text still has that hash, so an edit is never shadowed by a stale build:
the edited pure Python runs until the next install. Both run the same statements on the same integers, so
they give the same answers; the compiled copy only costs less CPU.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path
from types import ModuleType

# The modules setup.py compiles (setup.py keeps its own list, as it runs before the package is importable;
# tests/engine/ai/test_accelerator.py holds the two equal).
ACCELERATED = ("solver", "knowledge")
# Set at run time: every module runs as pure Python; set at build time: nothing is compiled.
PURE_VARIABLE = "BAUERNSCHNAPSEN_PURE_SOLVER"


def compiled_name(module: str) -> str:
    """``engine.ai.solver`` -> ``engine.ai._solver_compiled``."""
    package, _, name = module.rpartition(".")
    return f"{package}._{name}_compiled"


def compiled_copy(module: str, source: str) -> ModuleType | None:
    """The compiled copy of ``module`` (whose file is ``source``) if it is built and current and pure Python
    is not asked for, else None. The copy itself, importing the same text, finds none (no copy of a copy)."""
    if module.rpartition(".")[2].startswith("_") or os.environ.get(PURE_VARIABLE):
        return None
    try:
        compiled = importlib.import_module(compiled_name(module))
    except ImportError:
        return None
    digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()
    return compiled if getattr(compiled, "SOURCE_SHA256", None) == digest else None
