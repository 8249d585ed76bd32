"""bench/ai_match.py's reference worktree gets this tree's compiled AI modules (each runs only where its
source is the one it was built from), so an older AI with the same solver plays at the compiled speed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import ai_match


def test_the_compiled_modules_are_copied_into_the_worktree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "here"
    (here / "engine" / "ai").mkdir(parents=True)
    for name in ("_solver_compiled.cpython-311-x86_64-linux-gnu.so", "_knowledge_compiled__mypyc.so"):
        (here / "engine" / "ai" / name).write_bytes(b"built")
    (here / "engine" / "ai" / "solver.py").write_text("source\n")
    monkeypatch.setattr(ai_match, "ROOT", here)
    there = tmp_path / "there"
    (there / "engine" / "ai").mkdir(parents=True)
    ai_match._share_compiled(str(there))
    copied = sorted(path.name for path in (there / "engine" / "ai").iterdir())
    assert copied == ["_knowledge_compiled__mypyc.so", "_solver_compiled.cpython-311-x86_64-linux-gnu.so"]


def test_a_tree_without_the_ai_package_gets_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "here"
    (here / "engine" / "ai").mkdir(parents=True)
    (here / "engine" / "ai" / "_solver_compiled.so").write_bytes(b"built")
    monkeypatch.setattr(ai_match, "ROOT", here)
    ai_match._share_compiled(str(tmp_path / "old"))
    assert not (tmp_path / "old").exists()
