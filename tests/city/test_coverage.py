"""Every rule of docs/rules.md §2 has a scenario test named after it, and city
mode is as pure as the engine it plugs into (docs/design.md)."""

import pathlib
import re

from omerta.city_mode import CitySettings

from ..table.test_purity import FORBIDDEN, _imports

TESTS = pathlib.Path(__file__).resolve().parent
ROOT = TESTS.parents[1]
CITY_MODE = ROOT / "omerta" / "city_mode"
RULES_MD = ROOT / "docs" / "rules.md"
WANTED = {f"M{n}" for n in range(1, 14)}


def test_every_city_rule_has_a_test_named_after_it():
    names = set()
    for path in TESTS.glob("test_*.py"):
        names |= set(re.findall(r"def (test_\w+)", path.read_text(encoding="utf-8")))
    cited = {rule for name in names for rule in re.findall(r"_(M\d+)(?=_)", name)}
    assert WANTED - cited == set()


def test_the_city_rule_list_matches_docs_rules_md():
    section = RULES_MD.read_text(encoding="utf-8").split("\n## 2.")[1].split("\n## 3.")[0]
    assert set(re.findall(r"\*\*(M\d+)\*\*", section)) == WANTED


def test_every_city_setting_is_in_the_settings_table():
    table = RULES_MD.read_text(encoding="utf-8").split("\n## 3.")[1].split("\n## 4.")[0]
    listed = set(re.findall(r"^\| `(\w+)`", table, flags=re.MULTILINE))
    assert set(CitySettings.__dataclass_fields__) <= listed


def test_no_city_mode_module_imports_io_asyncio_or_a_clock():
    for path in CITY_MODE.glob("*.py"):
        bad = {
            name for name in _imports(path) if name in FORBIDDEN or name.split(".")[0] in FORBIDDEN
        }
        assert not bad, f"{path.name} imports {bad}"
