"""The AI's accelerator (docs/ai.md): the compiled solver answers exactly as the pure one, after exactly as
many nodes; the compiled world sampler gathers the same facts and draws the same worlds from the same random
stream as the pure one; an install that cannot compile them still installs and plays with the pure ones.

The comparisons run wherever the accelerator is built and current (``pip install -e .`` with a C compiler,
after the last edit of engine/ai/solver.py or knowledge.py); they are skipped elsewhere with the reason,
except in CI, which has a compiler, so a build that silently stopped working fails there. The install tests build the package in
throwaway virtual environments (a minute or two, and the package index): they run where ``CI`` or
``ACCELERATOR_TEST`` is set, as tests/test_deploy.py does.
"""

from __future__ import annotations

import ast
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from devtools.positions import (
    PLAYED_CONTRACTS,
    RULE_VARIANTS,
    play_start,
    position_of_state,
    random_walk,
    table_of_state,
)
from engine import apply_unchecked, deal_hands, legal_actions, new_deal, view_for
from engine.ai import accelerator, knowledge
from engine.ai import solver as solver_module
from engine.ai.compact import ALL_CARDS, SearchAborted
from engine.contracts import Contract
from engine.ruleset import Ruleset
from engine.views import PlayerView

ROOT = Path(__file__).resolve().parents[3]


def _compiler_here() -> bool:
    command = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    return bool(command) and shutil.which(command[0]) is not None


def _not_built(module: str) -> None:
    """Fails in CI (which has a compiler), else skips: the compiled copy of ``module`` is missing or stale."""
    if os.environ.get("CI") and _compiler_here():
        pytest.fail(f"CI has a C compiler, but the accelerator of {module}.py was not built (see setup.py)")
    pytest.skip(
        f"the accelerator is not built, or engine/ai/{module}.py changed since it was: "
        '`pip install -e ".[test]"` with a C compiler builds it'
    )


def _compiled_solver() -> type:
    classes = solver_module.solver_classes()
    if "compiled" not in classes:
        _not_built("solver")
    return classes["compiled"]


def test_setup_compiles_the_modules_the_package_looks_for() -> None:
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    listed = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ACCELERATED" for t in node.targets)
    )
    assert ast.literal_eval(listed) == accelerator.ACCELERATED


def _answers(solver_class: type, seed: int) -> list[tuple[int, int]]:
    """(value, nodes so far) of the searches the card play makes, on positions of every contract and rule
    variant: one solver per deal kept across positions, full-window and null-window searches, some cut by
    a node limit (value -99)."""
    rng = random.Random(seed)
    answers: list[tuple[int, int]] = []
    for index in range(60):
        contract = Contract.NORMAL if index % 2 else PLAYED_CONTRACTS[index // 2 % len(PLAYED_CONTRACTS)]
        rules = RULE_VARIANTS[index % len(RULE_VARIANTS)]
        start = play_start(rng.randrange(10**9), contract, rules)
        solver = solver_class(table_of_state(start))
        last = 0
        for number in range(4):
            state = random_walk(start, rng, rng.randrange(0, 9))
            if state.finished:
                continue
            solver.node_limit = solver.nodes + rng.choice((200, 2000, 10**9))
            try:
                if number % 2:
                    value = solver.solve_mtd(position_of_state(state), last)
                else:
                    value = solver.solve(position_of_state(state))
                last = value
            except SearchAborted:
                value = -99
            answers.append((value, solver.nodes))
    return answers


@pytest.mark.parametrize("seed", range(3))
def test_the_compiled_solver_gives_the_pure_solvers_values_after_as_many_nodes(seed: int) -> None:
    compiled = _compiled_solver()
    pure = solver_module.solver_classes()["pure"]
    assert _answers(compiled, seed) == _answers(pure, seed)


def test_the_solver_in_use_is_the_compiled_one_where_it_is_current() -> None:
    classes = solver_module.solver_classes()
    assert solver_module.Solver is classes.get("compiled", classes["pure"])
    in_use = "compiled" if "compiled" in classes else "pure"
    assert in_use == solver_module.KIND


# --- the world sampler ------------------------------------------------------------------------------------


def _compiled_sampler() -> knowledge.Implementation:
    found = knowledge.implementations()
    if "compiled" not in found:
        _not_built("knowledge")
    return found["compiled"]


def _views(seed: int, count: int):  # type: ignore[no-untyped-def]
    """Views of the seat to act at random moments of random deals (every phase, every rule variant) and of
    played contracts of every kind."""
    rng = random.Random(seed)
    for index in range(count):
        rules = RULE_VARIANTS[index % len(RULE_VARIANTS)]
        if index % 3:
            dealer = rng.randrange(4)
            state = new_deal(rules, dealer, deal_hands(rng.randrange(10**9), dealer))
        else:
            state = play_start(rng.randrange(10**9), PLAYED_CONTRACTS[index % len(PLAYED_CONTRACTS)], rules)
        for _ in range(rng.randrange(0, 28)):
            if state.finished:
                break
            state, _ = apply_unchecked(state, state.to_act, rng.choice(legal_actions(state)))
        if not state.finished and state.to_act is not None:
            yield rules, view_for(state, state.to_act)


def _facts(found: object) -> tuple[object, ...]:
    fields = ("seat", "own", "played_by", "need", "known", "forbidden", "at_least_one", "unknown")
    return tuple(getattr(found, name) for name in fields)


def _samples(implementation: knowledge.Implementation, seed: int) -> list[object]:
    """Everything decisions read from the sampler on many views (``_sampled``)."""
    out: list[object] = []
    for index, (rules, view) in enumerate(_views(seed, 45)):
        out += _sampled(implementation, rules, view, random.Random(f"{seed}:{index}"), index)
    return out


def _sampled(
    implementation: knowledge.Implementation, rules: Ruleset, view: PlayerView, rng: random.Random, index: int
) -> list[object]:
    """The facts of one view and, in order, plain draws (with and without a plausibility check), all worlds
    where few, weighted draws until the weighing budget or ``exhausted`` stops them, draws from facts no
    world meets (placed freely), and the random stream's state after them all."""
    gather, sampler_class = implementation
    facts = gather(view, rules)
    out: list[object] = [_facts(facts)]
    seat = (facts.seat + 1) % 4
    plausible = (lambda hands: hands[seat] & 0b10101010101010101010 != 0) if index % 2 else None
    sampler = sampler_class(facts, rng, plausible)
    out += [sampler.draw() for _ in range(30)]
    out += [sampler.enumerate(60), sampler.upper_bound(), sampler.relaxed]
    weighed: list[list[int]] = []

    def weight(hands: list[int]) -> float:
        weighed.append(hands)
        return (hands[seat] * 2654435761 % 1009) / 1009

    stop_after = 5 + index % 40
    weighted = sampler_class(
        facts, rng, weight=weight, weigh_limit=25, exhausted=lambda: len(weighed) > stop_after
    )
    out += [weighted.draw_weighted() for _ in range(12)]
    out += [weighted.kept, weighted.weigh_left, len(weighed)]
    if index % 5 == 0:
        facts.forbidden[:] = [ALL_CARDS if s != facts.seat else 0 for s in range(4)]
        impossible = sampler_class(facts, rng)
        out += [impossible.draw(), impossible.relaxed]
    out.append(rng.getstate())
    return out


@pytest.mark.parametrize("seed", range(3))
def test_the_compiled_sampler_gathers_the_same_facts_and_draws_the_same_worlds(seed: int) -> None:
    compiled = _compiled_sampler()
    assert _samples(compiled, seed) == _samples(knowledge.implementations()["pure"], seed)


def test_the_sampler_in_use_is_the_compiled_one_where_it_is_current() -> None:
    found = knowledge.implementations()
    assert (knowledge.gather, knowledge.Sampler) == found.get("compiled", found["pure"])
    assert ("compiled" if "compiled" in found else "pure") == knowledge.KIND


# --- installing -------------------------------------------------------------------------------------------

INSTALL_CHECK = textwrap.dedent(
    """
    import json
    from engine.ai import knowledge, solver
    from engine.ai.arena import load_deals, play_deal
    seed, dealer, hands = load_deals("bench/data/deals.jsonl")[0]
    outcome = play_deal(hands, dealer, seed, ("pimc",) * 4, budget_ms=10)
    kinds = {"solver": solver.KIND, "knowledge": knowledge.KIND}
    print(json.dumps({"kinds": kinds, "file": solver.__file__, "points": outcome.points}))
    """
)


def _why_install_tests_cannot_run() -> str | None:
    if not (os.environ.get("CI") or os.environ.get("ACCELERATOR_TEST")):
        return "builds the package in fresh virtual environments (a minute or two, the package index): runs in CI, or with ACCELERATOR_TEST=1"
    return None


def _copy_of_the_checkout(target: Path) -> Path:
    """The files git tracks (as they are in the working tree), without any build of the accelerator."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], check=True, capture_output=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _install_and_play(tmp_path: Path, environment: dict[str, str]) -> dict[str, object]:
    """``pip install --no-deps .`` of a copy of the checkout into a fresh venv, then one deal of four AI
    players there (the engine needs nothing but the standard library, so --no-deps loses nothing)."""
    import json

    checkout = _copy_of_the_checkout(tmp_path / "checkout")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {key: value for key, value in os.environ.items() if key not in ("CC", "PYTHONPATH")}
    env.update(environment)
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(checkout)],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    # Run from the checkout's bench data, but import the installed package (not the checkout's engine/).
    played = subprocess.run(
        [str(python), "-I", "-c", INSTALL_CHECK.replace("bench/data", str(checkout / "bench" / "data"))],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    report = json.loads(played.stdout)
    assert str(venv) in str(report["file"]), report
    return report


@pytest.mark.install
@pytest.mark.parametrize(
    "environment",
    [
        {"CC": "false"},  # a compiler that fails: mypyc runs, the C build fails, the install goes on
        {"CC": "no-such-compiler"},  # no compiler at all: the build does not even ask for mypy
    ],
    ids=["failing-compiler", "no-compiler"],
)
def test_an_install_without_a_working_compiler_falls_back_to_pure_python_and_plays(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    reason = _why_install_tests_cannot_run()
    if reason:
        pytest.skip(reason)
    assert _install_and_play(tmp_path, environment)["kinds"] == {"solver": "pure", "knowledge": "pure"}


@pytest.mark.install
def test_an_install_with_a_compiler_gets_the_accelerator_and_plays_without_mypy(tmp_path: Path) -> None:
    reason = _why_install_tests_cannot_run() or (None if _compiler_here() else "no C compiler here")
    if reason:
        pytest.skip(reason)
    kinds = _install_and_play(tmp_path, {})["kinds"]
    assert kinds == {"solver": "compiled", "knowledge": "compiled"}
