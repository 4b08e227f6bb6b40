"""Every rule of RULES.md §1 has a scenario test named after it."""
import pathlib
import re

TESTS = pathlib.Path(__file__).resolve().parent
SECTION_1 = {"C": 3, "K": 4, "N": 2, "D": 5, "V": 7, "S": 6, "E": 4, "T": 5, "A": 1}
RULES_MD = TESTS.parents[2] / "shared" / "RULES.md"


def test_every_section_1_rule_has_a_test_named_after_it():
    names = set()
    for path in TESTS.glob("test_*.py"):
        names |= set(re.findall(r"def (test_\w+)", path.read_text()))
    cited = {rule for name in names for rule in re.findall(r"_([A-Z]\d+)(?=_)", name)}
    wanted = {f"{letter}{n}" for letter, count in SECTION_1.items() for n in range(1, count + 1)}
    assert wanted - cited == set()


def test_the_rule_list_matches_rules_md():
    # shared/ is laid beside every clone of the project, CI's included.
    section = RULES_MD.read_text().split("## 2.")[0]
    found = set(re.findall(r"\*\*([CKNDVSETA]\d+)\*\*", section))
    wanted = {f"{letter}{n}" for letter, count in SECTION_1.items() for n in range(1, count + 1)}
    assert found == wanted
