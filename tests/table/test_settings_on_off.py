"""§3: on/off settings are JSON true/false, and the strings "on"/"off" mean
the same (docs/rules.md §3)."""

import pytest

from omerta.city_mode import CITY
from omerta.table import CLASSIC
from omerta.table.errors import BadSettings

ON_OFF = ("auto_deal", "break_at_zero", "lift_at_zero")


@pytest.mark.parametrize("ruleset", [CLASSIC, CITY], ids=["classic", "city"])
@pytest.mark.parametrize("name", ON_OFF)
def test_settings_on_and_off_strings_mean_true_and_false(ruleset, name):
    assert getattr(ruleset.parse_settings({name: "on"}), name) is True
    assert getattr(ruleset.parse_settings({name: "off"}), name) is False
    assert ruleset.parse_settings({name: "on"}).to_dict()[name] is True


@pytest.mark.parametrize("value", ["ON", "yes", "true", 1, 0, None, ["on"]])
def test_settings_other_spellings_of_on_and_off_are_refused(value):
    with pytest.raises(BadSettings, match="break_at_zero"):
        CLASSIC.parse_settings({"break_at_zero": value})


def test_settings_on_is_no_value_of_a_setting_that_is_not_on_off():
    with pytest.raises(BadSettings, match="agreement"):
        CLASSIC.parse_settings({"agreement": "on"})
