"""The engine's floors are a contract: import-linter checks it (``make lint``), and these
tests show the contract catches what it must, and that packages talk through ``__all__``."""

from __future__ import annotations

import ast
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "designer" / "k8s"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = sorted(p.name for p in K8S.iterdir() if (p / "__init__.py").exists())


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def copy_of_the_project(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / "designer", tmp_path / "designer", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def plant(root: Path, module: str, line: str) -> None:
    path = root / "designer" / "k8s" / module
    path.write_text(path.read_text() + f"\n{line}  # planted by test_layers\n")


def test_the_contracts_hold_on_the_code_as_it_is() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract", "shown"),
    [
        # core is the ground floor: it may not reach up to the design.
        (
            "core/quantity.py",
            "from designer.k8s.design import Design",
            "The engine is in floors that only point down",
            "designer.k8s.core.quantity -> designer.k8s.design",
        ),
        # siblings on one floor stay independent of each other.
        (
            "kubelet/qos.py",
            "from designer.k8s.scheduler import fit",
            "The engine is in floors that only point down",
            "designer.k8s.kubelet.qos -> designer.k8s.scheduler",
        ),
        # dra (resource.k8s.io, the DRA CEL environment, allocation) is manifest's sibling:
        # the API server's validation and the scheduler build on it, never the reverse.
        (
            "dra/cel.py",
            "from designer.k8s.manifest import dump_yaml",
            "The engine is in floors that only point down",
            "designer.k8s.dra.cel -> designer.k8s.manifest",
        ),
        (
            "dra/allocator.py",
            "from designer.k8s.apiserver import validate_pod",
            "The engine is in floors that only point down",
            "designer.k8s.dra.allocator -> designer.k8s.apiserver",
        ),
        # a function-level import dodges nothing.
        (
            "apiserver/defaults.py",
            "def _sneaky():\n    from designer.k8s.kubelet import pod_qos\n    return pod_qos",
            "The engine is in floors that only point down",
            "designer.k8s.apiserver.defaults -> designer.k8s.kubelet",
        ),
        (
            "design/render.py",
            "import django.conf",
            "The engine imports no Django",
            "designer.k8s.design.render -> django",
        ),
    ],
)
def test_a_planted_forbidden_import_breaks_the_build(
    tmp_path: Path, module: str, line: str, contract: str, shown: str
) -> None:
    root = copy_of_the_project(tmp_path)
    plant(root, module, line)
    result = lint_imports(root)
    assert result.returncode != 0
    assert f"{contract} BROKEN" in result.stdout
    assert shown in result.stdout


def _imports(path: Path) -> list[ast.ImportFrom]:
    tree = ast.parse(path.read_text())
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("designer.k8s")
    ]


def _package_of(path: Path) -> str | None:
    rel = path.relative_to(ROOT / "designer")
    return rel.parts[1] if rel.parts[0] == "k8s" and len(rel.parts) > 2 else None


@pytest.mark.parametrize(
    "path",
    sorted(p for p in (ROOT / "designer").rglob("*.py") if "migrations" not in p.parts),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_packages_talk_to_each_other_through_their_public_names(path: Path) -> None:
    own = _package_of(path)
    for node in _imports(path):
        parts = node.module.split(".")  # type: ignore[union-attr]
        if len(parts) < 3:
            pytest.fail(f"{path}:{node.lineno} imports the whole engine package")
        target = parts[2]
        if target == own:
            continue
        assert len(parts) == 3, (
            f"{path}:{node.lineno}: from {node.module} reaches into another package's module; "
            f"import from designer.k8s.{target}"
        )
        public = importlib.import_module(node.module).__all__  # type: ignore[arg-type]
        for alias in node.names:
            assert alias.name in public, (
                f"{path}:{node.lineno}: {alias.name} is not in designer.k8s.{target}.__all__"
            )


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_exports_only_names_it_has(package: str) -> None:
    module = importlib.import_module(f"designer.k8s.{package}")
    assert module.__all__, package
    for name in module.__all__:
        assert hasattr(module, name), f"designer.k8s.{package}.__all__ names {name}"
