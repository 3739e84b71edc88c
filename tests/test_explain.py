"""The settlement in words: every win, payment and 流局 check said in three languages."""

from __future__ import annotations

import random
from functools import cache

import pytest

from xuezhan import i18n, vocab
from xuezhan.bots import make_bot
from xuezhan.engine.game import Game
from xuezhan.explain import explain_hand, ledger_texts, score_words, tile_word, tiles_words, win_texts
from xuezhan.selfplay import play_hand
from xuezhan.vocab import Kind


@cache
def played(seed: int, bot: str = "random") -> Game:
    game = Game.new(seed=seed)
    play_hand(game, [make_bot(bot, random.Random(seed * 4 + i)) for i in range(4)], seed=seed)
    return game


SEEDS = range(40)


def first_hand_with(reason: str) -> Game:
    for seed in range(400):
        game = played(seed)
        if any(e.reason == reason for e in game.ledger):
            return game
    raise AssertionError(f"no hand with {reason} in 400 seeds")


@pytest.mark.parametrize("seed", SEEDS)
def test_every_win_and_payment_is_said_in_every_language(seed: int) -> None:
    game = played(seed)
    sizes = set()
    for lang in i18n.LANGS:
        lines = explain_hand(game, lang, me=0)
        sizes.add(len(lines))
        text = "\n".join(lines)
        for w in game.winners:
            assert vocab.name(Kind.PATTERN, w.score.base, lang) in text
            assert tile_word(w.tile, lang) in text
        deltas = i18n.t("explain.net_sep", lang).join(
            i18n.t("explain.net_item", lang, seat=name, delta=f"{d:+d}")
            for name, d in zip(explain_names(lang), game.deltas(), strict=True))
        assert lines[-1] == i18n.t("explain.net", lang, deltas=deltas)
        assert len(ledger_texts(game, lang)) == len(game.ledger)
        assert len(win_texts(game, lang)) == len(game.winners)
    assert len(sizes) == 1  # the same sentences in each language


def explain_names(lang: i18n.Lang) -> list[str]:
    return [i18n.t("explain.you", lang)] + [i18n.t("common.seat", lang, seat=s) for s in (1, 2, 3)]


def test_cha_jiao_names_the_ready_seat_its_waits_and_the_fan_charged() -> None:
    game = first_hand_with("cha_jiao")
    lines = explain_hand(game, "zh-CN")
    paid = [e for e in game.ledger if e.reason == "cha_jiao"]
    said = [line for line in lines if line.startswith("查大叫")]
    assert len(said) == len(paid)
    ready = paid[0].to_seat
    waits = game.waits(ready)
    status = next(line for line in lines if line.strip().startswith(f"{ready} 号位听牌"))
    assert tiles_words(waits) in status
    assert f"{paid[0].points} 分" in status
    assert "番" in status
    for e in paid:
        assert any(f"{e.from_seat} 号位没听牌，赔听牌的{e.to_seat} 号位 {e.points} 分" in line for line in said)
    for seat in range(4):  # every seat still playing is checked, in words
        if game.contending(seat):
            assert any(line.strip().startswith(f"{seat} 号位") for line in lines if line.startswith("  "))
    assert any(line.startswith("流局：牌摸完了") for line in lines)


def test_hua_zhu_and_tui_shui_are_explained() -> None:
    pig = first_hand_with("hua_zhu")
    lines = explain_hand(pig, "en", names=["East", "South", "West", "North"])
    payer = next(e.from_seat for e in pig.ledger if e.reason == "hua_zhu")
    name = ["East", "South", "West", "North"][payer]
    assert any(line.strip().startswith(f"{name}: a flower pig") for line in lines)
    assert any(line.startswith(f"flower pig (查花猪): {name} paid") for line in lines)
    refund = first_hand_with("tui_shui")
    lines = explain_hand(refund, "zh-TW")
    assert sum(line.startswith("退稅：") for line in lines) == sum(e.reason == "tui_shui" for e in refund.ledger)


def test_a_win_names_the_winner_the_pattern_and_who_paid() -> None:
    game = next(g for g in map(played, range(400)) if any(w.from_seat is not None for w in g.winners))
    w = next(w for w in game.winners if w.from_seat is not None)
    line = next(s for s in win_texts(game, "en", me=w.seat) if s.startswith("you won on"))
    assert f"{tile_word(w.tile, 'en')}, discarded by seat {w.from_seat} ({score_words(w.score, 'en')})" in line
    assert f"seat {w.from_seat} paid {w.score.hand_points} point" in line


def test_names_must_be_four() -> None:
    with pytest.raises(ValueError):
        explain_hand(played(0), "en", names=["a", "b"])


def test_call_transfer_says_whose_kong_money_moved_to_whom() -> None:
    game = next(g for g in (played(seed, "heuristic") for seed in range(400))
                if any(e.reason == "call_transfer" for e in g.ledger))
    entry = next(e for e in game.ledger if e.reason == "call_transfer")
    lines = explain_hand(game, "zh-CN")
    assert (f"呼叫转移：{entry.from_seat} 号位杠后点炮，杠钱 {entry.points} 分转给胡牌的{entry.to_seat} 号位"
            in lines)
    win = next(line for line in lines if line.startswith(f"{entry.to_seat} 号位胡了{entry.from_seat} 号位打出的"))
    assert "杠上炮" in win  # the pattern of the win names the extra
