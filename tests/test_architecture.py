"""The shape of the package: every import points down, no circles, one installed name, no squatting.

Layers, lowest first: `envs.core` -> each game's data modules -> `rules` -> `observe` / `render` ->
the entry module `envs.<game>_vN` (a retired version above its successor) -> `envs.registry` -> `envs.testing` and `envs.openspiel` -> `agents` -> `train` (its rooms `evaluation` and
`serving` -> `selfplay`, which evaluates its learner while it trains -> `web` and `rllib` -> `cli`). Imports are read from the
source (every `import` statement, also those inside functions); a module's own parent packages are not
counted as imports (Python runs them first, whatever the module imports).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from tabletop.envs import RETIRED_IDS

RETIRED_MODULES = {f"tabletop.envs.{env_id}" for env_id in RETIRED_IDS}

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("envs", "agents", "train")
GAMES = ("cromlet", "chromino", "kings_cribbage", "krz_grtn")


def _modules() -> dict[str, Path]:
    """`tabletop.<...>` module name -> source file, for every module the package installs."""
    found = {}
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(("tabletop", *parts))] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The project modules that `name` imports, resolved to the deepest module that exists."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.add(full if full in MODULES else base)
    ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    resolved = set()
    for target in targets:
        while target and target not in MODULES:
            target = target.rpartition(".")[0]
        if target and target != name and target not in ancestors:
            resolved.add(target)
    return resolved


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_the_import_graph_has_no_cycle():
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in GRAPH[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in GRAPH:
        if node not in index:
            visit(node)
    assert not cycles, f"import circles: {cycles}"


def _layer(name: str) -> int:
    """Higher layers may import lower ones only."""
    parts = name.split(".")[1:]
    if parts[0] == "train":
        room = parts[1] if len(parts) > 1 else "cli"
        return {"evaluation": 7, "serving": 7, "selfplay": 8, "web": 9, "rllib": 9, "benchmark": 9.5}.get(room, 10)
    if parts[0] == "agents":
        return 6
    if parts == ["envs"] or parts[:2] == ["envs", "registry"]:
        return 5
    if parts[:2] == ["envs", "testing"]:  # the checks any registered game can run on itself
        return 5.5
    if parts[:2] == ["envs", "openspiel"]:  # OpenSpiel's face of every registered game, beside the checks
        return 5.5
    if parts[1] == "core":
        return 0
    if re.fullmatch(r".+_v\d+", parts[1]):  # an entry module; a retired one is its successor with other defaults
        return 4.5 if f"tabletop.envs.{parts[1]}" in RETIRED_MODULES else 4
    role = parts[2] if len(parts) > 2 else "__init__"
    return {"observe": 3, "render": 3, "rules": 2}.get(role, 1)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_every_import_points_down(module):
    upward = [target for target in GRAPH[module] if _layer(target) > _layer(module)]
    assert not upward, f"{module} imports {upward} from a higher layer"
    if _layer(module) == 7:  # evaluation and serving stand side by side
        room = module.split(".")[2]
        assert not [t for t in GRAPH[module] if _layer(t) == 7 and t.split(".")[2] != room]
    if _layer(module) == 3:  # observer and renderer stand side by side, and read only their own game's rules
        game = module.split(".")[2]
        assert all(t.split(".")[2] in ("core", game) for t in GRAPH[module] if t.startswith("tabletop.envs."))
        assert not [t for t in GRAPH[module] if _layer(t) == 3], f"{module} imports its sibling layer"


@pytest.mark.parametrize("game", GAMES)
def test_a_game_package_init_imports_nothing(game):
    """So importing a game's data module never drags its rules, observer or renderer in."""
    assert not GRAPH[f"tabletop.envs.{game}"]


def test_installed_package_list_is_every_package_folder():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    folders = [name for name, path in MODULES.items() if path.name == "__init__.py"]
    assert sorted(declared) == sorted(folders)


HEAVY = ("torch", "onnxruntime", "onnx", "sb3_contrib", "stable_baselines3")


def _loaded_after(code: str) -> list[str]:
    """Which heavy modules (and whether `tabletop.train`) a fresh interpreter holds after running `code`."""
    script = f"import sys\n{code}\nprint(sorted(m for m in {HEAVY + ('tabletop.train',)!r} if m in sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout)


def test_importing_agents_loads_neither_torch_nor_onnxruntime():
    assert _loaded_after("from tabletop.agents import OnnxAgent, PolicyAgent, RandomAgent, make_agent") == []


def test_the_tabletop_command_starts_without_torch_or_onnxruntime():
    """A base install (no train or export extra) keeps `tabletop tournament` and friends working."""
    assert _loaded_after("from tabletop.train.cli import build_parser\nbuild_parser()") == ["tabletop.train"]


def test_the_installed_package_works_beside_a_users_own_train_and_envs(tmp_path, cromlet_onnx_dir):
    """A user's `train.py`, `envs/` and `agents/` next to their script must not shadow ours."""
    for name in ("envs", "agents"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("raise ImportError('the user module was imported')\n")
    (tmp_path / "train.py").write_text("raise ImportError('the user train.py was imported')\n")
    (tmp_path / "script.py").write_text(
        "from tabletop import envs\n"
        "from tabletop.agents import make_agent\n"
        "from tabletop.train.cli import main\n"
        f"agent = make_agent('cromlet_v0', 'onnx:{cromlet_onnx_dir}')\n"
        "env = envs.make('cromlet_v0')\n"
        "env.reset(seed=0)\n"
        "obs = env.observe(env.agent_selection)\n"
        "print(agent.act(obs['observation'], obs['action_mask'], env.unwrapped.view(env.agent_selection)))\n"
        "raise SystemExit(main(['tournament', 'cromlet_v0', 'random', 'greedy', '--games', '2', '--quiet']))\n"
    )
    done = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^\d+$", done.stdout.splitlines()[0])


def test_nothing_is_unpickled_from_a_run_folder():
    """Saved policies add no run-time import arrow: every `torch.load` in the package reads tensors and plain data
    only (`weights_only=True`), and no saved model is loaded through SB3's pickled classes (`MaskablePPO.load`)."""
    found = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            call = (getattr(node.func.value, "id", None), node.func.attr)
            plain = any(k.arg == "weights_only" and getattr(k.value, "value", None) is True for k in node.keywords)
            if (call[1] == "load" and call[0] in ("torch", "th") and not plain) or call == ("MaskablePPO", "load"):
                found.append(f"{name}:{node.lineno}")
    assert not found, f"unpickling loads: {found}"
