"""Settings are the only reader of the environment, and .env.example lists every variable they
read, found by reading settings.py (every branch, not only the one this machine takes)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENV_READERS = {"_env_bool", "_env_int", "_env_float", "_env_list", "get", "getenv"}


def _is_env_read(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in ENV_READERS
    if isinstance(func, ast.Attribute) and func.attr in ("get", "getenv"):
        target = ast.unparse(func.value)
        return target in ("os.environ", "os")
    return False


def variables_settings_read() -> set[str]:
    tree = ast.parse((REPO / "reviewer" / "settings.py").read_text())
    found: set[str] = set()
    listed_elsewhere = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_env_read(node) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant):
                found.add(first.value)
            else:
                # A name taken from a *_VARIABLES tuple (a variable and its earlier name).
                assert isinstance(first, ast.Name), ast.unparse(node)
                listed_elsewhere = True
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            assert isinstance(node.slice, ast.Constant), ast.unparse(node)
            found.add(node.slice.value)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id.endswith("_VARIABLES") for t in node.targets
        ):
            found.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant))
    assert not listed_elsewhere or any(name.startswith("MATHJURY_") for name in found)
    return found


def variables_env_example_lists() -> set[str]:
    text = (REPO / ".env.example").read_text()
    return set(re.findall(r"^([A-Z][A-Z0-9_]*)=", text, flags=re.MULTILINE))


def test_env_example_lists_every_variable_the_settings_read_and_no_other():
    read = variables_settings_read()

    assert {"SECRET_KEY", "DATABASE_URL", "MATHJURY_SPOT_CHECK_PERCENT"} <= read
    assert "MATHJURY_AUDIT_PERCENT" in read  # the spot check's earlier name
    assert read - variables_env_example_lists() == set(), "add these to .env.example"
    assert variables_env_example_lists() - read == set(), "settings.py no longer reads these"


def test_no_module_but_settings_reads_the_environment():
    readers = []
    for path in [*(REPO / "reviewer").rglob("*.py"), *(REPO / "grading" / "reader").rglob("*.py")]:
        if path.name == "settings.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and _is_env_read(node)
                and not (isinstance(node.func, ast.Name))
            ):
                readers.append(f"{path.relative_to(REPO)}:{node.lineno}")
            if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
                readers.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert readers == []
