"""The bounds of the numeric options, exactly at their edges, and errors that name the option."""

from __future__ import annotations

from typing import Any

import pytest

from xuezhan.errors import RulesError
from xuezhan.rules import MAX_BASE_SCORE, MAX_FAN, MAX_GEN, MAX_MULTIPLE, Rules, max_fan

QQ = Rules.preset("qq")
NO_EXTRAS = {"gen": 0, "gang_shang_hua": 0, "gang_shang_pao": 0, "zi_mo_jia_fan": 0}


@pytest.mark.parametrize(
    ("options", "ok"),
    [
        ({"base_score": 1}, True), ({"base_score": MAX_BASE_SCORE}, True),
        ({"base_score": 0}, False), ({"base_score": MAX_BASE_SCORE + 1}, False),
        ({"cap_multiple": 1}, True), ({"cap_multiple": MAX_MULTIPLE}, True),
        ({"cap_multiple": 0}, False), ({"cap_multiple": MAX_MULTIPLE + 1}, False),
        ({"hua_zhu_multiple": 0}, True), ({"hua_zhu_multiple": MAX_MULTIPLE}, True),
        ({"hua_zhu_multiple": -1}, False), ({"hua_zhu_multiple": MAX_MULTIPLE + 1}, False),
        ({"fan": {"qiang_gang_hu": 0}}, True), ({"fan": {"ping_hu": 1}}, True), ({"fan": {"ping_hu": 0}}, False),
        ({"fan": {"tian_hu": MAX_FAN, **NO_EXTRAS}}, True), ({"fan": {"tian_hu": MAX_FAN + 1, **NO_EXTRAS}}, False),
    ],
)
def test_numeric_options_at_their_edges(options: dict[str, Any], ok: bool) -> None:
    if ok:
        QQ.with_options(options)
        return
    with pytest.raises(RulesError) as info:
        QQ.with_options(options)
    name = next(iter(options))
    assert info.value.code == "bad_option"
    assert info.value.message.startswith(f"option {name!r}: ") and "must" in info.value.message


def test_max_fan_is_the_highest_base_plus_four_gen_and_every_other_extra() -> None:
    # qq: the highest base pattern 6; gen, gang_shang_hua, gang_shang_pao and zi_mo_jia_fan 1 each
    fan = dict(QQ.fan)
    assert max_fan(fan) == 6 + MAX_GEN * 1 + 1 + 1 + 1
    fan.update({"qiang_gang_hu": 2, "tian_hu": "cap", "gen": 2})
    assert max_fan(fan) == 6 + 4 * 2 + 1 + 1 + 1 + 2  # a "cap" pattern is left out; di_hu (6) is the highest
    # exactly MAX_FAN is allowed, one more is not
    room = MAX_FAN - max_fan(dict(QQ.fan))
    QQ.with_options({"fan": {"hai_di": room}})
    with pytest.raises(RulesError) as info:
        QQ.with_options({"fan": {"hai_di": room + 1}})
    assert info.value.message.startswith("option 'fan': a hand could score")


@pytest.mark.parametrize(
    ("options", "start"),
    [
        ({"dingque": "yes"}, "option 'dingque': must be true or false"),
        ({"cha_jiao_pays": "most"}, "option 'cha_jiao_pays': must be one of max, min"),
        ({"cap_multiple": "none", "hua_zhu_multiple": "cap"}, 'option \'hua_zhu_multiple\': "cap" needs'),
        ({"fan": "x"}, "option 'fan' must be a table"),
    ],
)
def test_errors_name_the_option(options: dict[str, Any], start: str) -> None:
    with pytest.raises(RulesError) as info:
        QQ.with_options(options)
    assert info.value.message.startswith(start), info.value.message


def test_to_mapping_keeps_only_what_differs_and_round_trips() -> None:
    rules = Rules.preset("chengdu").with_options({"base_score": 3, "fan": {"jue_zhang": 1}})
    assert rules.to_mapping() == {"preset": "chengdu", "options": {"base_score": 3, "fan": {"jue_zhang": 1}}}
    assert Rules.from_mapping(rules.to_mapping()) == rules
    assert Rules.preset("qq").to_mapping() == {"preset": "qq", "options": {}}


def test_max_fan_of_an_empty_table_and_a_folder_as_rules_file(tmp_path: Any) -> None:
    assert max_fan({}) == 0
    with pytest.raises(RulesError) as info:
        Rules.load(tmp_path)
    assert info.value.code == "rules_file_unreadable" and str(tmp_path) in info.value.message


def test_fan_tables_built_directly_are_checked_too() -> None:
    table = dict(QQ.fan)
    cases = [
        ((("nope", 1), *table.items()), "unknown_pattern", "no pattern or extra 'nope'"),
        (tuple((k, v) for k, v in table.items() if k != "hai_di"), "bad_option",
         "option 'fan': every pattern and extra needs a fan"),
        ((*table.items(), "x"), "bad_option", "option 'fan': must be pairs of pattern id and fan"),
        ((*table.items(), ("hai_di", 1, 2)), "bad_option", "option 'fan': must be pairs of pattern id and fan"),
        (tuple({**table, "tian_hu": "cap"}.items()), "bad_option",
         'option \'fan\': tian_hu = "cap" needs a cap_multiple'),
    ]
    for fan, code, start in cases:
        with pytest.raises(RulesError) as info:
            Rules(fan=fan)  # type: ignore[arg-type]
        assert (info.value.code, info.value.message[: len(start)]) == (code, start)
    with pytest.raises(RulesError) as info:
        Rules.preset("chengdu").with_options({"fan": {"hai_di": "cap"}})
    assert info.value.message.startswith("option 'fan': hai_di is an extra: its fan must be an integer")
    with pytest.raises(RulesError) as info:
        Rules.from_mapping({"options": 3})
    assert (info.value.code, info.value.message) == ("bad_rules", "'options' must be a table")


def test_a_rules_file_that_is_not_text(tmp_path: Any) -> None:
    path = tmp_path / "house.toml"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RulesError) as info:
        Rules.load(path)
    assert info.value.code == "rules_file_syntax" and "not UTF-8 text" in info.value.message
