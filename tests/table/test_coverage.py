"""Every rule of docs/rules.md §1 has a scenario test named after it, and
every rule code the server can refuse with is documented there."""

import ast
import pathlib
import re

TESTS = pathlib.Path(__file__).resolve().parent
ROOT = TESTS.parents[1]
RULES_MD = ROOT / "docs" / "rules.md"
SECTION_1 = {
    "C": 3,
    "K": 4,
    "N": 2,
    "D": 5,
    "V": 7,
    "S": 6,
    "E": 5,
    "G": 5,
    "T": 5,
    "B": 1,
    "A": 1,
}
WANTED = {f"{letter}{n}" for letter, count in SECTION_1.items() for n in range(1, count + 1)}
# Rules documented but not implemented yet, so no test can be named after
# them. Remove an ID from here in the commit that implements its rule.
PENDING: set[str] = set()
# Codes in a refusal that are not rule IDs: a malformed message, a setting.
NOT_RULES = {"protocol", "§3"}


def rule_ids(text: str) -> set[str]:
    return set(re.findall(r"\*\*([A-Z]\d+)\*\*", text))


def cited_by_tests() -> set[str]:
    names = set()
    for path in TESTS.glob("test_*.py"):
        names |= set(re.findall(r"def (test_\w+)", path.read_text(encoding="utf-8")))
    return {rule for name in names for rule in re.findall(r"_([A-Z]\d+)(?=_)", name)}


def test_every_section_1_rule_has_a_test_named_after_it():
    assert WANTED - PENDING - cited_by_tests() == set()


def test_a_pending_rule_leaves_the_allow_list_once_it_has_a_test():
    assert PENDING & cited_by_tests() == set()


def test_the_rule_list_matches_docs_rules_md():
    section = RULES_MD.read_text(encoding="utf-8").split("\n## 2.")[0]
    assert rule_ids(section) == WANTED


def test_every_rule_code_in_the_server_is_documented():
    """A player who gets `"rule": "X9"` in an error can look X9 up."""
    documented = rule_ids(RULES_MD.read_text(encoding="utf-8")) | NOT_RULES
    codes = {}
    for path in (ROOT / "omerta").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and re.fullmatch(r"[A-Z]\d{1,2}|§\d", node.value)
            ):
                codes.setdefault(node.value, path.relative_to(ROOT).as_posix())
    assert "D2" in codes and "§3" in codes  # the scan finds what it looks for
    assert {code: where for code, where in codes.items() if code not in documented} == {}


def test_every_shared_setting_is_in_the_settings_table():
    from omerta.table.settings import DaySettings

    table = RULES_MD.read_text(encoding="utf-8").split("\n## 3.")[1].split("\n## 4.")[0]
    listed = set(re.findall(r"^\| `(\w+)`", table, flags=re.MULTILINE))
    assert set(DaySettings.__dataclass_fields__) | {"ruleset", "best_move"} <= listed
