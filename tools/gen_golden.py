"""The golden corpus (tests/golden/corpus.jsonl): game records and their expected results.

Each line is ``{"name", "record", "expected"}``: a record of a whole hand (docs/rules.md §14 options,
deal, every action) and what replaying it gives: ``complete``, ``winners``, ``ledger``,
``deltas``, ``next_dealer`` and ``events_sha256`` (SHA-256 of the result's event list, as
compact JSON with sorted keys). tests/test_golden.py replays every record and compares the
result bit for bit, and checks that the corpus covers every option of docs/rules.md §14, every ledger
reason of a hand, every base pattern and every extra, under both presets.

The hands are played here by a seeded policy of this script (no bot): it takes a win when
offered (mostly), konges and pengs often, discards toward ready. Rare patterns are found by
planting a ready hand at one seat and trying seeds until the pattern is scored. Only the
records are kept; the test never plays.

    python tools/gen_golden.py          # build the corpus in memory and compare with the file
    python tools/gen_golden.py --write  # rewrite the file (a deliberate act: review the diff)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.deal import Deal
from xuezhan.engine.game import Game, Phase
from xuezhan.hand import shanten
from xuezhan.records import record_json, result_json
from xuezhan.rules import Rules
from xuezhan.tiles import full_set, parse_tiles

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "golden" / "corpus.jsonl"
EXPECTED_KEYS = ("complete", "winners", "ledger", "deltas", "next_dealer")

# --- the rules the corpus is played under ----------------------------------------------------------------

# (preset, options): both presets as they are, then every option of docs/rules.md §14 away from its preset value.
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("qq", {}),
    ("chengdu", {}),
    ("qq", {"base_score": 2}),
    ("qq", {"cap_multiple": 8}),
    ("chengdu", {"cap_multiple": 16, "hua_zhu_multiple": 16}),
    ("qq", {"dingque": False}),
    ("chengdu", {"dingque": False}),
    ("qq", {"self_draw_bonus": "fan"}),
    ("chengdu", {"self_draw_bonus": "none"}),
    ("qq", {"zhigang_payment": "everyone"}),
    ("chengdu", {"zhigang_payment": "everyone"}),
    ("qq", {"late_bugang_pays": False}),
    ("chengdu", {"late_bugang_pays": True}),
    ("qq", {"call_transfer": False}),
    ("qq", {"dian_gang_hua": "discard"}),
    ("qq", {"dian_gang_hua": "discard", "self_draw_bonus": "fan"}),
    ("qq", {"pass_hu_scope": "any_tile"}),
    ("qq", {"must_hu_last_four": True}),
    ("chengdu", {"must_hu_last_four": False}),
    ("qq", {"hua_zhu_multiple": 4, "dingque": False}),
    ("qq", {"cha_jiao_pays": "min"}),
    ("qq", {"dead_wait_counts": False}),
    ("qq", {"dead_wait_counts": False, "cha_jiao_pays": "min"}),
    ("qq", {"long_qi_dui_mode": "roots"}),
    ("chengdu", {"long_qi_dui_mode": "pattern"}),
    ("qq", {"fan": {"jue_zhang": 1}}),
    ("chengdu", {"fan": {"jue_zhang": 1, "hai_di": 2}}),
    ("qq", {"dealer_rule": "first_winner"}),
    ("qq", {"dealer_rule": "discarder"}),
    ("chengdu", {"dealer_rule": "dice"}),
    ("qq", {"end_on_first_win": True}),
    ("chengdu", {"end_on_first_win": True}),
    ("qq", {"escaped_winner_forfeits": False}),
    ("chengdu", {"escaped_winner_forfeits": True}),
    ("qq", {"kong_draw_from_tail": True}),
    ("qq", {"exchange_three": "counter"}),
    ("qq", {"exchange_three": "clockwise"}),
    ("qq", {"exchange_three": "opposite"}),
    ("chengdu", {"exchange_three": "random"}),
    ("qq", {"blood_river": True}),
    ("chengdu", {"blood_river": True}),
]
HANDS_PER_CONFIG = 5


def rules_of(preset: str, options: dict[str, Any]) -> Rules:
    return Rules.preset(preset).with_options(options)


# --- the policy ----------------------------------------------------------------------------------------------


@dataclass
class Policy:
    """Seeded choices. ``hu_when`` may hold a seat back from winning (it passes, 过水)."""

    rng: random.Random
    hu_when: Callable[[Game, int], bool] = lambda game, seat: True
    peng_rate: dict[int, float] = field(default_factory=dict)
    escape_at: tuple[int, int] | None = None  # (action count, seat)

    def choose(self, game: Game, seat: int) -> Action:
        rng = self.rng
        legal = game.legal_actions(seat)
        by_kind: dict[ActionType, list[Action]] = {}
        for a in legal:
            by_kind.setdefault(a.type, []).append(a)
        forced = ActionType.PASS not in by_kind and len(by_kind) == 1  # 最后四张必须胡
        if ActionType.HU in by_kind and (forced or (self.hu_when(game, seat) and rng.random() < 0.92)):
            return by_kind[ActionType.HU][0]
        if ActionType.GANG in by_kind and rng.random() < 0.8:
            return rng.choice(by_kind[ActionType.GANG])
        if ActionType.PENG in by_kind and rng.random() < self.peng_rate.get(seat, 0.6):
            return by_kind[ActionType.PENG][0]
        if ActionType.PASS in by_kind:
            return by_kind[ActionType.PASS][0]
        if ActionType.DINGQUE in by_kind:
            sizes = game.seat_state(seat).suit_sizes
            options = by_kind[ActionType.DINGQUE]
            if rng.random() < 0.85:
                return min(options, key=lambda a: (sizes[a.suit or 0], rng.random()))
            return rng.choice(options)
        if ActionType.DISCARD in by_kind:
            return self._discard(game, seat, by_kind[ActionType.DISCARD])
        return rng.choice(legal)

    def _discard(self, game: Game, seat: int, options: list[Action]) -> Action:
        if self.rng.random() < 0.15:
            return self.rng.choice(options)
        s = game.seat_state(seat)
        counts = list(s.counts)
        meld_suits = 0
        owned = list(counts)
        for m in s.melds:
            meld_suits |= 1 << (m.tile // 9)
            owned[m.tile] += m.size
        void = s.void if game.rules.dingque else None

        def after(a: Action) -> tuple[int, float]:
            assert a.tile is not None
            counts[a.tile] -= 1
            owned[a.tile] -= 1
            sh = shanten(counts, len(s.melds), meld_suits=meld_suits, void=void, owned=owned)
            counts[a.tile] += 1
            owned[a.tile] += 1
            return sh, self.rng.random()

        return min(options, key=after)


def play(game: Game, policy: Policy) -> Game:
    while not game.over:
        if policy.escape_at is not None and game.action_count == policy.escape_at[0]:
            seat = policy.escape_at[1]
            policy.escape_at = None
            if game.can_escape(seat):
                game.apply(Action(seat, ActionType.ESCAPE))
                continue
        seat = game.pending()[0]
        game.apply(policy.choose(game, seat))
    return game


# --- planted hands for the rare patterns -----------------------------------------------------------------------


def planted_game(rules: Rules, rng: random.Random, plants: dict[int, str], wall_head: str = "",
                 wall_tail: str = "") -> tuple[Game, int]:
    """A hand whose seat ``dealer + offset`` is dealt ``plants[offset]`` (14 tiles for the
    dealer) and the others random tiles; the live wall starts with ``wall_head`` and ends with
    ``wall_tail``, the rest shuffled. Returns the game and the seat of the first plant."""
    dealer = rng.randrange(4)
    head = parse_tiles(wall_head) if wall_head else []
    tail = parse_tiles(wall_tail) if wall_tail else []
    planted = {(dealer + offset) % 4: parse_tiles(text) for offset, text in plants.items()}
    rest = full_set()
    for t in [t for tiles in planted.values() for t in tiles] + head + tail:
        rest.remove(t)
    rng.shuffle(rest)
    hands: list[tuple[int, ...]] = []
    for i in range(4):
        n = 14 if i == dealer else 13
        given = planted.get(i, [])
        hands.append(tuple(given + rest[: n - len(given)]))
        rest = rest[n - len(given):]
    direction = rng.choice((1, 2, 3)) if rules.exchange_three == "random" else None
    game = Game(rules, Deal(tuple(hands), tuple(head + rest + tail)), dealer, exchange_direction=direction)
    return game, (dealer + next(iter(plants))) % 4


@dataclass
class Target:
    """Plant ``hand`` at seat ``dealer + offset`` and try seeds until ``found`` holds."""

    name: str
    preset: str
    options: dict[str, Any]
    hand: str
    offset: int
    found: Callable[[dict[str, Any]], bool]
    others: dict[int, str] = field(default_factory=dict)  # more planted tiles by offset from the dealer
    wall_head: str = ""
    wall_tail: str = ""
    hu_when: Callable[[Game, int, int], bool] | None = None  # (game, seat, planted seat)
    peng_all: bool = False


def base_is(pattern: str) -> Callable[[dict[str, Any]], bool]:
    return lambda res: any(w["base"] == pattern for w in res["winners"])


def extra_is(extra: str) -> Callable[[dict[str, Any]], bool]:
    return lambda res: any(extra in w["extras"] for w in res["winners"])


def reason_is(reason: str) -> Callable[[dict[str, Any]], bool]:
    return lambda res: any(e["reason"] == reason for e in res["ledger"])


TARGETS = [
    Target("dui_dui_hu", "qq", {}, "111m222m333p55p99p", 1, base_is("dui_dui_hu")),
    Target("qing_yi_se", "qq", {}, "1112345678999m", 2, base_is("qing_yi_se")),
    Target("dai_yao_jiu", "qq", {}, "123m789m123p789p9p", 1, base_is("dai_yao_jiu")),
    Target("qi_dui", "qq", {}, "1122m3355p7799p5m", 3, base_is("qi_dui")),
    Target("qing_dui", "qq", {}, "111m333m555m77m99m", 1, base_is("qing_dui")),
    Target("jiang_dui", "qq", {}, "222m555m888p22p55p", 2, base_is("jiang_dui")),
    Target("jiang_dui", "chengdu", {}, "222m555m888p22p55p", 1, base_is("jiang_dui")),
    Target("long_qi_dui", "qq", {}, "1111m22m33m55p77p9p", 1, base_is("long_qi_dui")),
    Target("qing_qi_dui", "qq", {}, "112233557799m4m", 3, base_is("qing_qi_dui")),
    Target("qing_qi_dui roots", "chengdu", {}, "1111m33m55m77m99m2m", 1, base_is("qing_qi_dui")),
    Target("qing_yao_jiu", "qq", {}, "111m123m789m789m9m", 2, base_is("qing_yao_jiu")),
    Target("qing_long_qi_dui", "qq", {}, "1111m33m55m77m99m2m", 1, base_is("qing_long_qi_dui")),
    Target("tian_hu", "qq", {}, "123m456m789m123p55p", 0, base_is("tian_hu")),
    Target("tian_hu", "chengdu", {}, "123m456m789m123p55p", 0, base_is("tian_hu")),
    Target("di_hu", "qq", {}, "123m456m789m123p5p", 1, base_is("di_hu"), wall_head="5p"),
    Target("di_hu", "chengdu", {}, "123m456m789m123p5p", 1, base_is("di_hu"), wall_head="5p"),
    Target("hai_di", "chengdu", {}, "123m456m789m46p11p", 2, extra_is("hai_di"), wall_tail="5p",
           hu_when=lambda game, seat, planted: seat != planted or game.live == 0),
    Target("hai_di", "chengdu", {"fan": {"hai_di": 2}}, "123m456m789m46p11p", 3, extra_is("hai_di"),
           wall_tail="5p", hu_when=lambda game, seat, planted: seat != planted or game.live == 0),
    Target("jin_gou_diao", "chengdu", {}, "11m22m33m44p55p99p6p", 1, extra_is("jin_gou_diao"), peng_all=True),
    Target("qiang_gang_hu", "chengdu", {}, "123m456m789m46p11p", 2, extra_is("qiang_gang_hu"), others={1: "55p"},
           wall_head="7s5p8s9s5p", peng_all=True,
           hu_when=lambda game, seat, planted: seat != planted or game.phase is Phase.ROB),
    Target("jue_zhang", "chengdu", {"fan": {"jue_zhang": 1}}, "123m456m789m46p11p", 1, extra_is("jue_zhang"),
           hu_when=lambda game, seat, planted: seat != planted or game.live < 30),
    Target("gang_shang_hua", "qq", {}, "5555p123m456m789m1p", 0, extra_is("gang_shang_hua")),
    Target("gang_shang_pao", "qq", {}, "5555p123m456m789m", 3, extra_is("gang_shang_pao")),
    Target("call_transfer", "qq", {"dian_gang_hua": "discard"}, "5555p123m456m789m", 2, reason_is("call_transfer")),
    Target("dian_gang_hua", "qq", {"dian_gang_hua": "discard"}, "555p123m456m789m1p", 1,
           lambda res: any(w["from"] is None and w["extras"].get("gang_shang_hua") for w in res["winners"])
           and any(e["reason"] == "hu" and e["points"] == max(w["points"] for w in res["winners"])
                   for e in res["ledger"]) and reason_is("zhigang")(res)),
]
TRIES = 400


# --- building the corpus ----------------------------------------------------------------------------------------


def expected_of(res: dict[str, Any]) -> dict[str, Any]:
    """What the corpus keeps of a result (tests/test_golden.py computes it the same way)."""
    events = json.dumps(res["events"], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return {**{k: res[k] for k in EXPECTED_KEYS}, "events_sha256": hashlib.sha256(events.encode()).hexdigest()}


def entry(name: str, game: Game) -> dict[str, Any]:
    return {"name": name, "record": record_json(game, with_result=False),
            "expected": expected_of(result_json(game, complete=game.over))}


def corpus() -> Iterator[dict[str, Any]]:
    for preset, options in CONFIGS:
        rules = rules_of(preset, options)
        label = preset + "".join(f" {k}={json.dumps(v)}" for k, v in options.items())
        for n in range(HANDS_PER_CONFIG):
            rng = random.Random(f"golden:{label}:{n}")
            seed = rng.getrandbits(32)
            game = Game.new(rules, seed=seed)
            bystanders = rng.choice((0, 0, 0, 1, 4))
            if bystanders:
                game = Game(rules, game.deal, game.dealer, exchange_direction=game.exchange_direction,
                            bystanders=bystanders)
            policy = Policy(rng)
            if rng.random() < 0.12:
                policy.escape_at = (rng.randrange(6, 90), rng.randrange(4))
            yield entry(f"{label} #{n}", play(game, policy))
    for target in TARGETS:
        rules = rules_of(target.preset, target.options)
        for attempt in range(TRIES):
            rng = random.Random(f"golden:{target.name}:{target.preset}:{json.dumps(target.options)}:{attempt}")
            plants = {target.offset: target.hand, **target.others}
            game, planted = planted_game(rules, rng, plants, target.wall_head, target.wall_tail)
            peng_seats = [(game.dealer + o) % 4 for o in plants] if target.peng_all else []
            policy = Policy(rng, peng_rate={s: 1.0 for s in peng_seats})
            if target.hu_when is not None:
                when = target.hu_when
                policy.hu_when = lambda g, s, p=planted, w=when: w(g, s, p)  # type: ignore[misc]
            play(game, policy)
            res = result_json(game, complete=True)
            if target.found(res):
                shown = " " + json.dumps(target.options) if target.options else ""
                yield entry(f"{target.name} ({target.preset}{shown})", game)
                break
        else:
            raise SystemExit(f"no hand found for {target.name} in {TRIES} tries")


def render(entries: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n" for e in entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite tests/golden/corpus.jsonl")
    args = parser.parse_args(argv)
    text = render(list(corpus()))
    if args.write:
        CORPUS.parent.mkdir(parents=True, exist_ok=True)
        CORPUS.write_text(text, encoding="utf-8")
        print(f"wrote {len(text.splitlines())} records to {CORPUS}")
        return 0
    same = CORPUS.exists() and CORPUS.read_text(encoding="utf-8") == text
    print(f"{len(text.splitlines())} records: {'the same as' if same else 'DIFFERENT from'} {CORPUS}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
