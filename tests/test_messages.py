"""The table's ``hand_end`` and ``match_end`` built from real hands: each winner's hand as it was
laid down, the payments other than wins one line per kind, the match's coins."""

from __future__ import annotations

import random
from functools import cache

import pytest

from xuezhan import i18n
from xuezhan.bots import make_bot
from xuezhan.engine.game import Game
from xuezhan.ids import Reason
from xuezhan.match import HandResult, Match, RoomConfig
from xuezhan.rules import Rules
from xuezhan.scoring import Score, WinContext, score_win
from xuezhan.selfplay import play_hand
from xuezhan.server.messages import (
    KONG_KIND,
    hand_end_messages,
    kind_lines,
    match_end_message,
    replayed_win_hands,
    win_hands,
)
from xuezhan.tiles import parse_tiles, tile_name

PEOPLE = {"ann": "Ann", "bo": "Bo"}
SEATING = ("ann", "bot:1", "bo", "bot:2")


@cache
def played(seed: int, blood_river: bool = False, bot: str = "random") -> Game:
    rules = Rules.preset("qq")
    if blood_river:
        rules = rules.with_options({"blood_river": True})
    game = Game.new(rules, seed=seed)
    play_hand(game, [make_bot(bot, random.Random(seed * 4 + i)) for i in range(4)], seed=seed)
    return game


def result_of(game: Game, hand_no: int = 1) -> HandResult:
    """The few fields of a finished hand the message reads (names by seat, the hand's number)."""
    return HandResult(hand_no=hand_no, seed=0, dealer=game.dealer, seating=SEATING, bets=(), transfers=(),
                      items=(), escaped=(), next_dealer=None, record={})


def message(game: Game, lang: i18n.Lang = "zh-CN") -> dict[str, object]:
    return hand_end_messages(result_of(game), game, PEOPLE, None, RoomConfig(), final=False)[lang]


def test_a_self_drawn_win_is_laid_out_in_the_rules_notation() -> None:
    # seed 72: seat 2 (Bo) draws 6s to 678p 4456667s with a pung of 9s: a root (four 6s), self-drawn
    game = played(72)
    end = message(game)
    winners = end["winners"]
    assert isinstance(winners, list) and len(winners) == 1
    w = winners[0]
    assert (w["seat"], w["from"], w["tile"], w["name"]) == (2, None, "6s", "Bo")
    assert w["concealed"] == "678p4456667s"
    assert w["melds"] == [{"kind": "peng", "tiles": "999s"}]
    assert w["roots"] == 1 and "根" in w["pattern"]
    assert w["won"] == 3 * w["points"] == 54  # three payers
    # the kong and its refund: a line each, every seat's net points of that kind
    assert end["kinds"] == [
        {"kind": KONG_KIND, "name": "杠钱", "points": [-12, 0, 0, 12], "payments": 1},
        {"kind": "tui_shui", "name": "退税", "points": [12, 0, 0, -12], "payments": 1},
    ]
    assert [k["name"] for k in kind_lines(game, "en")] == ["Kongs", "kong refund"]
    assert [k["name"] for k in kind_lines(game, "zh-TW")] == ["槓錢", "退稅"]
    # the fields it had keep their meaning
    assert end["points"] == game.deltas() and len(end["ledger"]) == len(game.ledger)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(24))
def test_in_blood_battle_the_hands_read_at_the_end_are_the_ones_played_again(seed: int) -> None:
    # 血战到底: a winner stops playing, so its hand is read from the end of the hand, not played again
    game = played(seed, False, "heuristic")
    assert not game.winners_play_on and played(seed, True, "heuristic").winners_play_on
    assert win_hands(game) == replayed_win_hands(game)


@pytest.mark.parametrize("blood_river", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_each_winner_s_hand_is_the_one_it_won_with(seed: int, blood_river: bool) -> None:
    game = played(seed, blood_river, "heuristic")
    end = message(game)
    winners = end["winners"]
    assert isinstance(winners, list) and len(winners) == len(game.winners)
    hands = win_hands(game)
    for w, data, (concealed, melds) in zip(game.winners, winners, hands, strict=True):
        tiles = parse_tiles(data["concealed"])
        meld_tiles = [parse_tiles(m["tiles"]) for m in data["melds"]]
        assert tiles == sorted(concealed) and len(tiles) + 3 * len(meld_tiles) == 13
        assert [m["kind"] for m in data["melds"]] == [str(m.kind) for m in melds]
        assert all(len(set(t)) == 1 and len(t) in (3, 4) for t in meld_tiles)
        assert data["tile"] == tile_name(w.tile)
        # the hand laid out, with the winning tile, is a win of the same pattern and roots
        state = game.seat_state(w.seat)
        again = score_win([*tiles, w.tile], list(melds), w.tile, WinContext(self_drawn=w.from_seat is None),
                          game.rules, state.void, check=False)
        assert isinstance(again, Score)
        if w.score.base not in ("tian_hu", "di_hu"):
            assert again.base == w.score.base
        assert again.extras_dict.get("gen", 0) == data["roots"] == w.score.extras_dict.get("gen", 0)
        if not blood_river:  # the winner stops playing: its hand at the end is the one it won with
            final = list(state.hand)
            if w.from_seat is None:
                final.remove(w.tile)
            assert tiles == final and tuple(melds) == state.melds


@pytest.mark.parametrize("blood_river", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_wins_and_the_lines_by_kind_add_up_to_the_hand_s_points(seed: int, blood_river: bool) -> None:
    game = played(seed, blood_river, "heuristic")
    end = message(game)
    kinds = end["kinds"]
    assert isinstance(kinds, list)
    assert len({k["kind"] for k in kinds}) == len(kinds)  # one line per kind
    total = [0, 0, 0, 0]
    for k in kinds:
        assert sum(k["points"]) == 0 and k["payments"] >= 1
        total = [a + b for a, b in zip(total, k["points"], strict=True)]
    winners = end["winners"]
    assert isinstance(winners, list)
    for w in winners:
        total[w["seat"]] += w["won"]
    for e in game.ledger:
        if e.reason in (Reason.HU, Reason.ZIMO):
            total[e.from_seat] -= e.points
    assert total == game.deltas()
    kongs = [e for e in game.ledger if e.reason in (Reason.ANGANG, Reason.BUGANG, Reason.ZHIGANG)]
    assert sum(k["payments"] for k in kinds if k["kind"] == KONG_KIND) == len(kongs)


def test_the_match_s_standings_carry_its_coins_when_every_hand_was_counted() -> None:
    match = Match(RoomConfig(), list(SEATING), seed=1)
    match.running.update({"ann": 30, "bot:1": -10, "bo": 0, "bot:2": -20})
    end = match_end_message(match, PEOPLE, "zh-CN", {"ann": 1480, "bot:1": -520, "bo": -20, "bot:2": -1020})
    assert end["standings"] == [
        {"name": "Ann", "bot": False, "points": 30, "coins": 1480},
        {"name": "Bo", "bot": False, "points": 0, "coins": -20},
        {"name": "机器人1", "bot": True, "points": -10, "coins": -520},
        {"name": "机器人2", "bot": True, "points": -20, "coins": -1020},
    ]
    unknown = match_end_message(match, PEOPLE, "en")
    assert [s["coins"] for s in unknown["standings"]] == [None] * 4


def test_the_hand_end_is_built_in_a_language_only_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from xuezhan.explain import explain_hand
    from xuezhan.server import messages

    game = played(3, False, "heuristic")
    built: list[str] = []

    def counting(g: Game, lang: i18n.Lang, **kw: object) -> list[str]:
        built.append(lang)
        return explain_hand(g, lang, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr("xuezhan.server.messages.explain_hand", counting)
    ends = messages.hand_end_messages(result_of(game), game, PEOPLE, None, RoomConfig(), final=False)
    assert built == [] and sorted(ends) == sorted(i18n.LANGS) and len(ends) == len(i18n.LANGS)
    first = ends["en"]
    assert ends["en"] is first and built == ["en"]  # built once, then kept
    for lang in i18n.LANGS:  # each the same as built alone, in its own words
        assert ends[lang] == message(game, lang)
    assert sorted(built) == sorted([*i18n.LANGS, *i18n.LANGS])  # each once here, once by message()
    assert ends["zh-CN"]["winners"] != ends["en"]["winners"] or not game.winners
    with pytest.raises(KeyError):
        ends["fr"]  # type: ignore[index]
