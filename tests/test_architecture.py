"""The package's import structure: layers point one way, no cycles, no private names.

Read from the source (function-level imports included), so a cycle hidden
inside a function fails here rather than at a user's first call.
"""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "textwin"

# Each layer may use the layers below it, never those above:
#   command line -> experiments and reproduction -> estimators -> kernels,
# with data loading beside the estimators.
APPLICATIONS = {"textwin.experiments", "textwin._sklearn_baselines", "textwin.reproduce"}
ESTIMATORS = {"textwin.linear", "textwin.online", "textwin.thresholds", "textwin._ovr",
              "textwin._binary", "textwin._intercept", "textwin.model_selection",
              "textwin._scale", "textwin._distributed", "textwin.text_classifier",
              "textwin._losses_and_regularizers"}


def _modules():
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


def _imports(mods):
    """{module: {(imported module, name or None)}} for every textwin import in the source."""
    found = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = found.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges.update((a.name, None) for a in node.names if a.name.startswith("textwin"))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("textwin"):
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    compiled = PACKAGE.parent.joinpath(*sub.split(".")).with_suffix(".pyx")
                    is_module = sub in mods or compiled.exists()
                    edges.add((sub, None) if is_module else (target, alias.name))
    return found


MODS = _modules()
IMPORTS = _imports(MODS)
COMMAND_LINE = {"textwin._cli_common", "textwin.__main__",
                *(m for m in MODS if m == "textwin.cli" or m.startswith("textwin.cli."))}


def _reachable(start):
    seen, todo = set(), [start]
    while todo:
        for target, _ in IMPORTS.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_the_import_graph_is_read():
    # the reader must see what these modules import, or the tests below prove nothing
    assert ("textwin._ovr", "map_problems") in IMPORTS["textwin.linear"]
    assert any(t == "textwin.experiments" for t, _ in IMPORTS["textwin.cli.train"])


@pytest.mark.parametrize("module", sorted(MODS))
def test_no_import_cycle(module):
    others = {t for t, _ in IMPORTS[module] if t != module and t in MODS
              and not module.startswith(t + ".")}  # a package's own __init__ is not a cycle
    back = sorted(t for t in others if module in _reachable(t))
    assert not back, f"{module} and {back} import each other (directly or through others)"


@pytest.mark.parametrize("module", sorted(MODS))
def test_no_private_name_is_imported_from_another_module(module):
    private = sorted(f"{t}.{n}" for t, n in IMPORTS[module]
                     if n and n.startswith("_") and not n.startswith("__") and t != module)
    assert not private, (f"{module} imports private names {private}: give shared code a "
                         f"public name in a module of its own")


def _violations(lower, upper):
    return sorted((m, t) for m in lower if m in IMPORTS for t, _ in IMPORTS[m]
                  if t in upper)


def test_layers_point_one_way():
    assert not _violations(ESTIMATORS, COMMAND_LINE | APPLICATIONS)
    assert not _violations(APPLICATIONS, COMMAND_LINE - {"textwin._cli_common"})
    datasets = {m for m in MODS if m.startswith("textwin.datasets")}
    assert not _violations(datasets, COMMAND_LINE | APPLICATIONS | ESTIMATORS)


def test_the_kernels_import_no_python_module_of_the_package():
    kernels = PACKAGE / "_kernels"
    for source in [*kernels.glob("*.pyx"), *kernels.glob("*.pxd")]:
        text = source.read_text(encoding="utf-8")
        assert "import textwin" not in text and "from textwin." not in text.replace(
            "from textwin._kernels", ""), source.name
