"""The table just after a discard (views.after_discard): what non-claimants and spectators are
shown during the discard pause, never more than the discard itself."""

from __future__ import annotations

import random

import pytest

from xuezhan.engine.actions import ActionType
from xuezhan.engine.game import Game, Phase
from xuezhan.engine.views import after_bugang, after_discard, table_views, visible_events, window_hidden
from xuezhan.rules import Rules
from xuezhan.tiles import format_tiles, tile_name

SEATS = (0, 1, 2, 3, None)


def rules_of(preset: str) -> Rules:
    """A preset by name; ``"blood"``: qq's rules with 血流成河 (winners stay in and claim on)."""
    if preset == "blood":
        return Rules.from_mapping({"preset": "qq", "options": {"blood_river": True}})
    return Rules.preset(preset)


def discards_of(preset: str, seed: int) -> list[tuple[Game, int, int]]:
    """Every discard of a random hand: the game just before it (a copy), the seat and the tile."""
    rng = random.Random(seed)
    game = Game.new(rules_of(preset), seed=seed)
    out: list[tuple[Game, int, int]] = []
    while not game.over:
        seat = game.pending()[0]
        legal = game.legal_actions(seat)
        action = rng.choice(legal)
        if action.type is ActionType.DISCARD and action.tile is not None:
            out.append((game.copy(), seat, action.tile))
        game.apply(action)
    return out


@pytest.mark.parametrize(("preset", "seed"), [("qq", 1), ("qq", 2), ("chengdu", 3), ("blood", 4)])
def test_the_pause_shows_the_discard_and_nothing_after_it(preset: str, seed: int) -> None:
    claimable = 0
    for before, seat, tile in discards_of(preset, seed):
        untouched = table_views(before, SEATS)
        shown = after_discard(before, seat, tile)
        assert table_views(before, SEATS) == untouched  # the game itself is left as it was
        real = before.copy()
        real.apply(next(a for a in real.legal_actions(seat) if a.type is ActionType.DISCARD and a.tile == tile))
        claimable += real.phase is Phase.CLAIM
        if real.phase is Phase.CLAIM:  # a window already open (after a restart) is hidden the same way
            hidden = window_hidden(real)
            assert table_views(hidden, SEATS) == table_views(shown, SEATS)
            assert hidden.state.events == shown.state.events
        n = len(before.state.events)
        # the events stop at the discard, whatever followed it in the real game (a draw, a window)
        assert shown.state.events == real.state.events[: n + 1]
        assert shown.state.events[-1] == {"type": "discard", "seat": seat, "tile": tile}
        for viewer in SEATS:
            assert visible_events(shown, viewer) == visible_events(real, viewer)[: len(visible_events(shown, viewer))]
        views = table_views(shown, SEATS)
        for viewer, view in views.items():
            assert view["phase"] == "turn" and view["turn"] == seat
            assert view["offered"] is None and view["drawn"] is None
            assert view["legal"] == [] and view["discard_waits"] == {}
            assert view["seats"][seat]["river"][-1] == tile_name(tile)
            assert view["wall"] == untouched[viewer]["wall"]  # nothing drawn
            if viewer is not None:  # the discarder's hand as after the discard, the others' as before it
                expected = table_views(real, (viewer,))[viewer] if viewer == seat else untouched[viewer]
                assert view["hand"] == expected["hand"]
    assert claimable  # the pause hides real windows too


def test_the_waits_in_the_pause_count_the_discard_as_seen() -> None:
    found = 0
    for seed in range(40):
        for before, seat, tile in discards_of("qq", seed):
            name = tile_name(tile)
            shown = table_views(after_discard(before, seat, tile), SEATS)
            earlier = table_views(before, SEATS)
            for other in range(4):
                if other == seat:
                    continue
                left_before = {w["tile"]: w["left"] for w in earlier[other]["waits"]}
                left_after = {w["tile"]: w["left"] for w in shown[other]["waits"]}
                assert left_after.keys() == left_before.keys()  # the seat's hand did not change
                for t, left in left_after.items():
                    assert left == left_before[t] - (t == name and left_before[t] > 0)
                    found += t == name and left_before[t] > 0
        if found >= 3:
            break
    assert found >= 3


def bugangs_of(seed: int) -> list[tuple[Game, int, int]]:
    """Every added kong (补杠) of a random hand that likes kongs: the game just before it, the seat, the tile."""
    rng = random.Random(seed)
    game = Game.new(rules_of("qq"), seed=seed)
    out: list[tuple[Game, int, int]] = []
    while not game.over:
        seat = game.pending()[0]
        legal = game.legal_actions(seat)
        kongs = [a for a in legal if a.type in (ActionType.GANG, ActionType.PENG)]
        action = rng.choice(kongs) if kongs and rng.random() < 0.9 else rng.choice(legal)
        if (action.type is ActionType.GANG and game.phase is Phase.TURN and action.tile is not None
                and game.seat_state(seat).counts[action.tile] != 4):
            out.append((game.copy(), seat, action.tile))
        game.apply(action)
    return out


def test_the_pause_after_an_added_kong_shows_the_declaration_and_nothing_after_it() -> None:
    seen = robbable = 0
    for seed in range(200):
        for before, seat, tile in bugangs_of(seed):
            shown = after_bugang(before, seat, tile)
            real = before.copy()
            real.apply(next(a for a in real.legal_actions(seat) if a.type is ActionType.GANG and a.tile == tile))
            robbable += real.phase is Phase.ROB
            if real.phase is Phase.ROB:
                assert table_views(window_hidden(real), SEATS) == table_views(shown, SEATS)
            n = len(before.state.events)
            assert shown.state.events == real.state.events[: n + 1]
            assert shown.state.events[-1] == {"type": "bugang_declared", "seat": seat, "tile": tile}
            for viewer, view in table_views(shown, SEATS).items():
                assert view["phase"] == "turn" and view["turn"] == seat
                assert view["offered"] is None and view["drawn"] is None and view["legal"] == []
                if viewer == seat:  # the tile has left the hand, and nothing came in
                    left = before.state.seats[seat].tiles()
                    left.remove(tile)
                    assert view["hand"] == format_tiles(left)
            seen += 1
        if seen >= 20 and robbable:
            break
    assert seen >= 20 and robbable
