"""Every text of the web client comes from omerta/web/i18n/<lang>.json: the three
languages have the same keys and placeholders, and every key the client
asks for exists. No browser needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "omerta" / "web"
LANGUAGES = ("en", "uk", "pl")
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}
FIRST_ARGUMENT = re.compile(r"""\bt(?:Maybe)?\(([^(),]*)""")
STRING = re.compile(r'"([a-z_]\w*(?:\.\w+)+)"')
TEMPLATE_KEY = re.compile(r"""\bt(?:Maybe)?\(\s*`([a-z_][\w.]*)\.\$\{""")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _load(lang: str) -> dict:
    return json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def _is_plural(node: object) -> bool:
    return isinstance(node, dict) and "other" in node and set(node) <= PLURAL_FORMS


def _leaves(node: dict, prefix: str = "") -> dict[str, set[str]]:
    """key -> its placeholders; a plural entry is one key (the union of its forms)."""
    out: dict[str, set[str]] = {}
    for name, value in node.items():
        key = f"{prefix}{name}"
        if _is_plural(value):
            out[key] = set().union(*(set(PLACEHOLDER.findall(v)) for v in value.values()))
        elif isinstance(value, dict):
            out.update(_leaves(value, key + "."))
        else:
            assert isinstance(value, str) and value.strip(), f"{key} is empty or not text"
            out[key] = set(PLACEHOLDER.findall(value))
    return out


def _lookup(table: dict, key: str) -> object:
    node: object = table
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted((WEB / "js").rglob("*.js")))


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_language_has_the_same_keys_and_placeholders(lang):
    english, other = _leaves(_load("en")), _leaves(_load(lang))
    assert sorted(set(english) - set(other)) == [], f"missing in {lang}.json"
    assert sorted(set(other) - set(english)) == [], f"not in en.json but in {lang}.json"
    wrong = {k: (english[k], other[k]) for k in english if english[k] != other[k]}
    assert wrong == {}, f"placeholders differ in {lang}.json"


def test_plural_entries_have_the_forms_each_language_needs():
    needed = {
        "en": {"one", "other"},
        "uk": {"one", "few", "many", "other"},
        "pl": {"one", "few", "many", "other"},
    }

    def plurals(node, prefix=""):
        for name, value in node.items():
            if _is_plural(value):
                yield f"{prefix}{name}", set(value)
            elif isinstance(value, dict):
                yield from plurals(value, f"{prefix}{name}.")

    for lang in LANGUAGES:
        for key, forms in plurals(_load(lang)):
            assert needed[lang] <= forms, f"{lang}.json {key} lacks {needed[lang] - forms}"


def test_every_key_the_client_uses_exists():
    english = _load("en")
    source = _sources()
    used = {k for arg in FIRST_ARGUMENT.findall(source) for k in STRING.findall(arg)}
    assert len(used) > 100, "the key scanner finds the client's t() calls"
    missing = [k for k in used if _lookup(english, k) is None]
    assert sorted(missing) == []
    prefixes = [
        k for k in set(TEMPLATE_KEY.findall(source)) if not isinstance(_lookup(english, k), dict)
    ]
    assert sorted(prefixes) == []


def test_every_key_in_the_files_is_used():
    source = _sources()
    used = set(STRING.findall(source))  # keys may also sit in lists handed to t()
    prefixes = set(TEMPLATE_KEY.findall(source))
    unused = [
        key
        for key in _leaves(_load("en"))
        if key not in used and not any(key.startswith(p + ".") for p in prefixes)
    ]
    assert sorted(unused) == []
