"""Fan scoring (docs/rules.md §6).

Every expected number below was worked out by hand from docs/rules.md §6:
multiple = 2^(fan - 1); points = base_score × multiple (capped) + the self-draw bonus.
``qq``: base_score 6, no cap. ``chengdu``: base_score 1, cap ×8.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from xuezhan import scoring
from xuezhan.errors import HandError, XuezhanError
from xuezhan.rules import Rules
from xuezhan.scoring import Meld, MeldKind, NoWin, Score, WinContext, multiple_of, score_win, suits_of_melds
from xuezhan.tiles import parse_tile, parse_tiles

QQ = Rules.preset("qq")
CD = Rules.preset("chengdu")
PRESETS = {"qq": QQ, "chengdu": CD}


def melds_of(peng: Sequence[str] = (), gang: Sequence[str] = (), angang: Sequence[str] = ()) -> list[Meld]:
    return (
        [Meld(MeldKind.PENG, parse_tile(t)) for t in peng]
        + [Meld(MeldKind.GANG, parse_tile(t)) for t in gang]
        + [Meld(MeldKind.ANGANG, parse_tile(t)) for t in angang]
    )


def run(
    hand: str,
    win: str,
    rules: Rules = QQ,
    *,
    peng: Sequence[str] = (),
    gang: Sequence[str] = (),
    angang: Sequence[str] = (),
    void: str | None = None,
    **ctx: bool,
) -> Score | NoWin:
    void_suit = None if void is None else "mps".index(void)
    return score_win(
        parse_tiles(hand), melds_of(peng, gang, angang), parse_tile(win), WinContext(**ctx), rules, void_suit
    )


def scored(hand: str, win: str, rules: Rules = QQ, **kw: Any) -> Score:
    s = run(hand, win, rules, **kw)
    assert isinstance(s, Score), s
    return s


def check(s: Score, base: str, extras: dict[str, int], fan: int, multiple: int, points: int) -> None:
    assert (s.base, s.extras_dict, s.fan, s.multiple, s.points) == (base, extras, fan, multiple, points)


def test_multiple_of() -> None:
    # docs/rules.md §6: 1 fan ×1, 2 ×2, 3 ×4, 4 ×8, 5 ×16, 6 ×32.
    assert [multiple_of(f) for f in range(1, 8)] == [1, 2, 4, 8, 16, 32, 64]


# --- docs/rules.md §6 worked examples (from 004; qq, no roots unless said) --------------------------------------

# (hand, winning tile, base, fan qq, multiple qq)  — qq points = 6 × multiple (discard win).
WORKED = [
    ("23445677p345789s", "7p", "ping_hu", 1, 1),  # 234p 456p 77p 345s 789s
    ("111222444m33399p", "9p", "dui_dui_hu", 2, 2),  # 111 222 444m 333p 99p
    ("11333222456999s", "6s", "qing_yi_se", 3, 4),  # 11 222 333 456 999s: a run, so not qing_dui
    ("111222333m78999p", "7p", "dai_yao_jiu", 3, 4),  # split 123 123 123m 789p 99p
    ("22445599m115599p", "1p", "qi_dui", 3, 4),
    ("99887755221166p", "6p", "qing_qi_dui", 5, 16),
    ("222555888s88855m", "5m", "jiang_dui", 4, 8),
    ("11222244p557799m", "1p", "long_qi_dui", 5, 16),  # 2222p is the dragon, not a second gen
    ("11224444557799m", "9m", "qing_long_qi_dui", 6, 32),  # 4444m likewise
    ("11123777888999p", "1p", "qing_yao_jiu", 5, 16),  # only 11 123 789 789 789 gives it
]


@pytest.mark.parametrize(("hand", "win", "base", "fan", "multiple"), WORKED)
def test_worked_examples_qq(hand: str, win: str, base: str, fan: int, multiple: int) -> None:
    check(scored(hand, win), base, {}, fan, multiple, 6 * multiple)


# The same hands under chengdu (base 1, cap 8, jiang_dui 5, no dragon: every quad is a gen).
WORKED_CHENGDU = [
    ("23445677p345789s", "7p", "ping_hu", {}, 1, 1),
    ("111222444m33399p", "9p", "dui_dui_hu", {}, 2, 2),
    ("11333222456999s", "6s", "qing_yi_se", {}, 3, 4),
    ("111222333m78999p", "7p", "dai_yao_jiu", {}, 3, 4),
    ("22445599m115599p", "1p", "qi_dui", {}, 3, 4),
    ("99887755221166p", "6p", "qing_qi_dui", {}, 5, 8),  # ×16 capped at ×8
    ("222555888s88855m", "5m", "jiang_dui", {}, 5, 8),  # 5 fan in chengdu, ×16 capped
    ("11222244p557799m", "1p", "qi_dui", {"gen": 1}, 4, 8),  # 3 + 1 gen = 4 fan = ×8, exactly the cap
    ("11224444557799m", "9m", "qing_qi_dui", {"gen": 1}, 6, 8),  # 5 + 1 = 6 fan, ×32 capped
    ("11123777888999p", "1p", "qing_yao_jiu", {}, 5, 8),
]


@pytest.mark.parametrize(("hand", "win", "base", "extras", "fan", "multiple"), WORKED_CHENGDU)
def test_worked_examples_chengdu(
    hand: str, win: str, base: str, extras: dict[str, int], fan: int, multiple: int
) -> None:
    check(scored(hand, win, CD), base, extras, fan, multiple, multiple)


# --- every base pattern under both presets ---------------------------------------------------------

# (hand, win, context, preset, base, extras, fan, multiple, points)
BASE_TABLE: list[tuple[str, str, dict[str, bool], str, str, dict[str, int], int, int, int]] = [
    ("123m456m789m123p55p", "5p", {}, "qq", "ping_hu", {}, 1, 1, 6),
    ("123m456m789m123p55p", "5p", {}, "chengdu", "ping_hu", {}, 1, 1, 1),
    ("222m777m333p666p88p", "8p", {}, "qq", "dui_dui_hu", {}, 2, 2, 12),
    ("222m777m333p666p88p", "8p", {}, "chengdu", "dui_dui_hu", {}, 2, 2, 2),
    # 123 234 456 789 88m: one suit, runs, no terminal in 234/456.
    ("123m456m789m234m88m", "8m", {}, "qq", "qing_yi_se", {}, 3, 4, 24),
    ("123m456m789m234m88m", "8m", {}, "chengdu", "qing_yi_se", {}, 3, 4, 4),
    # 111m 789m 123p 789p 99p: every set and the pair holds a 1 or a 9.
    ("111789m12378999p", "9p", {}, "qq", "dai_yao_jiu", {}, 3, 4, 24),
    ("111789m12378999p", "9p", {}, "chengdu", "dai_yao_jiu", {}, 3, 4, 4),
    # 1,3,6,8m and 2,4,7p: no three consecutive ranks, so only seven pairs.
    ("11336688m224477p", "7p", {}, "qq", "qi_dui", {}, 3, 4, 24),
    ("11336688m224477p", "7p", {}, "chengdu", "qi_dui", {}, 3, 4, 4),
    # 111 333 555 777 99m: qing_dui (4) beats qing_yi_se (3) and dui_dui_hu (2).
    ("11133355577799m", "9m", {}, "qq", "qing_dui", {}, 4, 8, 48),
    ("11133355577799m", "9m", {}, "chengdu", "qing_dui", {}, 4, 8, 8),
    ("222555888s88855m", "5m", {}, "qq", "jiang_dui", {}, 4, 8, 48),
    ("222555888s88855m", "5m", {}, "chengdu", "jiang_dui", {}, 5, 8, 8),
    ("11222244p557799m", "7m", {}, "qq", "long_qi_dui", {}, 5, 16, 96),
    ("11335577992244s", "4s", {}, "qq", "qing_qi_dui", {}, 5, 16, 96),
    ("11335577992244s", "4s", {}, "chengdu", "qing_qi_dui", {}, 5, 8, 8),
    ("11123777888999p", "9p", {}, "qq", "qing_yao_jiu", {}, 5, 16, 96),
    ("11123777888999p", "9p", {}, "chengdu", "qing_yao_jiu", {}, 5, 8, 8),
    ("11224444557799m", "1m", {}, "qq", "qing_long_qi_dui", {}, 6, 32, 192),
    # tian_hu/di_hu are self-drawn: qq 6 fan ×32 = 192, + the self-draw bonus of one base (6) = 198.
    ("123m456m789m123p55p", "5p", {"tian_hu": True}, "qq", "tian_hu", {}, 6, 32, 198),
    ("123m456m789m123p55p", "5p", {"di_hu": True, "self_drawn": True}, "qq", "di_hu", {}, 6, 32, 198),
    # chengdu: "cap" = exactly ×8; reported fan is the 4 fan that reach ×8; 8 × 1 + bonus 1 = 9.
    ("123m456m789m123p55p", "5p", {"tian_hu": True}, "chengdu", "tian_hu", {}, 4, 8, 9),
    ("123m456m789m123p55p", "5p", {"di_hu": True}, "chengdu", "di_hu", {}, 4, 8, 9),
]


@pytest.mark.parametrize(("hand", "win", "ctx", "preset", "base", "extras", "fan", "multiple", "points"), BASE_TABLE)
def test_base_patterns(
    hand: str,
    win: str,
    ctx: dict[str, bool],
    preset: str,
    base: str,
    extras: dict[str, int],
    fan: int,
    multiple: int,
    points: int,
) -> None:
    check(scored(hand, win, PRESETS[preset], **ctx), base, extras, fan, multiple, points)


def test_tian_hu_beats_a_hand_that_reaches_the_cap_anyway() -> None:
    # chengdu: qing_qi_dui + 1 gen = 6 fan is also ×8; the hand is still reported as tian_hu (满格).
    s = scored("11224444557799m", "9m", CD, tian_hu=True)
    check(s, "tian_hu", {}, 4, 8, 9)
    assert s.capped and s.base_fan == 4  # 满格: the cap's fan is the pattern's own
    # qq: tian_hu replaces the dragon pattern, so the quad 4444m is an ordinary gen again:
    # 6 + 1 = 7 fan ×64 = 384, + bonus 6.
    s = scored("11224444557799m", "9m", QQ, tian_hu=True)
    check(s, "tian_hu", {"gen": 1}, 7, 64, 390)


def test_tian_hu_in_qq_keeps_its_roots() -> None:
    # qq tian_hu is an ordinary 6-fan base pattern: gens add on top. 1111m: 6 + 1 = 7 fan ×64 = 384 + 6.
    check(scored("1111m23m456p789p55p", "5p", QQ, tian_hu=True), "tian_hu", {"gen": 1}, 7, 64, 390)


# --- extras under both presets -------------------------------------------------------------------------

H = "123m456m789m123p55p"  # ping_hu, no gen
EXTRAS_TABLE: list[tuple[str, str, dict[str, Any], str, str, dict[str, int], int, int, int]] = [
    # gen: 1111m (four concealed) → ping_hu 1 + 1 = 2 fan.
    ("1111m23m456p789p55p", "5p", {}, "qq", "ping_hu", {"gen": 1}, 2, 2, 12),
    ("1111m23m456p789p55p", "5p", {}, "chengdu", "ping_hu", {"gen": 1}, 2, 2, 2),
    # gang_shang_hua: angang 9p (a gen) + 杠上花: 1 + 1 + 1 = 3 fan ×4; self-drawn: + one base.
    ("123m456m789m77m", "7m", {"angang": ["9p"], "self_drawn": True, "after_kong": True},
     "qq", "ping_hu", {"gen": 1, "gang_shang_hua": 1}, 3, 4, 24 + 6),
    ("123m456m789m77m", "7m", {"angang": ["9p"], "self_drawn": True, "after_kong": True},
     "chengdu", "ping_hu", {"gen": 1, "gang_shang_hua": 1}, 3, 4, 4 + 1),
    # gang_shang_pao: the discarder had just konged: 1 + 1 = 2 fan, no bonus.
    (H, "5p", {"after_kong": True}, "qq", "ping_hu", {"gang_shang_pao": 1}, 2, 2, 12),
    (H, "5p", {"after_kong": True}, "chengdu", "ping_hu", {"gang_shang_pao": 1}, 2, 2, 2),
    # qiang_gang_hu: 0 in qq, +1 in chengdu. (The robbed 3p is the only 3p the winner holds.)
    ("123456789m11234p", "3p", {"robbing_kong": True}, "qq", "ping_hu", {}, 1, 1, 6),
    ("123456789m11234p", "3p", {"robbing_kong": True}, "chengdu", "ping_hu", {"qiang_gang_hu": 1}, 2, 2, 2),
    # with a peng of another tile (7m): still the only 3p the winner owns
    ("123m456m11234p", "3p", {"robbing_kong": True, "peng": ["7m"]}, "chengdu", "ping_hu", {"qiang_gang_hu": 1},
     2, 2, 2),
    # hai_di: 0 in qq, +1 in chengdu; on a discard and self-drawn.
    (H, "5p", {"last_tile": True}, "qq", "ping_hu", {}, 1, 1, 6),
    (H, "5p", {"last_tile": True}, "chengdu", "ping_hu", {"hai_di": 1}, 2, 2, 2),
    (H, "5p", {"last_tile": True, "self_drawn": True}, "qq", "ping_hu", {}, 1, 1, 12),
    (H, "5p", {"last_tile": True, "self_drawn": True}, "chengdu", "ping_hu", {"hai_di": 1}, 2, 2, 3),
    # jin_gou_diao: four pengs, the win pairs the single held 8p. dui_dui_hu 2 (+1 in chengdu).
    ("88p", "8p", {"peng": ["2m", "7m", "3p", "6p"]}, "qq", "dui_dui_hu", {}, 2, 2, 12),
    ("88p", "8p", {"peng": ["2m", "7m", "3p", "6p"]}, "chengdu", "dui_dui_hu", {"jin_gou_diao": 1}, 3, 4, 4),
    # ... on qing_dui: chengdu 4 + 1 = 5 fan, ×16 capped at ×8.
    ("99m", "9m", {"peng": ["1m", "3m", "5m", "7m"]}, "qq", "qing_dui", {}, 4, 8, 48),
    ("99m", "9m", {"peng": ["1m", "3m", "5m", "7m"]}, "chengdu", "qing_dui", {"jin_gou_diao": 1}, 5, 8, 8),
    # jue_zhang: 0 everywhere by default.
    (H, "5p", {"last_copy": True}, "qq", "ping_hu", {}, 1, 1, 6),
    (H, "5p", {"last_copy": True}, "chengdu", "ping_hu", {}, 1, 1, 1),
    # zi_mo_jia_fan: 0 unless self_draw_bonus = "fan" (below). Plain self-draw: + one base.
    (H, "5p", {"self_drawn": True}, "qq", "ping_hu", {}, 1, 1, 12),
    (H, "5p", {"self_drawn": True}, "chengdu", "ping_hu", {}, 1, 1, 2),
]


@pytest.mark.parametrize(
    ("hand", "win", "kw", "preset", "base", "extras", "fan", "multiple", "points"), EXTRAS_TABLE
)
def test_extras(
    hand: str,
    win: str,
    kw: dict[str, Any],
    preset: str,
    base: str,
    extras: dict[str, int],
    fan: int,
    multiple: int,
    points: int,
) -> None:
    check(scored(hand, win, PRESETS[preset], **kw), base, extras, fan, multiple, points)


@pytest.mark.parametrize(("preset", "fan", "multiple", "points"), [("qq", 2, 2, 12), ("chengdu", 2, 2, 2)])
def test_jue_zhang_with_a_fan_override(preset: str, fan: int, multiple: int, points: int) -> None:
    rules = PRESETS[preset].with_options({"fan": {"jue_zhang": 1}})
    check(scored(H, "5p", rules, last_copy=True), "ping_hu", {"jue_zhang": 1}, fan, multiple, points)
    # Without the flag the override changes nothing.
    check(scored(H, "5p", rules), "ping_hu", {}, 1, 1, 6 if preset == "qq" else 1)


def test_extra_fan_overrides_apply() -> None:
    rules = QQ.with_options({"fan": {"hai_di": 2, "gen": 2}})
    # ping_hu 1 + gen 2 (one quad at 2 fan) + hai_di 2 = 5 fan ×16 = 96.
    check(scored("1111m23m456p789p55p", "5p", rules, last_tile=True), "ping_hu", {"gen": 2, "hai_di": 2}, 5, 16, 96)


# --- self_draw_bonus modes ---------------------------------------------------------------------------

D = "222m777m333p666p88p"  # dui_dui_hu, 2 fan ×2


@pytest.mark.parametrize(
    ("preset", "mode", "self_drawn", "extras", "fan", "multiple", "points"),
    [
        ("qq", "base", True, {}, 2, 2, 12 + 6),  # each payer adds one base_score
        ("qq", "fan", True, {"zi_mo_jia_fan": 1}, 3, 4, 24),  # +1 fan instead, no base added
        ("qq", "none", True, {}, 2, 2, 12),
        ("qq", "fan", False, {}, 2, 2, 12),  # a discard win gets nothing in any mode
        ("qq", "base", False, {}, 2, 2, 12),
        ("chengdu", "base", True, {}, 2, 2, 2 + 1),
        ("chengdu", "fan", True, {"zi_mo_jia_fan": 1}, 3, 4, 4),
        ("chengdu", "none", True, {}, 2, 2, 2),
    ],
)
def test_self_draw_bonus(
    preset: str, mode: str, self_drawn: bool, extras: dict[str, int], fan: int, multiple: int, points: int
) -> None:
    rules = PRESETS[preset].with_options({"self_draw_bonus": mode})
    s = scored(D, "8p", rules, self_drawn=self_drawn)
    check(s, "dui_dui_hu", extras, fan, multiple, points)
    assert s.hand_points == rules.base_score * multiple


def test_self_draw_bonus_fan_with_the_cap() -> None:
    # chengdu, fan mode: qing_yao_jiu 5 + zi_mo 1 = 6 fan; ×32 capped at ×8; no base bonus.
    rules = CD.with_options({"self_draw_bonus": "fan"})
    check(scored("11123777888999p", "1p", rules, self_drawn=True), "qing_yao_jiu", {"zi_mo_jia_fan": 1}, 6, 8, 8)


def test_self_draw_bonus_on_a_capped_hand_is_added_after_the_cap() -> None:
    # chengdu base mode: 8 (capped) + 1 base.
    s = scored("11123777888999p", "1p", CD, self_drawn=True)
    check(s, "qing_yao_jiu", {}, 5, 8, 9)
    assert s.capped and s.hand_points == 8


# --- gen (根) --------------------------------------------------------------------------------------

# Every row: ping_hu 1 + gen 1 = 2 fan ×2 = 12 in qq; 2 in chengdu.
GEN_CASES = [
    pytest.param("123m456m789m55p", "5p", {"gang": ["9p"]}, id="exposed-kong"),
    pytest.param("123m456m789m55p", "5p", {"angang": ["9p"]}, id="concealed-kong"),
    pytest.param("123m789m456p99p", "9p", {"peng": ["5p"]}, id="peng-plus-fourth-in-hand"),
    pytest.param("123m789m456p99p", "5p", {"peng": ["5p"]}, id="peng-plus-winning-tile"),
    pytest.param("1111m23m456p789p55p", "5p", {}, id="four-concealed"),
    pytest.param("1111m23m456p789p55p", "1m", {}, id="winning-tile-is-the-fourth"),
]


@pytest.mark.parametrize(("hand", "win", "kw"), GEN_CASES)
@pytest.mark.parametrize(("preset", "points"), [("qq", 12), ("chengdu", 2)])
def test_gen_sources(hand: str, win: str, kw: dict[str, Any], preset: str, points: int) -> None:
    check(scored(hand, win, PRESETS[preset], **kw), "ping_hu", {"gen": 1}, 2, 2, points)


def test_three_copies_are_no_gen() -> None:
    check(scored("111m23m456p789p333p", "3p"), "ping_hu", {}, 1, 1, 6)
    check(scored("123m456m789m55p", "5p", peng=["9p"]), "ping_hu", {}, 1, 1, 6)


def test_several_gens() -> None:
    # 234m 567m 88m + exposed kong 1p + concealed kong 9p: ping_hu 1 + 2 gens = 3 fan ×4 = 24.
    check(scored("234m567m88m", "8m", gang=["1p"], angang=["9p"]), "ping_hu", {"gen": 2}, 3, 4, 24)
    check(scored("234m567m88m", "8m", CD, gang=["1p"], angang=["9p"]), "ping_hu", {"gen": 2}, 3, 4, 4)


# --- seven pairs and dragons (long_qi_dui_mode) ---------------------------------------------------------


def test_long_qi_dui_with_two_quads() -> None:
    # 1111 2222m 33 44 55p. qq: long_qi_dui 5, one quad is the dragon, the other a gen: 6 fan ×32 = 192.
    check(scored("11112222m334455p", "5p"), "long_qi_dui", {"gen": 1}, 6, 32, 192)
    # chengdu (roots): qi_dui 3 + 2 gens = 5 fan, ×16 capped at ×8.
    check(scored("11112222m334455p", "5p", CD), "qi_dui", {"gen": 2}, 5, 8, 8)


def test_three_quads_seven_pairs_beats_the_standard_split() -> None:
    # 1111 2222 3333m 55p is both 123m ×4 + 55p (ping_hu + 3 gens = 4 fan) and seven pairs.
    # qq: long_qi_dui 5 + (3 − 1) gens = 7 fan ×64 = 384.
    check(scored("111122223333m55p", "5p"), "long_qi_dui", {"gen": 2}, 7, 64, 384)
    # chengdu: qi_dui 3 + 3 gens = 6 fan (×8 capped) ties ping_hu + 3 gens (4 fan = ×8) on points;
    # the higher-fan reading is reported.
    check(scored("111122223333m55p", "5p", CD), "qi_dui", {"gen": 3}, 6, 8, 8)


def test_long_qi_dui_mode_roots_in_qq() -> None:
    # qq with roots: no dragon, the quad is a gen: qi_dui 3 + 1 = 4 fan ×8 = 48.
    rules = QQ.with_options({"long_qi_dui_mode": "roots"})
    check(scored("11222244p557799m", "1p", rules), "qi_dui", {"gen": 1}, 4, 8, 48)
    # qing: qing_qi_dui 5 + 1 = 6 fan ×32 = 192.
    check(scored("11224444557799m", "9m", rules), "qing_qi_dui", {"gen": 1}, 6, 32, 192)


# --- best split (坎倒板) and the cap -------------------------------------------------------------------


def test_best_split_qing_yao_jiu() -> None:
    s = scored("11123777888999p", "1p")
    assert s.split == ("11p", "123p", "789p", "789p", "789p")


def test_best_split_dai_yao_jiu() -> None:
    s = scored("111222333m78999p", "7p")
    assert s.split == ("99p", "123m", "123m", "123m", "789p")


@pytest.mark.parametrize(
    ("hand", "win", "ctx", "base", "split"),
    [
        # seven pairs: the pairs in tile order, a four-of-a-kind as two pairs
        ("11222244p557799m", "1p", {}, "long_qi_dui", ("55m", "77m", "99m", "11p", "22p", "22p", "44p")),
        ("11224444557799m", "9m", {}, "qing_long_qi_dui", ("11m", "22m", "44m", "44m", "55m", "77m", "99m")),
        ("222555888s88855m", "5m", {}, "jiang_dui", ("55m", "888m", "222s", "555s", "888s")),
        (H, "5p", {"tian_hu": True}, "tian_hu", ("55p", "123m", "456m", "789m", "123p")),
    ],
)
def test_every_reading_reports_its_split(
    hand: str, win: str, ctx: dict[str, bool], base: str, split: tuple[str, ...]
) -> None:
    s = scored(hand, win, QQ, **ctx)
    assert (s.base, s.split) == (base, split)
    assert s.to_json()["split"] == list(split)


def test_dai_yao_jiu_with_terminal_melds() -> None:
    # peng 111m + peng 999p + 789m 123p 99m: every set and the pair holds a 1 or a 9 (no four of a
    # kind): 3 fan x4 x6
    check(scored("789m99m123p", "9m", peng=["1m", "9p"]), "dai_yao_jiu", {}, 3, 4, 24)


def test_split_text() -> None:
    s = scored("234m55p", "5p", peng=["9p"], gang=["1m"], angang=["7m"])
    # pair first, then every set m, p, s by rank; kongs as four tiles.
    assert s.split == ("55p", "1111m", "234m", "7777m", "999p")
    # ping_hu 1 + 2 gens (1m, 7m kongs) = 3 fan ×4 = 24.
    check(s, "ping_hu", {"gen": 2}, 3, 4, 24)


def test_cap_option() -> None:
    rules = QQ.with_options({"cap_multiple": 16})
    s = scored("11224444557799m", "9m", rules)  # qing_long_qi_dui 6 fan ×32 → capped ×16
    check(s, "qing_long_qi_dui", {}, 6, 16, 96)
    assert s.capped
    s = scored("99887755221166p", "6p", rules)  # 5 fan ×16: at the cap, not over it
    check(s, "qing_qi_dui", {}, 5, 16, 96)
    assert not s.capped


def test_no_cap_in_qq() -> None:
    # 11224444557799m: qing_long_qi_dui 6 + gang_shang_pao 1 = 7 fan ×64 = 384: nothing caps it.
    s = scored("11224444557799m", "9m", after_kong=True)
    check(s, "qing_long_qi_dui", {"gang_shang_pao": 1}, 7, 64, 384)
    assert not s.capped


def test_chengdu_cap_flag() -> None:
    s = scored("11335577992244s", "4s", CD)
    assert s.capped and s.fan == 5 and s.multiple == 8
    assert not scored(H, "5p", CD).capped


def test_base_fan_field() -> None:
    s = scored("1111m23m456p789p55p", "5p", self_drawn=True)
    assert s.base_fan == 1 and s.fan == 2 and s.hand_points == 12 and s.points == 18


# --- gang_shang_hua vs gang_shang_pao ----------------------------------------------------------------


def test_gang_shang_hua_vs_pao() -> None:
    hua = scored("123m456m789m77m", "7m", angang=["9p"], self_drawn=True, after_kong=True)
    pao = scored("123m456m789m77m", "7m", angang=["9p"], after_kong=True)
    assert hua.extras_dict == {"gen": 1, "gang_shang_hua": 1}
    assert pao.extras_dict == {"gen": 1, "gang_shang_pao": 1}
    assert (hua.points, pao.points) == (30, 24)


def test_gang_shang_hua_on_a_bugang() -> None:
    # An exposed kong (here: a bugang) counts the same: 1 + gen + gsh = 3 fan ×4, + bonus 6.
    check(
        scored("123m456m789m77m", "7m", gang=["9p"], self_drawn=True, after_kong=True),
        "ping_hu", {"gen": 1, "gang_shang_hua": 1}, 3, 4, 30,
    )


# --- not a win (NoWin reasons) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "win", "kw", "reason"),
    [
        ("123m456m789m124p55p", "5p", {}, "not_complete"),
        ("11223344556789m", "9m", {}, "not_complete"),
        ("123m456p789s123p55p", "5p", {}, "three_suits"),
        ("123m456m789m55p", "5p", {"peng": ["1s"]}, "three_suits"),  # the meld brings the third suit
        ("123s456s55s", "5s", {"peng": ["1m", "1p"]}, "three_suits"),  # two melds bring two suits
        ("1133m5577p9911s22s", "2s", {}, "three_suits"),  # seven pairs in three suits
        (H, "5p", {"void": "p"}, "void_suit_tile"),
        ("123m456m789m55m", "5m", {"peng": ["1p"], "void": "p"}, "void_suit_tile"),  # void meld
        (H, "5p", {"void": "m"}, "void_suit_tile"),
    ],
)
def test_no_win(hand: str, win: str, kw: dict[str, Any], reason: str) -> None:
    r = run(hand, win, **kw)
    assert isinstance(r, NoWin)
    assert r.reason == reason
    assert r.to_json() == {"hu": False, "reason": reason}


def test_void_tile_outranks_three_suits() -> None:
    # A three-suit hand holding the void suit: the void tile is what blocks it first.
    r = run("123m456p789s123p55p", "5p", void="s")
    assert isinstance(r, NoWin) and r.reason == "void_suit_tile"


def test_void_suit_not_held_is_fine() -> None:
    check(scored(H, "5p", void="s"), "ping_hu", {}, 1, 1, 6)


def test_dingque_off_ignores_the_void() -> None:
    rules = QQ.with_options({"dingque": False})
    check(scored(H, "5p", rules, void="p"), "ping_hu", {}, 1, 1, 6)
    # ... but two suits at most still holds.
    r = run("123m456p789s123p55p", "5p", rules)
    assert isinstance(r, NoWin) and r.reason == "three_suits"


# --- impossible input: HandError -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "win", "kw", "code"),
    [
        ("123m456m789m123p5p", "5p", {}, "wrong_tile_count"),  # 13 tiles
        ("123m456m789m123p555p", "5p", {}, "wrong_tile_count"),  # 15 tiles
        (H, "5p", {"peng": ["9s"]}, "wrong_tile_count"),  # 14 + a meld
        ("123m789m123p55p", "5p", {"gang": ["5p"]}, "too_many_copies"),  # 2 + 4 copies of 5p
        ("11m456m789m123p", "1m", {"peng": ["1m"]}, "too_many_copies"),  # 2 + 3 copies of 1m
        (H, "9s", {}, "win_tile_not_in_hand"),
        (H, "4p", {}, "win_tile_not_in_hand"),
        # conflicting context
        (H, "5p", {"robbing_kong": True, "self_drawn": True}, "conflicting_context"),
        (H, "5p", {"robbing_kong": True, "tian_hu": True}, "conflicting_context"),
        ("123456789m11234p", "3p", {"robbing_kong": True, "after_kong": True}, "conflicting_context"),
        (H, "5p", {"tian_hu": True, "di_hu": True}, "conflicting_context"),
        (H, "5p", {"tian_hu": True, "after_kong": True}, "conflicting_context"),
        (H, "5p", {"di_hu": True, "last_tile": True}, "conflicting_context"),
        # 杠上花 needs a kong of the winner's own.
        (H, "5p", {"self_drawn": True, "after_kong": True}, "conflicting_context"),
        ("123m456m789m55p", "5p", {"peng": ["9p"], "self_drawn": True, "after_kong": True}, "conflicting_context"),
        # A robbed bugang tile is the fourth copy: the winner can hold no other copy of it.
        (H, "5p", {"robbing_kong": True}, "conflicting_context"),
        # tian_hu/di_hu are wins on the dealt tiles / the first draw: no melds yet.
        ("123m456m789m55p", "5p", {"angang": ["9p"], "tian_hu": True}, "conflicting_context"),
        ("123m456m789m55p", "5p", {"peng": ["9p"], "di_hu": True}, "conflicting_context"),
    ],
)
def test_impossible_hands(hand: str, win: str, kw: dict[str, Any], code: str) -> None:
    with pytest.raises(HandError) as err:
        run(hand, win, **kw)
    assert err.value.code == code
    assert err.value.message
    assert isinstance(err.value, XuezhanError)


def test_hand_error_before_no_win() -> None:
    # A 13-tile non-hand is bad input (HandError), not a NoWin answer.
    with pytest.raises(HandError):
        run("123m456p789s12p5p", "5p")


# --- value types ----------------------------------------------------------------------------------------


def test_meld() -> None:
    assert Meld(MeldKind.PENG, 4).text() == "555m"
    assert Meld(MeldKind.GANG, 13).text() == "5555p"
    assert Meld(MeldKind.ANGANG, 26).text() == "9999s"
    assert Meld(MeldKind.PENG, 4).size == 3 and not Meld(MeldKind.PENG, 4).is_kong
    assert Meld(MeldKind.ANGANG, 4).size == 4 and Meld(MeldKind.ANGANG, 4).is_kong
    m = Meld(MeldKind.GANG, 13)
    assert eval(repr(m), {"Meld": Meld, "MeldKind": MeldKind}) == m


def test_score_to_json() -> None:
    s = scored("12345678999m", "9m", peng=["1m"])
    # 1m: peng + one in hand = gen. qing_yi_se 3 + 1 = 4 fan ×8 = 48.
    assert s.to_json() == {
        "hu": True,
        "fan": 4,
        "multiple": 8,
        "points": 48,
        "base": "qing_yi_se",
        "extras": {"gen": 1},
        "split": ["99m", "111m", "123m", "456m", "789m"],
    }


def test_score_is_frozen() -> None:
    s = scored(H, "5p")
    with pytest.raises(AttributeError):
        s.fan = 13  # type: ignore[misc]


# --- property: scores are internally consistent ------------------------------------------------------------


@st.composite
def winning_hands(draw: st.DrawFn) -> list[int]:
    """Four sets and a pair in at most two suits, never five copies of a tile."""
    suits = draw(st.lists(st.integers(0, 2), min_size=2, max_size=2, unique=True))
    pair = draw(st.tuples(st.sampled_from(suits), st.integers(0, 8)))
    wanted = draw(st.lists(st.tuples(st.booleans(), st.sampled_from(suits), st.integers(0, 8)), min_size=4, max_size=4))
    counts = [0] * 27
    counts[pair[0] * 9 + pair[1]] = 2
    tiles = [pair[0] * 9 + pair[1]] * 2
    for is_run, suit, rank in wanted:
        # The first set, scanning from the wanted one, that still fits (runs and pungs, both suits).
        for k in range(36):
            run_first = (k // 9) % 2 == 0
            kind_run = is_run if run_first else not is_run
            s = suit if k < 18 else next(x for x in suits if x != suit)
            r = (rank + k) % 9
            if kind_run and r > 6:
                continue
            ts = [s * 9 + r + i for i in range(3)] if kind_run else [s * 9 + r] * 3
            if all(counts[t] + ts.count(t) <= 4 for t in ts):
                for t in ts:
                    counts[t] += 1
                tiles += ts
                break
    assume(len(tiles) == 14)
    return tiles


@settings(max_examples=150, deadline=None)
@given(winning_hands(), st.sampled_from(["qq", "chengdu"]), st.booleans(), st.integers(0, 13))
def test_every_complete_two_suit_hand_scores_consistently(
    tiles: list[int], preset: str, self_drawn: bool, win_index: int
) -> None:
    rules = PRESETS[preset]
    s = score_win(tiles, [], tiles[win_index], WinContext(self_drawn=self_drawn), rules)
    assert isinstance(s, Score)
    assert s.fan >= 1
    mult = multiple_of(s.fan)
    if rules.cap_multiple is not None:
        mult = min(mult, rules.cap_multiple)
    assert s.multiple == mult
    bonus = rules.base_score if self_drawn else 0
    assert s.points == rules.base_score * s.multiple + bonus
    # The split puts back exactly the hand's tiles.
    assert sorted(t for part in s.split for t in parse_tiles(part)) == sorted(tiles)
    assert len(s.split) in (5, 7)


# --- what each payment is worth: scoring is the one reader of base_score -----------------------------------


@pytest.mark.parametrize("base", [1, 2, 6])
def test_each_payment_is_a_multiple_of_the_base(base: int) -> None:
    rules = Rules.preset("qq").with_options({"base_score": base})
    assert scoring.angang_points(rules) == 2 * base
    assert scoring.bugang_points(rules) == base
    assert scoring.zhigang_points(rules) == (2 * base, base)
    assert scoring.escape_points(rules) == 16 * base
    assert scoring.hand_points(rules, 8) == 8 * base
    assert scoring.hua_zhu_points(rules) == rules.hua_zhu_points
    assert scoring.self_draw_bonus_points(rules) == (base if rules.self_draw_bonus == "base" else 0)
    assert scoring.self_draw_bonus_points(rules.with_options({"self_draw_bonus": "base"})) == base
    assert scoring.self_draw_bonus_points(rules.with_options({"self_draw_bonus": "fan"})) == 0


def test_a_score_is_paid_by_the_same_rule() -> None:
    rules = Rules.preset("qq").with_options({"base_score": 3, "self_draw_bonus": "base"})
    s = score_win(parse_tiles("11123456789999m"), [], parse_tile("9m"), WinContext(self_drawn=True), rules)
    assert isinstance(s, Score)
    assert s.hand_points == scoring.hand_points(rules, s.multiple) and s.points == s.hand_points + 3


def test_no_engine_module_reads_the_base_score() -> None:
    src = Path(__file__).resolve().parent.parent / "src" / "xuezhan"
    readers = sorted(
        str(p.relative_to(src)) for p in [src / "scoring.py", *sorted((src / "engine").glob("*.py"))]
        if any(isinstance(n, ast.Attribute) and n.attr == "base_score" for n in ast.walk(ast.parse(p.read_text())))
    )
    assert readers == ["scoring.py"]


def test_the_suits_of_melds_one_bit_a_suit() -> None:
    assert suits_of_melds([]) == 0
    assert suits_of_melds([Meld(MeldKind.PENG, parse_tile("5m"))]) == 0b001
    assert suits_of_melds([Meld(MeldKind.ANGANG, parse_tile("9s")), Meld(MeldKind.GANG, parse_tile("1p")),
                           Meld(MeldKind.PENG, parse_tile("2p"))]) == 0b110
