"""Property tests of the hand engine over many seeded random-bot hands (STYLE 8).

Every hand below is dealt by ``Game.new(rules, seed=...)`` and played by seeded bots
(mostly ``random``, some ``heuristic``), under both presets and random mixes of the
rule options of docs/rules.md §14. After every applied action the tests check:

- 108 tiles are accounted for (``tile_total``);
- the ledger sums to zero, every entry is a positive payment between two seats with a
  known reason, and ``deltas`` is the ledger summed by seat;
- a seat that has won never acts again (unless ``blood_river``), an escaped seat never;
- no seat's view (``SeatView.to_json`` and ``events_for``) holds another seat's
  concealed tiles before they are laid down, or the order of the wall.

At the end of each hand: its record replays (through JSON text) to the same ledger,
deltas and winners. Separately: ``Game.copy`` is independent of the original and
replays the same choices to the same result, and the same seed gives the same hand.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xuezhan.bots import make_bot
from xuezhan.engine.actions import REASONS, Action, ActionType
from xuezhan.engine.deal import random_deal
from xuezhan.engine.game import Game, Phase
from xuezhan.engine.views import SeatView, events_for
from xuezhan.records import parse_record, record_json, replay
from xuezhan.rules import Rules
from xuezhan.tiles import format_tiles

# --- rule mixes ---------------------------------------------------------------------------------------

OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "exchange_three": ("none", "clockwise", "counter", "opposite", "random"),
    "blood_river": (False, True),
    "end_on_first_win": (False, True),
    "kong_draw_from_tail": (False, True),
    "zhigang_payment": ("discarder", "everyone"),
    "late_bugang_pays": (False, True),
    "call_transfer": (False, True),
    "dian_gang_hua": ("self_draw", "discard"),
    "pass_hu_scope": ("same_tile", "any_tile"),
    "must_hu_last_four": (False, True),
    "dingque": (False, True),
    "self_draw_bonus": ("base", "fan", "none"),
    "cha_jiao_pays": ("max", "min"),
    "dead_wait_counts": (False, True),
    "long_qi_dui_mode": ("pattern", "roots"),
    "dealer_rule": ("first_winner", "dice", "discarder"),
    "escaped_winner_forfeits": (False, True),
    "base_score": (1, 2, 6),
}


@st.composite
def rule_mixes(draw: st.DrawFn) -> Rules:
    """A preset with a random subset of its options overridden."""
    preset = draw(st.sampled_from(("qq", "chengdu")))
    options: dict[str, Any] = {}
    for name, values in OPTION_VALUES.items():
        if draw(st.booleans()):
            options[name] = draw(st.sampled_from(values))
    if draw(st.booleans()):
        # chengdu's hua_zhu_multiple and tian_hu/di_hu fan are "cap": it keeps a cap
        caps: tuple[int | None, ...] = (4, 8, 16) if preset == "chengdu" else (None, 8, 16, 64)
        options["cap_multiple"] = draw(st.sampled_from(caps))
    return Rules.preset(preset).with_options(options)


def rules_from_rng(rng: random.Random) -> Rules:
    """The same kind of mix as :func:`rule_mixes`, for plain seeded loops."""
    preset = rng.choice(("qq", "chengdu"))
    options = {name: rng.choice(values) for name, values in OPTION_VALUES.items() if rng.random() < 0.5}
    return Rules.preset(preset).with_options(options)


# --- invariants checked after every step -----------------------------------------------------------------

PUBLIC_TILE_EVENTS = {"discard", "peng", "zhigang", "angang", "bugang_declared", "bugang", "hu"}
"""Events whose tile every seat sees: a discard and what is done with it, kongs, wins."""


def check_tiles_and_ledger(game: Game) -> None:
    assert game.tile_total() == 108
    assert game.live >= 0
    by_seat = [0, 0, 0, 0]
    for e in game.ledger:
        assert e.points > 0, e
        assert e.from_seat != e.to_seat, e
        assert 0 <= e.from_seat <= 3 and 0 <= e.to_seat <= 3, e
        assert e.reason in REASONS, e
        by_seat[e.from_seat] -= e.points
        by_seat[e.to_seat] += e.points
    assert sum(by_seat) == 0
    assert game.deltas() == by_seat
    assert sum(game.deltas()) == 0


def laid_down(game: Game, seat: int) -> bool:
    """A seat's concealed tiles are public once it has won (it lays its hand down; not in
    blood_river, where it plays on) or once the hand is over."""
    if game.over:
        return True
    return not game.rules.blood_river and any(w.seat == seat for w in game.winners)


def check_out_seats_idle(game: Game) -> None:
    """A seat that has won (outside blood_river) or escaped has nothing to do."""
    pending = game.pending()
    assert len(set(pending)) == len(pending)
    for seat in range(4):
        s = game.seats[seat]
        out = s.escaped or (s.won and not game.rules.blood_river)
        if out:
            assert seat not in pending, (seat, pending)
            assert game.legal_actions(seat) == (), seat
    if game.over:
        assert pending == []
        assert all(game.legal_actions(seat) == () for seat in range(4))
    for seat in pending:
        assert game.legal_actions(seat), seat  # whoever must act can


def _walk(value: Any, key: str = "") -> list[tuple[str, Any]]:
    out = [(key, value)]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _walk(v, k)
    elif isinstance(value, list):
        for v in value:
            out += _walk(v, key)
    return out


def check_view(game: Game, viewer: int) -> None:
    view = SeatView(game, viewer).to_json()
    text = json.dumps(view)  # plain JSON
    me = game.seats[viewer]
    # the wall: only its size, never its tiles, anywhere in the view
    assert view["wall"] == game.live
    assert '"wall_layout"' not in text and '"layout"' not in text and '"dice"' not in text
    assert '"bystander_tiles"' not in text
    assert view["hand"] == format_tiles(me.tiles())
    if view["drawn"] is not None:
        assert game.phase is Phase.TURN and game.turn == viewer
    assert all(a["seat"] == viewer for a in view["legal"])
    voids_secret = game.phase in (Phase.EXCHANGE, Phase.DINGQUE)
    assert [e["seat"] for e in view["seats"]] == [0, 1, 2, 3]
    for entry in view["seats"]:
        o = entry["seat"]
        assert entry["concealed"] == sum(game.seats[o].counts)
        if o == viewer or laid_down(game, o):
            assert entry.get("hand") == format_tiles(game.seats[o].tiles()), (viewer, o)
        else:
            assert "hand" not in entry, (viewer, o, entry)
            assert "counts" not in entry and "tiles" not in entry and "drawn" not in entry
            if voids_secret:
                assert entry["void"] is None  # 定缺 picks are secret until all four have picked


def check_events(game: Game, viewer: int) -> None:
    events = events_for(game, viewer)
    own_draws = sum(1 for e in game.events if e["type"] == "draw" and e["seat"] == viewer)
    assert sum(1 for e in events if e["type"] == "draw" and e["seat"] == viewer) == own_draws
    for ev in events:
        typ = ev["type"]
        for key, value in _walk(ev):
            if key in ("wall", "wall_layout", "live"):
                assert isinstance(value, int), ev
            assert key not in ("hand", "hands", "counts"), ev
        seat = ev.get("seat")
        if typ == "draw":
            if seat == viewer:
                assert isinstance(ev["tile"], str), ev  # my own draw: I see the tile
            else:
                assert "tile" not in ev, (viewer, ev)
        elif typ == "deal":
            assert ("tiles" in ev) == (seat == viewer), (viewer, ev)
        elif typ == "exchange_chosen":
            assert "tiles" not in ev
        elif typ == "dingque_chosen":
            assert "suit" not in ev and "void" not in ev
        elif typ == "pass_hu":
            # passing a possible win is known only to the seat that passed
            assert seat == viewer, (viewer, ev)
        elif typ not in PUBLIC_TILE_EVENTS and seat is not None and seat != viewer:
            # exchange / exchange_received: only the giver and the receiver see the tiles
            assert "tile" not in ev and "tiles" not in ev, (viewer, ev)
        elif seat is None:
            assert "tile" not in ev and "tiles" not in ev, ev


# --- playing a hand with checks after every step ---------------------------------------------------------

Choose = Callable[[Game, int, Sequence[Action]], Action]


def bot_chooser(rules_seed: int, names: list[str], escape_rate: float = 0.0, swap_rate: float = 0.0,
                hu_rate: float = 0.85) -> Choose:
    """Seeded bots by seat; with ``escape_rate`` a seat that must act sometimes leaves instead, and
    with ``swap_rate`` a seat on its turn sometimes plays a swap card (换牌卡, docs/rules.md §13) first.
    A plain random bot hardly ever picks a win among a dozen discards, so with ``hu_rate`` a
    possible win is taken that often (the rest of the time the bot chooses, passes included)."""
    bots = [make_bot(names[s], random.Random(rules_seed * 8 + s)) for s in range(4)]
    rng = random.Random(rules_seed)

    def choose(game: Game, seat: int, legal: Sequence[Action]) -> Action:
        if escape_rate and rng.random() < escape_rate and game.can_escape(seat):
            return Action(seat, ActionType.ESCAPE)
        if swap_rate and game.phase is Phase.TURN and rng.random() < swap_rate:
            held = game.seats[seat].tiles()
            give = rng.choice(held)
            want = rng.randrange(27)
            if game.can_swap(seat, give, want) is None:
                return Action(seat, ActionType.SWAP, tile=give, tiles=(want,))
        if hu_rate and rng.random() < hu_rate:
            for a in legal:
                if a.type is ActionType.HU:
                    return a
        return bots[seat].choose(SeatView(game, seat), legal)

    return choose


def play_checked(
    game: Game,
    choose: Choose,
    *,
    views: bool = True,
    event_views: bool = False,
    on_step: Callable[[Game], None] | None = None,
) -> Game:
    """Play ``game`` to its end, checking the invariants after every applied action.

    With ``views``, every seat's view is checked after every step and every seat's events at the
    end (events are only ever appended); ``event_views`` checks the whole of ``events_for`` of
    every seat after every step too (quadratic: kept for fewer hands).
    """

    def check_all() -> None:
        check_tiles_and_ledger(game)
        check_out_seats_idle(game)
        if views:
            for v in range(4):
                check_view(game, v)
                if event_views:
                    check_events(game, v)

    check_all()
    steps = 0
    while not game.over:
        pending = game.pending()
        assert pending, "the hand runs but nobody can act"
        seat = pending[0]
        legal = game.legal_actions(seat)
        action = choose(game, seat, legal)
        s = game.seats[seat]
        assert not s.escaped
        assert not (s.won and not game.rules.blood_river), "a winner acts"
        old_events = len(game.events)
        old_ledger = list(game.ledger)
        game.apply(action)
        assert game.actions[-1] == action
        assert len(game.events) >= old_events
        assert game.ledger[: len(old_ledger)] == old_ledger  # payments are never undone or rewritten
        check_all()
        if on_step is not None:
            on_step(game)
        steps += 1
        assert steps < 2000, "the hand does not end"
    assert game.events[-1]["type"] == "end"
    assert game.events[-1]["deltas"] == game.deltas()
    if views:
        for v in range(4):
            check_events(game, v)
    return game


def check_replay(game: Game) -> None:
    """The record of a finished hand, through JSON text, replays to the same result."""
    rec = json.loads(json.dumps(record_json(game)))
    again, complete = replay(parse_record(rec))
    assert complete
    assert again.over
    assert again.ledger == game.ledger
    assert again.deltas() == game.deltas()
    assert [w.to_json() for w in again.winners] == [w.to_json() for w in game.winners]
    assert again.result_json() == game.result_json()
    assert rec["result"] == json.loads(json.dumps(game.result_json()))


def check_winners(game: Game) -> None:
    counts = Counter(w.seat for w in game.winners)
    if not game.rules.blood_river:
        assert all(c == 1 for c in counts.values()), game.winners
    assert len(counts) <= 3 or game.rules.blood_river
    if game.rules.end_on_first_win:
        assert {w.order for w in game.winners} <= {1}
    orders = [w.order for w in game.winners]
    assert orders == sorted(orders)
    for w in game.winners:
        assert w.score.fan >= 1 and w.score.multiple >= 1
        if game.rules.cap_multiple is not None:
            assert w.score.multiple <= game.rules.cap_multiple


# --- the properties ----------------------------------------------------------------------------------------

BOT_MIXES = (
    ["random"] * 4,
    ["random"] * 4,
    ["random"] * 4,
    ["heuristic", "random", "random", "random"],
    ["heuristic"] * 4,
)


@settings(max_examples=1200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2**32 - 1), rules=rule_mixes(), mix=st.sampled_from(BOT_MIXES),
       escapes=st.sampled_from((0.0, 0.0, 0.0, 0.01)), hu_rate=st.sampled_from((0.0, 0.85, 0.85)))
def test_random_hands_keep_invariants(seed: int, rules: Rules, mix: list[str], escapes: float,
                                      hu_rate: float) -> None:
    game = Game.new(rules, seed=seed)
    play_checked(game, bot_chooser(seed, mix, escapes, hu_rate=hu_rate))
    check_winners(game)
    check_replay(game)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=rule_mixes())
def test_views_and_whole_event_lists_every_step(seed: int, rules: Rules) -> None:
    """The whole of ``events_for`` of every seat, re-read after every step."""
    game = Game.new(rules, seed=seed)
    play_checked(game, bot_chooser(seed, ["random"] * 4, 0.005), event_views=True)
    check_replay(game)


def test_presets_with_every_bot_mix_seeded_loop() -> None:
    """Plain seeded loop: both presets unchanged, each bot mix, 200 hands."""
    for i in range(200):
        rules = Rules.preset(("qq", "chengdu")[i % 2])
        mix = BOT_MIXES[i % len(BOT_MIXES)]
        game = Game.new(rules, seed=10_000 + i)
        play_checked(game, bot_chooser(i, mix), views=i % 4 == 0)
        check_winners(game)
        check_replay(game)


def _snapshot(game: Game) -> Any:
    return json.dumps([
        [SeatView(game, s).to_json() for s in range(4)],
        [events_for(game, s) for s in range(4)],
        game.result_json(),
        [a.to_json() for a in game.actions],
        game.pending(),
        game.live,
        str(game.phase),
    ])


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=rule_mixes(), cut=st.floats(0.0, 1.0))
def test_copy_is_independent_and_replays_the_same_choices(seed: int, rules: Rules, cut: float) -> None:
    # play the hand once to know its length, then again up to a cut point
    full = Game.new(rules, seed=seed)
    play_checked(full, bot_chooser(seed, ["heuristic", "random", "heuristic", "random"]), views=False)
    k = int(cut * len(full.actions))
    game = Game.new(rules, seed=seed)
    for a in full.actions[:k]:
        game.apply(a)
    before = _snapshot(game)
    # a copy played on with other choices leaves the original untouched
    other = game.copy()
    play_checked(other, bot_chooser(seed + 1, ["random"] * 4, 0.01), views=False)
    assert other.over
    assert _snapshot(game) == before
    # the original played on with the recorded choices; a copy taken now, fed the same choices
    twin = game.copy()
    for a in full.actions[k:]:
        game.apply(a)
    assert _snapshot(twin) == before  # the original moving on leaves the copy untouched
    for a in full.actions[k:]:
        twin.apply(a)
    assert game.over and twin.over
    assert twin.result_json() == game.result_json() == full.result_json()
    assert record_json(twin) == record_json(game)
    assert twin.tile_total() == 108


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=rule_mixes(), mix=st.sampled_from(BOT_MIXES))
def test_same_seed_same_hand(seed: int, rules: Rules, mix: list[str]) -> None:
    first = Game.new(rules, seed=seed)
    second = Game.new(rules, seed=seed)
    assert _snapshot(first) == _snapshot(second)
    play_checked(first, bot_chooser(seed, mix), views=False)
    play_checked(second, bot_chooser(seed, mix), views=False)
    assert record_json(first) == record_json(second)
    assert first.events == second.events
    other = Game.new(rules, seed=seed + 1)
    assert other.deal != first.deal  # and the seed matters


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=rule_mixes(), bystanders=st.integers(0, 4))
def test_room_hands_with_bystanders_and_swap_cards(seed: int, rules: Rules, bystanders: int) -> None:
    """叫马 tiles leave the tail and item-card swaps trade with the live wall: still 108 tiles,
    still no leak (a swap is the swapper's secret), and the record still replays."""
    rng = random.Random(seed)
    dealer = rng.randrange(4)
    direction = rng.choice((1, 2, 3)) if rules.exchange_three == "random" else None
    game = Game(rules, random_deal(rng, dealer), dealer, exchange_direction=direction, bystanders=bystanders)
    assert len(game.bystander_tiles) == bystanders
    assert game.live == 55 - bystanders
    play_checked(game, bot_chooser(seed, ["random"] * 4, 0.002, swap_rate=0.05))
    check_winners(game)
    check_replay(game)


def test_seeded_loop_of_rule_mixes_without_views() -> None:
    """A cheap plain loop over more hands and rule mixes: tiles, ledger, idle winners, replay."""
    rng = random.Random(2024)
    for i in range(400):
        rules = rules_from_rng(rng)
        game = Game.new(rules, seed=rng.getrandbits(32))
        play_checked(game, bot_chooser(i, ["random"] * 4, 0.002), views=False)
        check_winners(game)
        check_replay(game)


def test_blood_river_settles_the_exhausted_wall_among_seats_that_never_won() -> None:
    """docs/decisions.md: under blood_river a winner stays in the hand, but 花猪, 查大叫 and 退税
    concern only the seats that never won (a winner may still be refunded kong money it paid)."""
    import random as _random

    from xuezhan.bots import make_bot
    from xuezhan.engine import Game
    from xuezhan.rules import Rules
    from xuezhan.selfplay import play_hand

    rules = Rules.preset("qq").with_options({"blood_river": True})
    master = _random.Random(11)
    seen_settlement = seen_winner = 0
    for _ in range(150):
        game = Game.new(rules, rng=_random.Random(master.getrandbits(64)))
        bots = [make_bot("heuristic" if s % 2 else "random", _random.Random(master.getrandbits(64))) for s in range(4)]
        play_hand(game, bots)
        winners = {w.seat for w in game.winners}
        seen_winner += bool(winners)
        for e in game.ledger:
            if e.reason in ("hua_zhu", "cha_jiao"):
                seen_settlement += 1
                assert e.from_seat not in winners and e.to_seat not in winners, e
            if e.reason == "tui_shui":
                assert e.from_seat not in winners, e
        assert game.live == 0 or len([s for s in range(4) if game.seats[s].escaped]) > 0
    assert seen_winner and seen_settlement  # the sample exercises both
