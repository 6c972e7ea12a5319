"""The floor plan holds: the host's packages import only from the layers below them, no package's
modules import each other in a circle (imports inside functions count), a migration stands on its own,
no module of the host is longer than one sitting's reading, and the import-linter contracts of
pyproject.toml are the ones `make lint` checks."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "pbem" / "storage" / "migrations" / "versions"
#: the most lines a module of pbem/ may have: past it, it holds more than one concept
MAX_MODULE_LINES = 500


def test_the_import_linter_contracts_are_kept() -> None:
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "lint-imports"),
            "--config",
            str(ROOT / "pyproject.toml"),
            "--no-cache",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "4 kept, 0 broken" in done.stdout


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_of_the_host_or_a_game_is_in_an_import_cycle() -> None:
    # a package and its own modules included, which acyclic_siblings does not look at
    assert _cycles(grimp.build_graph("pbem", "games")) == []


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    package = tmp_path / "circle"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from circle import b\n")
    (package / "b.py").write_text("from circle import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _cycles(grimp.build_graph("circle")) == [["circle.a", "circle.b"]]


def test_a_migration_imports_nothing_of_the_application() -> None:
    # a revision is a snapshot of its day: code it imported would change under it, and rerun on an old
    # database it would do today's thing, not its own
    offenders = []
    for revision in sorted(MIGRATIONS.glob("*.py")):
        for node in ast.walk(ast.parse(revision.read_text())):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offenders += [
                f"{revision.name}: {name}" for name in names if name.split(".")[0] in ("pbem", "games")
            ]
    assert offenders == []


def test_no_module_of_the_host_is_over_500_lines() -> None:
    lengths = {
        str(module.relative_to(ROOT)): len(module.read_text(encoding="utf-8").splitlines())
        for module in sorted((ROOT / "pbem").rglob("*.py"))
    }
    assert len(lengths) > 100  # the host's modules were found
    assert {name: n for name, n in lengths.items() if n > MAX_MODULE_LINES} == {}
