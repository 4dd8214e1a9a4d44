"""The package's import structure: layers point one way, no cycles, no private names.

Read from the source (function-level imports included), so a cycle hidden
inside a function fails here rather than at a user's first call.
"""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "textwin"

# Each layer may use its own and the layers below it, never those above:
#   command line -> applications -> estimators -> data and text -> kernels.
# A name stands for the module or the package of that name (and everything in it); the
# longest name that holds a module places it. The folds (textwin._folds, whose names
# textwin.model_selection._split hands on) sit with the data, below the estimators: they
# import nothing of textwin, and the estimators' probability calibration draws its folds
# there as the searches do (as scikit-learn's calibration imports its model_selection's
# splitters).
LAYERS = {
    "command line": ("textwin.cli", "textwin._console", "textwin.reproduce"),
    "applications": ("textwin.experiments", "textwin._sklearn_baselines", "textwin.reproduction"),
    "estimators": ("textwin.linear", "textwin.online", "textwin.thresholds", "textwin._ovr",
                   "textwin._binary", "textwin._intercept", "textwin.model_selection",
                   "textwin._scale", "textwin._distributed", "textwin.text_classifier",
                   "textwin._losses_and_regularizers"),
    "data and text": ("textwin.datasets", "textwin.corpora", "textwin.tasks", "textwin.text",
                      "textwin.feature_selection", "textwin.metrics", "textwin.persistence",
                      "textwin.calibration", "textwin.explanations",
                      "textwin._io", "textwin._memory", "textwin._languages",
                      "textwin._version", "textwin._messages", "textwin._folds",
                      "textwin._nb_scaling", "textwin._tuning"),
    "kernels": ("textwin._kernels",),
}
RANK = {layer: rank for rank, layer in enumerate(reversed(LAYERS))}
# No import runs upwards: the reproduction raises its own errors, which its command
# (textwin.cli.reproduce) maps to exit codes.
UPWARD = set()
# The commands share textwin.cli.common and textwin.cli.options (all), and train and eval what they fit on
# (textwin.cli.corpus), how (textwin.cli.training) and what they print of it
# (textwin.cli.report).
COMMANDS = ("train", "eval", "predict", "inspect", "data", "reproduce")


def layer_of(module):
    """The layer of ``module``; None for one that no layer names (the package's root,
    which loads the estimators lazily, by name, is in none)."""
    places = [(len(n), layer) for layer, names in LAYERS.items() for n in names
              if module == n or module.startswith(n + ".")]
    return max(places)[1] if places else None


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
    assert any(t == "textwin.experiments" for t, _ in IMPORTS["textwin.cli.training"])


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


def test_every_module_has_its_layer():
    # a new module or package is placed in LAYERS, or the layer tests below miss it
    assert sorted(m for m in MODS if m != "textwin" and layer_of(m) is None) == []


def _upward(module):
    """The imports of ``module`` from a layer above its own."""
    mine = layer_of(module)
    return sorted(t for t, _ in IMPORTS[module]
                  if layer_of(t) is not None and mine is not None
                  and RANK[layer_of(t)] > RANK[mine] and (mine, t) not in UPWARD)


@pytest.mark.parametrize("module", sorted(MODS))
def test_layers_point_one_way(module):
    assert _upward(module) == [], f"{module} ({layer_of(module)}) imports a layer above"


def test_a_layer_violation_is_caught():
    IMPORTS["textwin.fake_estimator"] = {("textwin.cli.common", "CLIError")}
    LAYERS["estimators"] += ("textwin.fake_estimator",)
    try:
        assert _upward("textwin.fake_estimator") == ["textwin.cli.common"]
    finally:
        LAYERS["estimators"] = LAYERS["estimators"][:-1]
        del IMPORTS["textwin.fake_estimator"]


def test_the_commands_import_no_other_command():
    commands = {f"textwin.cli.{c}" for c in COMMANDS}
    assert commands <= set(MODS)
    crossing = sorted((m, t) for m in commands for t, _ in IMPORTS[m]
                      if t in commands and t != m)
    assert crossing == [], "what two commands share goes to textwin/cli/common.py or options.py"


def test_the_command_line_builds_no_vectorizer_of_its_own():
    # the options become a TextClassifier or a TextClassifierCV, which vectorizes the texts
    # (textwin.text.make_vectorizer, the library's one builder of a vectorizer)
    builders = sorted(m for m, path in MODS.items() if m.startswith("textwin.cli")
                      and ("TextVectorizer(" in path.read_text(encoding="utf-8")
                           or _code_names(path) & {"make_vectorizer", "TextVectorizer"}))
    assert builders == []


#: What reading a corpus for a fit resolves: the library's TrainingSet does, once
#: (textwin/datasets/_training_set.py), never the command line.
CORPUS_RESOLVERS = {"resolve_categories", "detect_task", "detect_language", "resolve_chars",
                    "top_columns", "constant_models"}


def test_the_command_line_resolves_no_corpus_of_its_own():
    # the options become a TrainingSet, which resolves the categories, the task, the
    # constant models and how the texts become rows
    resolvers = sorted(f"{m}: {', '.join(sorted(_code_names(path) & CORPUS_RESOLVERS))}"
                       for m, path in MODS.items() if m.startswith("textwin.cli")
                       and _code_names(path) & CORPUS_RESOLVERS)
    assert resolvers == []


def test_the_kernels_import_no_python_module_of_the_package():
    kernels = PACKAGE / "_kernels"
    for source in [*kernels.glob("*.pyx"), *kernels.glob("*.pxd")]:
        text = source.read_text(encoding="utf-8")
        assert "import textwin" not in text and "from textwin." not in text.replace(
            "from textwin._kernels", ""), source.name


# --- one home for each concept: the folds, the decision rule, F1 from counts -----------

FOLD_BUILDERS = {"KFold", "StratifiedKFold", "check_cv"}
# the modules that turn scores into labels: each asks the one rule
DECIDERS = ("textwin._ovr", "textwin.text_classifier", "textwin.persistence",
            "textwin.model_selection._choice", "textwin.model_selection._search",
            "textwin.model_selection._thresholds", "textwin.cli.predict")


def _code_names(path):
    """The names a module's code uses (imports, names, attributes), not its prose."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.alias):
            names.add(node.name.rpartition(".")[2])
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
    return names


def test_the_folds_are_built_in_one_module():
    builders = sorted(m for m, path in MODS.items() if _code_names(path) & FOLD_BUILDERS)
    assert builders == ["textwin._folds"], (
        "folds are built in textwin/_folds.py (textwin.model_selection._split); call it")


def test_the_tests_mirror_the_files_of_model_selection():
    # as tests/test_kernel_<name>.py mirror textwin/_kernels/<name>.pyx
    tests = PACKAGE.parent / "tests"
    missing = [f"{m.name}: tests/test_model_selection{m.stem}.py"
               for m in sorted((PACKAGE / "model_selection").glob("_*.py"))
               if m.stem != "__init__" and not (tests / f"test_model_selection{m.stem}.py").is_file()]
    assert not missing, f"model_selection modules without their test file: {missing}"
    assert not (tests / "test_model_selection.py").exists()  # split per module


def test_the_decision_rule_is_asked_not_rewritten():
    assert all(("textwin.tasks", "decide") in IMPORTS[m] for m in DECIDERS), [
        m for m in DECIDERS if ("textwin.tasks", "decide") not in IMPORTS[m]]
    # an argmax over scores less thresholds, outside the rule, is a second rule
    for module, path in MODS.items():
        text = path.read_text(encoding="utf-8")
        if module != "textwin.tasks":
            assert "argmax(scores" not in text and "argmax(above" not in text, module


def _doubled_counts(path):
    """Places that double a count named tp (``2 * tp``, ``2.0 * TP``): F1's numerator."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            sides = (node.left, node.right)
            if (any(isinstance(s, ast.Constant) and s.value == 2 for s in sides)
                    and any(isinstance(s, ast.Name) and s.id.lower() == "tp" for s in sides)):
                found.append(node.lineno)
    return found


def test_f1_from_counts_is_written_once():
    places = {m: lines for m, path in MODS.items() if (lines := _doubled_counts(path))}
    assert list(places) == ["textwin.metrics"] and len(places["textwin.metrics"]) == 1, places


def _foreign_private_calls(path):
    """Calls ``obj._name(...)`` of a private method that ``path`` does not define itself
    (``self``'s, ``cls``'s and ``super()``'s are the module's own, or its base's)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {node.name for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name, owner = node.func.attr, node.func.value
        if not name.startswith("_") or name.startswith("__") or name in defined:
            continue
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        found.append(f"line {node.lineno}: .{name}()")
    return found


@pytest.mark.parametrize("module", sorted(MODS))
def test_no_private_method_of_another_module_is_called(module):
    found = _foreign_private_calls(MODS[module])
    assert not found, (f"{module} calls private methods of another module's objects: {found}; "
                       f"give what it needs a public name")


def test_a_foreign_private_call_is_caught(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f(est):\n    return est._fit(1)\n\ndef _own(x):\n    return x._own()\n")
    assert _foreign_private_calls(path) == ["line 2: ._fit()"]


def _foreign_private_attributes(path):
    """Reads and writes ``obj._name`` (or ``getattr(obj, "_name")``) of a private attribute
    that ``path``'s own classes neither set on ``self`` nor define."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        if isinstance(node, ast.ClassDef):  # class attributes
            own.update(t.id for stmt in node.body if isinstance(stmt, (ast.Assign, ast.AnnAssign))
                       for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                       if isinstance(t, ast.Name))
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            own.add(node.attr)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name, owner = node.attr, node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            name = node.args[1].value
            if isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls"):
                continue
        else:
            continue
        if name.startswith("_") and not name.startswith("__") and name not in own:
            found.append(f"line {node.lineno}: ._{name.lstrip('_')}")
    return found


@pytest.mark.parametrize("module", sorted(MODS))
def test_no_private_attribute_of_another_module_is_used(module):
    found = [f for f in _foreign_private_attributes(MODS[module])
             if not f.endswith(("._kernels", "._fields"))]  # packages' and namedtuples' own
    assert not found, (f"{module} reads or sets private attributes of another module's "
                       f"objects: {found}; give what it needs a public name")


def test_a_foreign_private_attribute_is_caught(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("class A:\n    def f(self, est):\n        self._own = est._mode\n"
                    "        return self._own, getattr(est, '_sparse', None), est._f\n\n"
                    "    def _f(self):\n        pass\n")
    assert _foreign_private_attributes(path) == ["line 3: ._mode", "line 4: ._sparse"]


def test_the_folds_sit_below_the_estimators_that_calibrate_on_them():
    # linear.py and text_classifier.py calibrate on folds: their fold builder is below them
    assert layer_of("textwin._folds") == "data and text"
    assert layer_of("textwin.model_selection._search") == "estimators"
    assert {t for t, _ in IMPORTS["textwin._folds"]} <= {"textwin"}
    # and they import the folds' home, not the package of the searches above them
    for module in ("textwin.linear", "textwin.text_classifier"):
        assert not any(t.startswith("textwin.model_selection") for t, _ in IMPORTS[module])


def _package_of(module):
    """The folder a module is drawn in: its package below ``textwin`` (``textwin.cli``,
    ``textwin.reproduce``), or the module itself at the top."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or module in _PACKAGES else module


_PACKAGES = {m for m, path in MODS.items() if path.name == "__init__.py"}


def _packages_importing_the_command_line():
    """``(package, module)`` pairs: a module outside the command line that imports it,
    in a package that the command line imports in its turn (an arrow up, folder to folder)."""
    used = {_package_of(t) for m in MODS if m.startswith("textwin.cli")
            for t, _ in IMPORTS[m] if not t.startswith("textwin.cli")}
    return sorted((_package_of(m), m) for m in MODS
                  if not m.startswith("textwin.cli") and _package_of(m) in used
                  and any(t.startswith("textwin.cli") for t, _ in IMPORTS[m]))


def test_no_package_the_command_line_uses_imports_it_back():
    # `python -m textwin.reproduce` is a face of the command line: its package holds no
    # engine that the command line calls, or that folder would import the command line
    # that imports it (the reproduction's engine is textwin.reproduction)
    assert _packages_importing_the_command_line() == []


def test_the_search_and_the_text_classifier_stay_readable():
    # a file that grows past 800 lines has more than one job: split it, as the search
    # was split into textwin/model_selection/
    files = [*sorted((PACKAGE / "model_selection").glob("*.py")), PACKAGE / "text_classifier.py"]
    long = {p.name: n for p in files if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert long == {}, f"over 800 lines: {long}"
