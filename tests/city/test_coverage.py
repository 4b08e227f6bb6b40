"""Every rule of RULES.md §2 has a scenario test named after it, and city
mode is as pure as the engine it plugs into (DESIGN.md)."""
import pathlib
import re

from ..table.test_purity import FORBIDDEN, _imports

TESTS = pathlib.Path(__file__).resolve().parent
CITY_MODE = TESTS.parents[1] / "omerta" / "city_mode"
RULES_MD = TESTS.parents[2] / "shared" / "RULES.md"
WANTED = {f"M{n}" for n in range(1, 14)}


def test_every_city_rule_has_a_test_named_after_it():
    names = set()
    for path in TESTS.glob("test_*.py"):
        names |= set(re.findall(r"def (test_\w+)", path.read_text()))
    cited = {rule for name in names for rule in re.findall(r"_(M\d+)(?=_)", name)}
    assert WANTED - cited == set()


def test_the_city_rule_list_matches_rules_md():
    section = RULES_MD.read_text().split("## 2.")[1].split("## 3.")[0]
    assert set(re.findall(r"\*\*(M\d+)\*\*", section)) == WANTED


def test_no_city_mode_module_imports_io_asyncio_or_a_clock():
    for path in CITY_MODE.glob("*.py"):
        bad = {name for name in _imports(path)
               if name in FORBIDDEN or name.split(".")[0] in FORBIDDEN}
        assert not bad, f"{path.name} imports {bad}"
