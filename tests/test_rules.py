"""Rule options and presets (docs/rules.md §14)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from xuezhan.errors import RulesError, XuezhanError
from xuezhan.rules import BASE_PATTERNS, EXTRAS, Rules, option_names

# docs/rules.md §14, column by column, copied from the table (not from the code).
QQ: dict[str, Any] = {
    "base_score": 6,
    "cap_multiple": None,
    "dingque": True,
    "self_draw_bonus": "base",
    "zhigang_payment": "discarder",
    "late_bugang_pays": True,
    "call_transfer": True,
    "dian_gang_hua": "self_draw",
    "pass_hu_scope": "same_tile",
    "must_hu_last_four": False,
    "hua_zhu_multiple": 16,
    "cha_jiao_pays": "max",
    "dead_wait_counts": True,
    "long_qi_dui_mode": "pattern",
    "dealer_rule": "dice",
    "end_on_first_win": False,
    "escaped_winner_forfeits": True,
    "kong_draw_from_tail": False,
    "exchange_three": "none",
    "blood_river": False,
}
CHENGDU: dict[str, Any] = {
    "base_score": 1,
    "cap_multiple": 8,
    "dingque": True,
    "self_draw_bonus": "base",
    "zhigang_payment": "discarder",
    "late_bugang_pays": False,
    "call_transfer": True,
    "dian_gang_hua": "self_draw",
    "pass_hu_scope": "same_tile",
    "must_hu_last_four": True,
    "hua_zhu_multiple": "cap",
    "cha_jiao_pays": "max",
    "dead_wait_counts": True,
    "long_qi_dui_mode": "roots",
    "dealer_rule": "first_winner",
    "end_on_first_win": False,
    "escaped_winner_forfeits": False,
    "kong_draw_from_tail": False,
    "exchange_three": "none",
    "blood_river": False,
}
# docs/rules.md §6.1 / §6.2 and the fan row of §14 ("cap" = 满格).
QQ_FAN: dict[str, int | str] = {
    "ping_hu": 1, "dui_dui_hu": 2, "qing_yi_se": 3, "dai_yao_jiu": 3, "qi_dui": 3, "qing_dui": 4,
    "jiang_dui": 4, "long_qi_dui": 5, "qing_qi_dui": 5, "qing_yao_jiu": 5, "qing_long_qi_dui": 6,
    "tian_hu": 6, "di_hu": 6,
    "gen": 1, "gang_shang_hua": 1, "gang_shang_pao": 1, "qiang_gang_hu": 0, "hai_di": 0,
    "jin_gou_diao": 0, "jue_zhang": 0,
}
CHENGDU_FAN: dict[str, int | str] = {
    **QQ_FAN,
    "jiang_dui": 5, "qiang_gang_hu": 1, "hai_di": 1, "jin_gou_diao": 1, "jue_zhang": 0,
    "tian_hu": "cap", "di_hu": "cap",
}
# long_qi_dui / qing_long_qi_dui have no fan in chengdu ("–"): that preset never scores them
# (long_qi_dui_mode = "roots"), so the value stored for them is not part of the table.
NOT_IN_CHENGDU = {"long_qi_dui", "qing_long_qi_dui"}

BOOLS = [k for k, v in QQ.items() if isinstance(v, bool)]
CHOICES = {
    "self_draw_bonus": ("base", "fan", "none"),
    "zhigang_payment": ("discarder", "everyone"),
    "dian_gang_hua": ("self_draw", "discard"),
    "pass_hu_scope": ("same_tile", "any_tile"),
    "cha_jiao_pays": ("max", "min"),
    "long_qi_dui_mode": ("pattern", "roots"),
    "dealer_rule": ("first_winner", "dice", "discarder"),
    "exchange_three": ("none", "clockwise", "counter", "opposite", "random"),
}


def code_of(exc: pytest.ExceptionInfo[RulesError]) -> str:
    return exc.value.code


# --- presets ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "table"), [("qq", QQ), ("chengdu", CHENGDU)])
def test_preset_holds_exactly_the_table(name: str, table: dict[str, Any]) -> None:
    r = Rules.preset(name)
    assert r.preset_name == name
    for option, value in table.items():
        got = getattr(r, option)
        assert got == value and type(got) is type(value), option


@pytest.mark.parametrize(("name", "fans"), [("qq", QQ_FAN), ("chengdu", CHENGDU_FAN)])
def test_preset_fans(name: str, fans: dict[str, int | str]) -> None:
    r = Rules.preset(name)
    for pid, fan in fans.items():
        if name == "chengdu" and pid in NOT_IN_CHENGDU:
            continue
        assert r.fan_of(pid) == fan, pid


def test_every_option_of_the_table_exists() -> None:
    assert set(option_names()) == set(QQ) | {"fan"}
    assert set(BASE_PATTERNS) | set(EXTRAS) == set(QQ_FAN) | {"zi_mo_jia_fan"}


def test_default_rules_are_qq() -> None:
    assert Rules() == Rules.preset("qq") == Rules.preset() == Rules.load("qq")
    assert Rules.load("chengdu") == Rules.preset("chengdu")
    assert Rules.preset("qq") != Rules.preset("chengdu")


def test_hua_zhu_points() -> None:
    # docs/rules.md §8.1: hua_zhu_multiple × base; 16 × 6 in qq, cap (8) × 1 in chengdu.
    assert Rules.preset("qq").hua_zhu_points == 96
    assert Rules.preset("chengdu").hua_zhu_points == 8
    assert Rules.preset("qq").with_options({"cap_multiple": 32, "hua_zhu_multiple": "cap"}).hua_zhu_points == 192


def test_unknown_preset() -> None:
    with pytest.raises(RulesError) as err:
        Rules.preset("tenhou")
    assert code_of(err) == "unknown_preset"
    with pytest.raises(RulesError) as err:
        Rules.load("tenhou")
    assert code_of(err) == "unknown_preset" and "'tenhou'" in err.value.message


def test_unknown_pattern_lookup() -> None:
    with pytest.raises(RulesError) as err:
        Rules().fan_of("kokushi")
    assert code_of(err) == "unknown_pattern" and "'kokushi'" in err.value.message


def test_rules_are_frozen_and_hashable() -> None:
    r = Rules.preset("chengdu")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.base_score = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(r, "cap_multiple", None)  # noqa: B010
    assert r.base_score == 1
    assert hash(r) == hash(Rules.preset("chengdu"))
    # with_options returns a copy; the original does not change.
    r2 = r.with_options({"base_score": 5})
    assert r2.base_score == 5 and r.base_score == 1


# --- options: every one validated ---------------------------------------------------------


@pytest.mark.parametrize("option", BOOLS)
def test_bool_options_accept_bools(option: str) -> None:
    flipped = not QQ[option]
    assert getattr(Rules().with_options({option: flipped}), option) is flipped


@pytest.mark.parametrize("option", BOOLS)
@pytest.mark.parametrize("value", [1, 0, "true", "yes", None])
def test_bool_options_reject_other_types(option: str, value: object) -> None:
    with pytest.raises(RulesError) as err:
        Rules().with_options({option: value})
    assert code_of(err) == "bad_option"
    assert option in err.value.message


@pytest.mark.parametrize(("option", "value"), [(o, v) for o, vs in CHOICES.items() for v in vs])
def test_choice_options_accept_each_choice(option: str, value: str) -> None:
    assert getattr(Rules().with_options({option: value}), option) == value


@pytest.mark.parametrize("option", list(CHOICES))
@pytest.mark.parametrize("value", ["bogus", "", 1, True, None])
def test_choice_options_reject_bad_choices(option: str, value: object) -> None:
    with pytest.raises(RulesError) as err:
        Rules().with_options({option: value})
    assert code_of(err) == "bad_option"
    assert option in err.value.message


@pytest.mark.parametrize("value", [0, -6, "6", 6.0, True, None])
def test_base_score_must_be_a_positive_int(value: object) -> None:
    with pytest.raises(RulesError) as err:
        Rules().with_options({"base_score": value})
    assert code_of(err) == "bad_option"


@pytest.mark.parametrize("value", [0, -8, "8", 8.0, True, "cap"])
def test_cap_multiple_must_be_a_positive_int_or_none(value: object) -> None:
    with pytest.raises(RulesError) as err:
        Rules().with_options({"cap_multiple": value})
    assert code_of(err) == "bad_option"


def test_cap_multiple_none() -> None:
    assert Rules().with_options({"cap_multiple": 16}).cap_multiple == 16
    assert Rules().with_options({"cap_multiple": 16, "hua_zhu_multiple": "cap"}).hua_zhu_points == 96
    # TOML has no null: the string "none" (as in the table, "int or none") removes the cap.
    assert Rules().with_options({"cap_multiple": "none"}).cap_multiple is None
    assert Rules().with_options({"cap_multiple": None}).cap_multiple is None


@pytest.mark.parametrize("value", [-1, "16", 1.5, True, "none"])
def test_hua_zhu_multiple_must_be_an_int_or_cap(value: object) -> None:
    with pytest.raises(RulesError) as err:
        Rules().with_options({"hua_zhu_multiple": value})
    assert code_of(err) == "bad_option"


def test_cap_without_cap_multiple() -> None:
    with pytest.raises(RulesError) as err:
        Rules().with_options({"hua_zhu_multiple": "cap"})  # qq has no cap
    assert code_of(err) == "bad_option"
    with pytest.raises(RulesError) as err:
        Rules().with_options({"fan": {"tian_hu": "cap"}})
    assert code_of(err) == "bad_option"
    # chengdu's hua_zhu and tian_hu/di_hu are "cap": removing the cap alone is inconsistent.
    with pytest.raises(RulesError) as err:
        Rules.preset("chengdu").with_options({"cap_multiple": None})
    assert code_of(err) == "bad_option"
    ok = Rules.preset("chengdu").with_options(
        {"cap_multiple": "none", "hua_zhu_multiple": 16, "fan": {"tian_hu": 6, "di_hu": 6}}
    )
    assert ok.cap_multiple is None and ok.fan_of("tian_hu") == 6


def test_unknown_option() -> None:
    with pytest.raises(RulesError) as err:
        Rules().with_options({"red_fives": True})
    assert code_of(err) == "unknown_option"
    assert "red_fives" in err.value.message
    with pytest.raises(RulesError) as err:
        Rules().with_options({"preset_name": "chengdu"})
    assert code_of(err) == "unknown_option"


def test_fan_overrides() -> None:
    r = Rules().with_options({"fan": {"jue_zhang": 1, "hai_di": 2, "tian_hu": 8}})
    assert (r.fan_of("jue_zhang"), r.fan_of("hai_di"), r.fan_of("tian_hu")) == (1, 2, 8)
    assert r.fan_of("qing_yi_se") == 3  # untouched
    capped = Rules.preset("chengdu").with_options({"fan": {"qing_yi_se": "cap"}})
    assert capped.fan_of("qing_yi_se") == "cap"


@pytest.mark.parametrize(
    ("fan", "code"),
    [
        ({"kokushi": 13}, "unknown_pattern"),
        ({"ping_hu": 0}, "bad_option"),  # a base pattern scores at least 1 fan
        ({"ping_hu": -1}, "bad_option"),
        ({"gen": -1}, "bad_option"),
        ({"gen": "2"}, "bad_option"),
        ({"gen": 1.5}, "bad_option"),
        ({"gen": True}, "bad_option"),
        ({"hai_di": 61}, "bad_option"),
    ],
)
def test_bad_fan_overrides(fan: dict[str, object], code: str) -> None:
    with pytest.raises(RulesError) as err:
        Rules().with_options({"fan": fan})
    assert code_of(err) == code


def test_an_extra_cannot_be_cap() -> None:
    with pytest.raises(RulesError) as err:
        Rules.preset("chengdu").with_options({"fan": {"hai_di": "cap"}})
    assert code_of(err) == "bad_option"


@pytest.mark.parametrize("value", [3, "cap", [1, 2]])
def test_fan_must_be_a_table(value: object) -> None:
    with pytest.raises(RulesError) as err:
        Rules().with_options({"fan": value})
    assert code_of(err) == "bad_option"


def test_malformed_fan_given_directly() -> None:
    with pytest.raises(RulesError) as err:
        Rules(fan=(("ping_hu", 1),))  # every pattern needs a fan
    assert code_of(err) == "bad_option"
    with pytest.raises(RulesError) as err:
        Rules(fan=("ping_hu",))  # type: ignore[arg-type]
    assert code_of(err) == "bad_option"


def test_every_rules_error_is_a_xuezhan_error() -> None:
    with pytest.raises(XuezhanError):
        Rules().with_options({"nope": 1})
    with pytest.raises(ValueError):
        Rules().with_options({"nope": 1})


# --- mappings --------------------------------------------------------------------------------


def test_from_mapping_forms() -> None:
    a = Rules.from_mapping({"preset": "chengdu", "options": {"cap_multiple": 16}})
    b = Rules.from_mapping({"preset": "chengdu", "cap_multiple": 16})
    assert a == b
    assert a.cap_multiple == 16 and a.base_score == 1
    assert Rules.from_mapping({}) == Rules.preset("qq")
    assert Rules.from_mapping({"base_score": 2}).base_score == 2


@pytest.mark.parametrize(
    ("data", "code", "named"),
    [
        ({"preset": 5}, "bad_rules", "'preset'"),
        ({"preset": "qq", "options": 3}, "bad_rules", "'options'"),
        ({"preset": "nope"}, "unknown_preset", "'nope'"),
        ({"preset": "qq", "options": {"nope": 1}}, "unknown_option", "'nope'"),
    ],
)
def test_from_mapping_errors(data: dict[str, Any], code: str, named: str) -> None:
    with pytest.raises(RulesError) as err:
        Rules.from_mapping(data)
    assert code_of(err) == code and named in err.value.message  # the message names what is wrong


def test_from_mapping_rejects_non_mappings() -> None:
    with pytest.raises(RulesError) as err:
        Rules.from_mapping("qq")  # type: ignore[arg-type]
    assert code_of(err) == "bad_rules" and "a preset name or a table" in err.value.message


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("qq"),
        Rules.preset("chengdu"),
        Rules.preset("qq").with_options({"cap_multiple": 64, "self_draw_bonus": "fan", "blood_river": True}),
        Rules.preset("chengdu").with_options(
            {"base_score": 2, "exchange_three": "random", "fan": {"jue_zhang": 1, "hai_di": 2}}
        ),
        Rules.preset("chengdu").with_options(
            {"cap_multiple": None, "hua_zhu_multiple": 16, "fan": {"tian_hu": 6, "di_hu": 6}}
        ),
    ],
)
def test_mapping_round_trip(rules: Rules) -> None:
    m = rules.to_mapping()
    assert m["preset"] == rules.preset_name
    assert Rules.from_mapping(m) == rules


def test_to_mapping_lists_only_changes() -> None:
    assert Rules.preset("chengdu").to_mapping() == {"preset": "chengdu", "options": {}}
    r = Rules.preset("qq").with_options({"dingque": False, "fan": {"hai_di": 1}})
    assert r.to_mapping() == {"preset": "qq", "options": {"dingque": False, "fan": {"hai_di": 1}}}


# --- TOML files -----------------------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "rules.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_load_toml_preset_plus_overrides(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'preset = "qq"\n'
        "cap_multiple = 16\n"
        'self_draw_bonus = "none"\n'
        "dingque = false\n"
        'exchange_three = "clockwise"\n'
        "\n[fan]\n"
        "jue_zhang = 1\n"
        "hai_di = 2\n",
    )
    r = Rules.load(path)
    assert r.preset_name == "qq"
    assert r.cap_multiple == 16
    assert r.self_draw_bonus == "none"
    assert r.dingque is False
    assert r.exchange_three == "clockwise"
    assert r.fan_of("jue_zhang") == 1 and r.fan_of("hai_di") == 2
    assert r.base_score == 6  # from the preset
    assert Rules.load(str(path)) == r


def test_load_toml_chengdu_preset(tmp_path: Path) -> None:
    r = Rules.load(write(tmp_path, 'preset = "chengdu"\nbase_score = 2\n[fan]\ntian_hu = "cap"\n'))
    assert r.preset_name == "chengdu" and r.base_score == 2 and r.cap_multiple == 8
    assert r.fan_of("tian_hu") == "cap"


def test_load_toml_without_preset_is_qq(tmp_path: Path) -> None:
    assert Rules.load(write(tmp_path, "base_score = 3\n")) == Rules().with_options({"base_score": 3})


def test_load_toml_with_options_table(tmp_path: Path) -> None:
    r = Rules.load(write(tmp_path, 'preset = "chengdu"\n[options]\ncap_multiple = 32\n'))
    assert r.cap_multiple == 32


def test_load_toml_cap_none(tmp_path: Path) -> None:
    r = Rules.load(
        write(
            tmp_path,
            'preset = "chengdu"\ncap_multiple = "none"\nhua_zhu_multiple = 16\n[fan]\ntian_hu = 6\ndi_hu = 6\n',
        )
    )
    assert r.cap_multiple is None


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('preset = "qq"\ncap_multiple = \n', "rules_file_syntax"),
        ("preset = qq\n", "rules_file_syntax"),
        ("[fan\n", "rules_file_syntax"),
        ('preset = "tenhou"\n', "unknown_preset"),
        ("preset = 1\n", "bad_rules"),
        ("red_fives = true\n", "unknown_option"),
        ("base_score = 0\n", "bad_option"),
        ('dingque = "yes"\n', "bad_option"),
        ('self_draw_bonus = "double"\n', "bad_option"),
        ('hua_zhu_multiple = "cap"\n', "bad_option"),
        ("fan = 3\n", "bad_option"),
        ("[fan]\nyakuman = 13\n", "unknown_pattern"),
        ("[dingque]\nx = 1\n", "bad_option"),
    ],
)
def test_load_bad_toml(tmp_path: Path, text: str, code: str) -> None:
    with pytest.raises(RulesError) as err:
        Rules.load(write(tmp_path, text))
    assert code_of(err) == code
    assert err.value.message


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RulesError) as err:
        Rules.load(tmp_path / "nope.toml")
    assert code_of(err) == "rules_file_unreadable"
    assert "nope.toml" in err.value.message


def test_load_a_directory(tmp_path: Path) -> None:
    (tmp_path / "dir.toml").mkdir()
    with pytest.raises(RulesError) as err:
        Rules.load(tmp_path / "dir.toml")
    assert code_of(err) == "rules_file_unreadable"


def test_load_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'preset = "qq"\n# \xff\xfe\n')
    with pytest.raises(RulesError) as err:
        Rules.load(path)
    assert code_of(err) == "rules_file_syntax"


def test_load_an_existing_file_without_toml_suffix(tmp_path: Path) -> None:
    r = Rules.load(write(tmp_path, "base_score = 4\n", name="house.rules"))
    assert r.base_score == 4


def test_load_unknown_name_that_is_no_file(tmp_path: Path) -> None:
    with pytest.raises(RulesError) as err:
        Rules.load(tmp_path / "house.rules")
    assert code_of(err) == "unknown_preset"
