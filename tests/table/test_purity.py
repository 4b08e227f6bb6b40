"""The engine is pure: no I/O, no asyncio, no wall clock (docs/design.md)."""

import ast
import pathlib
import subprocess
import sys

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "omerta" / "table"
FORBIDDEN = {
    "aiohttp",
    "aiortc",
    "sqlalchemy",
    "asyncpg",
    "aiosqlite",
    "asyncio",
    "time",
    "datetime",
    "os",
    "socket",
    "io",
    "pathlib",
    "threading",
    "omerta.server",
    "omerta.store",
    "omerta.runtime",
    "omerta.media",
}


def _imports(path: pathlib.Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_no_engine_module_imports_io_asyncio_or_a_clock():
    for path in ENGINE.glob("*.py"):
        bad = {
            name for name in _imports(path) if name in FORBIDDEN or name.split(".")[0] in FORBIDDEN
        }
        assert not bad, f"{path.name} imports {bad}"


def test_importing_the_engine_loads_none_of_the_io_libraries():
    code = (
        "import sys, omerta.table, omerta.script; "
        "print(sorted(m for m in ('aiohttp', 'aiortc', 'sqlalchemy', 'asyncio', 'asyncpg')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
