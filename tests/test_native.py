"""The compiled core (xuezhan.native) against the Python engine, the reference.

Differential: over 10,000 seeded hands of random self-play per run (both presets, every
non-default value of every option of docs/rules.md §14, and random mixes of them), the core's game
records are byte-identical to the Python engine's (actions, events, winners, ledger, deltas,
next dealer), and so are the self-play statistics. Then: rules the core does not implement are
refused and the Python engine plays them; malformed batches are clear errors; without the core
everything runs on the Python engine.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from test_cli_games import run_json
from test_engine_illegal import pass_hu_position

import xuezhan.native._core as core
from xuezhan import native
from xuezhan.bots import make_bot
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.deal import Deal, random_deal
from xuezhan.engine.game import Game
from xuezhan.errors import IllegalActionError, XuezhanError
from xuezhan.match import hand_record, hand_seed
from xuezhan.records import record_json
from xuezhan.rules import Rules
from xuezhan.runtime import HandDriver, Seat
from xuezhan.selfplay import simulate

if not native.available():  # the README's commands build it; a missing core is a failure, not a skip
    raise RuntimeError(f"the compiled core is not built: {native.why_unavailable()}")

# --- the rule sets of the differential ---------------------------------------------------------------------

# every option of docs/rules.md §14 with every value it can take (besides the presets' own)
_VALUES: dict[str, tuple[Any, ...]] = {
    "base_score": (1, 2, 6, 10),
    "cap_multiple": ("none", 4, 8, 64),
    "dingque": (True, False),
    "self_draw_bonus": ("base", "fan", "none"),
    "zhigang_payment": ("discarder", "everyone"),
    "late_bugang_pays": (True, False),
    "call_transfer": (True, False),
    "dian_gang_hua": ("self_draw", "discard"),
    "pass_hu_scope": ("same_tile", "any_tile"),
    "must_hu_last_four": (True, False),
    "hua_zhu_multiple": (0, 16, "cap"),
    "cha_jiao_pays": ("max", "min"),
    "dead_wait_counts": (True, False),
    "long_qi_dui_mode": ("pattern", "roots"),
    "dealer_rule": ("first_winner", "dice", "discarder"),
    "end_on_first_win": (True, False),
    "kong_draw_from_tail": (True, False),
    "exchange_three": ("none", "clockwise", "counter", "opposite", "random"),
    "blood_river": (True, False),
}
_FANS: dict[str, tuple[Any, ...]] = {
    "jiang_dui": (4, 5), "qiang_gang_hu": (0, 1, 2), "hai_di": (0, 1, 2), "jin_gou_diao": (0, 1),
    "tian_hu": (6, "cap"), "di_hu": (6, "cap"), "gen": (0, 1, 2), "gang_shang_hua": (0, 1),
    "zi_mo_jia_fan": (1, 2), "qing_yi_se": (2, 3, "cap"), "jue_zhang": (1, 2), "qi_dui": (3, "cap"),
    "ping_hu": (1, 2),
}


def _build(preset: str, options: dict[str, Any]) -> Rules | None:
    try:
        return Rules.preset(preset).with_options(options)
    except XuezhanError:  # an impossible mix ("cap" without a cap)
        return None


def _rule_sets() -> list[tuple[str, Rules, int]]:
    """(name, rules, hands): the presets, each option value alone, and random mixes."""
    sets: list[tuple[str, Rules, int]] = [("qq", Rules.preset("qq"), 3000), ("chengdu", Rules.preset("chengdu"), 3000)]
    for option, values in _VALUES.items():
        for value in values:
            preset = "chengdu" if value == "cap" else "qq"
            rules = _build(preset, {option: value})
            if rules is not None and rules != Rules.preset(preset):
                sets.append((f"{preset}-{option}={value}", rules, 100))
    for pid, values in _FANS.items():
        for value in values:
            rules = _build("chengdu", {"fan": {pid: value}})
            if rules is not None and rules != Rules.preset("chengdu"):
                sets.append((f"chengdu-fan-{pid}={value}", rules, 60))
    rng = random.Random(2026)
    while sum(n for _, _, n in sets) < 14_000:
        options: dict[str, Any] = {k: rng.choice(v) for k, v in _VALUES.items() if rng.random() < 0.5}
        options["fan"] = {k: rng.choice(v) for k, v in _FANS.items() if rng.random() < 0.3}
        rules = _build(rng.choice(("qq", "chengdu")), options)
        if rules is not None:
            sets.append((f"mix-{len(sets)}", rules, 100))
    return sets


RULE_SETS = _rule_sets()


def python_records(games: int, seed: int, rules: Rules, bots: Sequence[str] = ("random",) * 4) -> list[str]:
    out: list[str] = []
    simulate(games, bots, seed=seed, rules=rules,
             on_hand=lambda hand: out.append(json.dumps(hand_record(hand), ensure_ascii=False)))
    return out


def native_records(games: int, seed: int, rules: Rules, bots: Sequence[str] = ("random",) * 4) -> list[str]:
    stats = simulate(games, bots, seed=seed, rules=rules, keep_records=True, engine="native")
    return [json.dumps(record, ensure_ascii=False) for record in stats.records]


def test_the_rule_sets_cover_every_option_value_and_ten_thousand_hands() -> None:
    assert sum(n for _, _, n in RULE_SETS) >= 10_000
    for option, values in _VALUES.items():
        seen = {getattr(r, option) for _, r, _ in RULE_SETS}
        for v in values:
            want = None if (option, v) == ("cap_multiple", "none") else v
            assert want in seen, (option, v)


@pytest.mark.parametrize(("name", "rules", "hands"), RULE_SETS, ids=[name for name, _, _ in RULE_SETS])
def test_records_are_byte_identical(name: str, rules: Rules, hands: int) -> None:
    seed = sum(name.encode())  # a different match for every rule set
    py = python_records(hands, seed, rules)
    nat = native_records(hands, seed, rules)
    assert len(py) == len(nat) == hands
    for k, (a, b) in enumerate(zip(py, nat, strict=True)):
        assert a == b, f"hand {k + 1} of {name} differs"


def test_the_rule_sets_reach_every_kind_of_move() -> None:
    # the hands compared hold every kind of move: a differential of plain discards would prove little
    seen: Counter[str] = Counter()
    for name, rules, hands in RULE_SETS[:2] + [r for r in RULE_SETS if "exchange" in r[0] or "blood" in r[0]]:
        for line in native_records(min(hands, 800), sum(name.encode()), rules):
            for e in json.loads(line)["result"]["events"]:
                seen[e["type"]] += 1
                seen["robbed"] += bool(e.get("robbing"))
    for kind in ("exchange", "dingque", "peng", "angang", "bugang_declared", "bugang", "zhigang", "hu", "pass_hu",
                 "wall_empty", "pay", "end", "robbed"):
        assert seen[kind] > 0, kind


def test_the_statistics_are_the_same() -> None:
    rules = Rules.preset("chengdu")
    a = simulate(450, ["random"] * 4, seed=11, rules=rules).to_json()
    b = simulate(450, ["random"] * 4, seed=11, rules=rules, engine="native").to_json()
    c = simulate(450, ["random"] * 4, seed=11, rules=rules, engine="native", workers=2).to_json()
    for x in (a, b, c):
        x.pop("hands_per_second")
    assert a == b == c


def test_native_self_play_refuses_what_it_cannot_play() -> None:
    with pytest.raises(XuezhanError) as info:
        simulate(3, ["random", "expert", "random", "random"], engine="native")
    assert info.value.code == "native_refused"
    with pytest.raises(ValueError, match="on_hand"):
        simulate(3, ["random"] * 4, engine="native", on_hand=lambda hand: None)


def test_a_hand_without_records_keeps_its_summary_only() -> None:
    seeds = [hand_seed(4, k) for k in range(1, 6)]
    bare = native.play_hands(seeds, Rules.preset("qq"))
    full = native.play_hands(seeds, Rules.preset("qq"), records=True)
    for h, f in zip(bare, full, strict=True):
        assert (h.dealer, h.next_dealer, h.deltas, h.wins, h.exhausted) == (f.dealer, f.next_dealer, f.deltas,
                                                                           f.wins, f.exhausted)
        assert sum(h.deltas) == 0
        record = f.record(Rules.preset("qq"))
        assert record["result"]["deltas"] == list(f.deltas)
    with pytest.raises(XuezhanError) as info:
        bare[0].record(Rules.preset("qq"))
    assert info.value.code == "no_record"


def test_the_core_draws_pythons_random_numbers() -> None:
    for seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1):
        r = random.Random(seed)
        assert core.mt_random(seed, 1300) == [r.random() for _ in range(1300)]


# --- the command line ----------------------------------------------------------------------------------------


def test_simulate_engines_give_the_same_summary_and_records(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    out: dict[str, Any] = {}
    for engine in ("python", "native"):
        path = tmp_path / f"{engine}.jsonl"
        rc, data = run_json(capsys, "simulate", "--games", "40", "--bots", "random", "--seed", "9", "--rules",
                            "chengdu", "--engine", engine, "--out", str(path))
        assert rc == 0
        assert data.pop("engine") == engine
        data.pop("hands_per_second")
        out[engine] = (data, path.read_bytes())
    assert out["python"] == out["native"]
    assert len(out["native"][1].splitlines()) == 40


def test_simulate_uses_the_core_by_default_when_it_can(capsys: pytest.CaptureFixture[str]) -> None:
    rc, data = run_json(capsys, "simulate", "--games", "5", "--bots", "random")
    assert rc == 0 and data["engine"] == "native"
    rc, data = run_json(capsys, "simulate", "--games", "5", "--bots", "random,heuristic,random,heuristic")
    assert rc == 0 and data["engine"] == "native"
    rc, data = run_json(capsys, "simulate", "--games", "1", "--bots", "random,expert,random,random")
    assert rc == 0 and data["engine"] == "python" and "native_refused" not in data


def test_bots_the_core_lacks_are_played_by_python(capsys: pytest.CaptureFixture[str]) -> None:
    assert native.refusal(Rules.preset("qq"), ["random", "expert", "random", "random"]) is not None
    with pytest.raises(XuezhanError) as info:
        native.play_hands([1], Rules.preset("qq"), ["expert"] * 4)
    assert info.value.code == "native_refused"
    rc, data = run_json(capsys, "simulate", "--games", "1", "--bots", "random,expert,random,random",
                        "--engine", "native")
    assert rc == 0
    assert data["engine"] == "python"
    assert "expert" in data["native_refused"]


def test_the_python_engine_says_why_it_plays_in_the_chosen_language(capsys: pytest.CaptureFixture[str]) -> None:
    from test_cli_games import run

    from xuezhan import i18n

    bots = "random,expert,random,random"
    why = native.refusal(Rules.preset("qq"), bots.split(","))
    assert why is not None
    for lang in i18n.LANGS:
        code, _, err = run(capsys, "simulate", "--games", "1", "--bots", bots, "--engine", "native", "--lang", lang)
        assert code == 0 and i18n.t("cli.simulate.python_engine", lang, why=why) in err


# --- malformed requests ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"seeds": [-1]}, "bad_batch"),
        ({"seeds": [2**64]}, "bad_batch"),
        ({"seeds": [True]}, "bad_batch"),
        ({"seeds": ["7"]}, "bad_batch"),
        ({"seeds": "123"}, "bad_batch"),
        ({"seeds": 5}, "bad_batch"),
        ({"bots": ["random"] * 3}, "bad_batch"),
        ({"bots": "random"}, "bad_batch"),
        ({"bots": ["random", "random", "random", "expert"]}, "native_refused"),
        ({"bots": ["random", "random", "random", "nobody"]}, "native_refused"),
        ({"first_dealer": 4}, "bad_batch"),
        ({"first_dealer": True}, "bad_batch"),
        ({"rules": "qq"}, "bad_batch"),
    ],
)
def test_a_malformed_batch_is_a_clear_error(kwargs: dict[str, Any], code: str) -> None:
    args: dict[str, Any] = {"seeds": [1, 2], "rules": Rules.preset("qq"), "bots": ["random"] * 4, **kwargs}
    seeds, rules, bots = args.pop("seeds"), args.pop("rules"), args.pop("bots")
    with pytest.raises(XuezhanError) as info:
        native.play_hands(seeds, rules, bots, **args)
    assert info.value.code == code


@pytest.mark.parametrize(
    "call",
    [
        lambda: core.play([1], -1, True, (1,) * 3, (0, 0, 0, 0), False),  # too few rule words
        lambda: core.play([1], -1, True, (0,) * core.RULE_WORDS, (0, 0, 0, 0), False),  # base score 0
        lambda: core.play([1], -1, True, native.marshal_rules(Rules.preset("qq")), (0, 0, 9, 0), False),
        lambda: core.play([1], 7, True, native.marshal_rules(Rules.preset("qq")), (0, 0, 0, 0), False),
        lambda: core.play([-5], -1, True, native.marshal_rules(Rules.preset("qq")), (0, 0, 0, 0), False),
        lambda: core.play(None, -1, True, native.marshal_rules(Rules.preset("qq")), (0, 0, 0, 0), False),  # type: ignore[arg-type]
        lambda: core.play([1], -1, True, ["x"] * core.RULE_WORDS, (0, 0, 0, 0), False),  # type: ignore[list-item]
    ],
)
def test_the_core_itself_refuses_bad_input_without_crashing(call: Any) -> None:
    with pytest.raises((ValueError, TypeError, OverflowError)):
        call()


# --- without the core -------------------------------------------------------------------------------------------


def test_without_the_core_the_python_engine_plays(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(native, "_core", None)
    monkeypatch.setattr(native, "_IMPORT_ERROR", "No module named 'xuezhan.native._core'")
    assert not native.available()
    assert "not built" in (native.refusal(Rules.preset("qq")) or "")
    with pytest.raises(XuezhanError) as info:
        native.play_hands([1], Rules.preset("qq"))
    assert info.value.code == "native_unavailable"
    rc, data = run_json(capsys, "simulate", "--games", "3", "--bots", "random")
    assert rc == 0 and data["engine"] == "python" and data["hands"] == 3
    rc, data = run_json(capsys, "simulate", "--games", "3", "--bots", "random", "--engine", "native")
    assert rc == 0 and data["engine"] == "python" and "not built" in data["native_refused"]


# --- rare moves, found by the core and checked one by one --------------------------------------------------------

_RARE_RULES = Rules.preset("chengdu").with_options(
    {"dian_gang_hua": "discard", "self_draw_bonus": "fan", "zhigang_payment": "everyone", "hua_zhu_multiple": 4,
     "fan": {"hai_di": 1, "gang_shang_pao": 1, "jue_zhang": 1}}
)


def _features(hand: native.NativeHand) -> set[str]:
    """What a hand holds that plain play seldom does, read from the core's packed result."""
    assert hand.detail is not None
    ledger = memoryview(hand.detail[5]).cast("q").tolist()
    winners = memoryview(hand.detail[6]).cast("q").tolist()
    found = {("call_transfer", "hua_zhu", "cha_jiao", "tui_shui")[r - 5] for r in ledger[3::4] if r >= 5}
    orders = Counter(winners[5::26])
    if any(n > 1 for n in orders.values()):
        found.add("several_winners")
    ids = {"qiang_gang_hu", "hai_di", "gang_shang_hua", "gang_shang_pao", "jin_gou_diao", "jue_zhang", "gen"}
    for k in range(0, len(winners), 26):
        w = winners[k:k + 26]
        if w[8]:
            found.add("robbed")
        if w[1] < 0 and any(e == (w[0], 0) for e in zip(ledger[1::4], ledger[3::4], strict=True)):
            found.add("dian_gang_hua")
        extras = {native.FAN_IDS[w[10 + 2 * i]] for i in range(w[9])}
        found |= extras & ids
        found.add(native.FAN_IDS[w[6]])
    return found


def test_rare_moves_are_the_same_as_in_the_python_engine() -> None:
    wanted = {"call_transfer", "hua_zhu", "cha_jiao", "tui_shui", "several_winners", "robbed", "dian_gang_hua",
              "qiang_gang_hu", "hai_di", "gang_shang_hua", "gang_shang_pao", "jin_gou_diao", "jue_zhang", "gen",
              "dui_dui_hu",
              "qi_dui", "qing_yi_se"}
    examples: dict[str, list[int]] = {}
    seeds = [hand_seed(77, k) for k in range(1, 40_001)]
    for start in range(0, len(seeds), 4000):
        for h in native.play_hands(seeds[start:start + 4000], _RARE_RULES, records=True, chain=False):
            for f in _features(h) & wanted:
                if len(examples.setdefault(f, [])) < 3:
                    examples[f].append(h.seed)
        if all(len(examples.get(f, [])) == 3 for f in wanted):
            break
    assert set(examples) == wanted
    for feature, found in examples.items():
        for seed in found:
            game = Game.new(_RARE_RULES, rng=random.Random(seed))
            HandDriver(game, [Seat.of_bot("random") for _ in range(4)], seed=seed).run()
            nat = native.play_hands([seed], _RARE_RULES, records=True)[0].record(_RARE_RULES)
            assert json.dumps(record_json(game)) == json.dumps(nat), (feature, seed)


# --- action by action: the same legal actions, every illegal action refused alike ---------------------------------


def _probes(seat: int, rng: random.Random) -> list[Action]:
    """Actions of every kind for ``seat``, most of them illegal at any moment, some malformed."""
    out = [Action(seat, ActionType.DISCARD, tile=t) for t in range(27)]
    out += [Action(seat, ActionType.GANG, tile=t) for t in range(27)]
    out += [Action(seat, kind) for kind in (ActionType.PENG, ActionType.HU, ActionType.PASS)]
    out += [Action(seat, ActionType.DINGQUE, suit=s) for s in range(3)]
    out += [Action(seat, ActionType.EXCHANGE, tiles=tuple(sorted(rng.sample(range(9), 3)))),
            Action(seat, ActionType.EXCHANGE, tiles=(0, 1)),
            Action(seat, ActionType.DISCARD), Action(seat, ActionType.GANG),
            Action(seat, ActionType.PASS, tile=3), Action(seat, ActionType.HU, suit=0)]
    return out


_STEP_RULES = {
    "qq": Rules.preset("qq"),
    "chengdu": Rules.preset("chengdu"),
    "exchange-blood": Rules.preset("qq").with_options({"exchange_three": "random", "blood_river": True,
                                                       "pass_hu_scope": "any_tile"}),
    "no-dingque": Rules.preset("chengdu").with_options({"dingque": False, "kong_draw_from_tail": True,
                                                        "pass_hu_scope": "any_tile"}),
}


def test_action_by_action_the_core_answers_as_the_python_engine() -> None:
    codes: Counter[str] = Counter()
    for name, rules in _STEP_RULES.items():
        rng = random.Random(name)
        for _ in range(HANDS_BY_STEP):
            _play_both(rules, rng, codes)
    # the probes reached every reason the engine gives (hand_over: below)
    # (pass_hu_blocked needs a seat offered a peng on a tile it passed a win on: a position below)
    assert set(codes) == {"not_your_turn", "action_not_available", "cannot_hu", "tile_not_in_hand",
                          "cannot_gang_tile", "illegal_action", "bad_seat", "must_hu",
                          "bad_exchange_tiles", "must_discard_drawn", "must_discard_void", "forced_dingque"}, codes


HANDS_BY_STEP = 8


def _play_both(rules: Rules, rng: random.Random, codes: Counter[str]) -> None:
    """One hand played at once by both engines, every seat probed with illegal actions on the way."""
    seed = rng.getrandbits(64)
    py = Game.new(rules, rng=random.Random(seed))
    nat = native.NativeGame(rules, seed)
    bot = make_bot("heuristic", random.Random(seed))
    bot.start_hand(seed)
    while True:
        assert nat.pending() == py.pending()
        for seat in range(4):
            assert nat.legal_actions(seat) == py.legal_actions(seat)
        if py.over:
            break
        for seat in range(5) if rng.random() < 0.3 else py.pending():
            for probe in _probes(seat, rng) if seat < 4 else [Action(seat, ActionType.PASS)]:
                if seat < 4 and probe in py.legal_actions(seat):
                    continue
                with pytest.raises(IllegalActionError) as want:
                    py.apply(probe)
                with pytest.raises(IllegalActionError) as got:
                    nat.apply(probe)
                assert got.value.code == want.value.code, probe
                codes[want.value.code] += 1
        assert nat.step == len(py.actions)
        seat = rng.choice(py.pending())
        legal = py.legal_actions(seat)
        passes = [a for a in legal if a.type is ActionType.PASS]
        if passes and rng.random() < 0.4:  # passing on wins: 过水不胡 comes up
            action = passes[0]
        else:  # the heuristic bot plays toward wins: blood-river winners, forced last-tile wins
            action = bot.choose(py.view(seat), legal) if len(legal) > 1 else legal[0]
        py.apply(action)
        nat.apply(action)
    assert json.dumps(nat.record()) == json.dumps(record_json(py))
    with pytest.raises(IllegalActionError) as info:
        nat.apply(Action(0, ActionType.PASS))
    assert info.value.code == "hand_over"


def test_a_hand_in_progress_has_a_partial_record() -> None:
    rules = Rules.preset("qq")
    py = Game.new(rules, rng=random.Random(5))
    nat = native.NativeGame(rules, 5)
    for _ in range(20):
        seat = py.pending()[0]
        action = py.legal_actions(seat)[-1]
        py.apply(action)
        nat.apply(action)
    assert not nat.over
    assert json.dumps(nat.record()) == json.dumps(record_json(py))
    with pytest.raises(XuezhanError) as info:
        nat.apply(Action(0, ActionType.ESCAPE))
    assert info.value.code == "native_refused"
    # values no action can hold (the runtime's driver refuses them before the engine sees them)
    for bad in (Action(py.pending()[0], ActionType.DISCARD, tile=27), Action(9, ActionType.PASS),
                Action(py.pending()[0], ActionType.DINGQUE, suit=-4),
                Action(py.pending()[0], ActionType.EXCHANGE, tiles=(99, 100, 101))):
        with pytest.raises(IllegalActionError):
            nat.apply(bad)
    assert json.dumps(nat.record()) == json.dumps(record_json(py))


def _replayed_both(game: Game) -> native.NativeGame:
    """The native hand of the same prepared deal, with every action ``game`` has applied."""
    nat = native.NativeGame.from_deal(game.rules, game.deal, game.dealer, game.exchange_direction)
    for action in game.actions:
        nat.apply(action)
    assert json.dumps(nat.record()) == json.dumps(record_json(game))
    return nat


@pytest.mark.parametrize("scope", ["same_tile", "any_tile"])
def test_a_win_passed_up_is_refused_alike(scope: str) -> None:
    game = pass_hu_position({"preset": "qq", "options": {"pass_hu_scope": scope}})
    game.apply(Action(2, ActionType.PASS))  # 过水: seat 2 passes a win on 5m
    game.apply(Action(0, ActionType.DISCARD, tile=game.drawn))
    nat = _replayed_both(game)
    with pytest.raises(IllegalActionError) as info:
        nat.apply(Action(2, ActionType.HU))
    assert info.value.code == "pass_hu_blocked"
    with pytest.raises(IllegalActionError) as want:
        game.apply(Action(2, ActionType.HU))
    assert want.value.code == "pass_hu_blocked"


def test_a_prepared_deal_plays_as_in_the_python_engine() -> None:
    rng = random.Random(8)
    for rules in _STEP_RULES.values():
        shuffled = random_deal(rng, dealer=2)
        deal = Deal(shuffled.hands, shuffled.wall)  # hands and wall, as a record or a test gives them
        py = Game.from_deal(rules, deal, 2)
        bot = make_bot("random", rng)
        bot.start_hand(rng.getrandbits(64))
        while not py.over:
            seat = py.pending()[0]
            legal = py.legal_actions(seat)
            py.apply(bot.choose(py.view(seat), legal))
        _replayed_both(py)
    with pytest.raises(XuezhanError) as info:
        native.NativeGame.from_deal(Rules.preset("qq"), Deal(deal.hands, deal.wall[1:]), 2)
    assert info.value.code == "bad_deal"
