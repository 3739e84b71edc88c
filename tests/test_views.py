"""What each seat may see: a concealed kong (暗杠) lies face down until the hand is laid down."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from test_engine_rules import build

from xuezhan.bots import make_bot
from xuezhan.engine import ActionType, Game, SeatView, events_for
from xuezhan.engine.actions import Action
from xuezhan.engine.views import event_json, seat_view_json, table_views, visible_events
from xuezhan.records import parse_record, replay
from xuezhan.rules import Rules
from xuezhan.server.outbound import marked_view, view_texts
from xuezhan.tiles import format_tiles, parse_tile, tile_name

FIVE_P = parse_tile("5p")


def _angang_game() -> Game:
    # seat 0 (dealer) holds four 5p and kongs them on its first turn; the others hold junk
    record = build(
        ["5555p123456m1178s", "1357m2468p13579s", "24689m1379p2588s", "3799m1468p34679s"],
        voids="spss",
        autoplay=False,
    )
    game, _ = replay(parse_record(record))
    game.apply(Action(0, ActionType.GANG, tile=FIVE_P))
    return game


def test_a_concealed_kong_is_face_down_to_the_other_seats() -> None:
    game = _angang_game()
    assert SeatView(game, 0).to_json()["seats"][0]["melds"] == [{"type": "angang", "tile": "5p"}]
    for seat in (1, 2, 3):
        view = SeatView(game, seat)
        assert view.to_json()["seats"][0]["melds"] == [{"type": "angang", "tile": None}]
        assert view.melds(0) == []
        assert view.hidden_kongs(0) == 1
        assert view.visible_counts()[FIVE_P] == 0
        assert [e for e in events_for(game, seat) if e["type"] == "angang"] == [{"type": "angang", "seat": 0}]
    mine = [e for e in events_for(game, 0) if e["type"] == "angang"]
    assert mine == [{"type": "angang", "seat": 0, "tile": "5p"}]


def test_the_kong_is_shown_when_the_hand_ends() -> None:
    game = _angang_game()
    while not game.over:
        seat = game.pending()[0]
        legal = game.legal_actions(seat)
        passes = [a for a in legal if a.type is ActionType.PASS]
        game.apply(passes[0] if passes else legal[-1])
    assert SeatView(game, 2).to_json()["seats"][0]["melds"] == [{"type": "angang", "tile": "5p"}]
    assert SeatView(game, 2).visible_counts()[FIVE_P] == 4


def test_the_terminal_shows_another_seats_concealed_kong_face_down() -> None:
    from xuezhan.tui.panels import seat_panel
    from xuezhan.tui.words import event_words

    game = _angang_game()
    seen_by_1 = seat_panel(game, 0, 1).body.plain
    assert "[▮▮▮▮]暗" in seen_by_1 and "5筒" not in seen_by_1
    assert "5筒" in seat_panel(game, 0, 0).body.plain
    ev = next(e for e in visible_events(game, 1) if e["type"] == "angang")
    line = event_words(ev, 1)
    assert line is not None and "face down" in line and "5" not in line


# --- the one module that decides visibility ---------------------------------------------------------------

VIEWERS: tuple[int | None, ...] = (None, 0, 1, 2, 3)


def _random_games(seeds: range, rules: str = "qq") -> Iterator[Game]:
    """Hands of heuristic bots, yielded after every action; a win on a discard is passed up half the time."""
    for seed in seeds:
        game = Game.new(Rules.preset(rules), seed=seed)
        rng = random.Random(seed)
        bots = [make_bot("heuristic", random.Random(seed * 4 + i)) for i in range(4)]
        while not game.over:
            seat = game.pending()[0]
            legal = game.legal_actions(seat)
            wins = [a for a in legal if a.type is ActionType.HU]
            passes = [a for a in legal if a.type is ActionType.PASS]
            if wins and passes and rng.random() < 0.5:
                game.apply(passes[0])
            else:
                game.apply(bots[seat].choose(SeatView(game, seat), legal))
            yield game


def _check_view(game: Game, viewer: int | None, view: dict[str, Any]) -> None:
    assert view["seat"] == viewer
    if viewer is None:
        assert view["hand"] is None and view["drawn"] is None and view["legal"] == []
    else:
        assert view["hand"] == format_tiles(game.seat_state(viewer).hand)
    for i, entry in enumerate(view["seats"]):
        st = game.seat_state(i)
        if i == viewer or st.revealed:
            assert entry["hand"] == format_tiles(st.hand)
            assert [m["tile"] for m in entry["melds"]] == [tile_name(m.tile) for m in st.melds]
        else:
            assert "hand" not in entry, (viewer, i)
            for m, meld in zip(entry["melds"], st.melds, strict=True):
                assert m["tile"] is None if meld.kind == "angang" else m["tile"] == tile_name(meld.tile)
        if i != viewer and game.phase in ("exchange", "dingque"):
            assert entry["void"] is None
    assert "wall" not in json.dumps(view["seats"])  # nothing of the live wall's order


def test_no_viewer_gets_another_seats_concealed_tiles_from_the_views_module() -> None:
    passes = 0
    for game in _random_games(range(12)):
        views = table_views(game, VIEWERS)
        for viewer in VIEWERS:
            assert views[viewer] == seat_view_json(game, viewer)
            if viewer is not None:
                assert views[viewer] == SeatView(game, viewer).to_json()
            _check_view(game, viewer, views[viewer])
            seen = visible_events(game, viewer)
            whole = [ev for ev, owner in zip(game.events, game.event_owners, strict=True)
                     if owner is None or owner == viewer or ev["type"] != "pass_hu"]
            assert len(seen) == len(whole)
            for ev, full in zip(seen, whole, strict=True):
                assert ev["type"] == full["type"]
                if ev != full:  # another seat's private event: no tile at all
                    assert "tile" not in ev and "tiles" not in ev
                    assert ev == {k: v for k, v in full.items() if k not in ("tile", "tiles")}
            assert [e for e in seen if e["type"] == "pass_hu" and e["seat"] != viewer] == []
            assert events_for(game, viewer) == [event_json(e) for e in seen]
        passes += sum(1 for e in game.events if e["type"] == "pass_hu") if game.over else 0
    assert passes > 0  # a passed win happened, and only its seat was told


def test_events_from_an_index_are_the_tail_of_all_the_seat_sees() -> None:
    for game in _random_games(range(3)):
        if not game.over:
            continue
        for viewer in VIEWERS:
            everything = events_for(game, viewer)
            for start in range(0, game.event_count + 1, 7):
                tail = events_for(game, viewer, start)
                assert everything[len(everything) - len(tail):] == tail
                assert len(everything) - len(tail) == len(visible_events(game, viewer)) - len(
                    visible_events(game, viewer, start))


def test_a_concealed_kong_is_face_down_to_each_other_seat_and_a_spectator() -> None:
    game = _angang_game()
    views = table_views(game, VIEWERS)
    assert views[0]["seats"][0]["melds"] == [{"type": "angang", "tile": "5p"}]
    for viewer in (None, 1, 2, 3):
        assert views[viewer]["seats"][0]["melds"] == [{"type": "angang", "tile": None}]
        assert [e for e in visible_events(game, viewer) if e["type"] == "angang"] == [{"type": "angang", "seat": 0}]
        assert "5p" not in json.dumps(views[viewer]["seats"][0])


def test_the_views_encoded_together_are_each_seats_view_alone() -> None:
    """The table encodes the entries its views share once and splices them: each text must read
    back as the view built for that seat alone, rivers marked."""
    steps = 0
    for game in _random_games(range(4)):
        texts = view_texts(table_views(game, VIEWERS))
        assert set(texts) == set(VIEWERS)
        for viewer in VIEWERS:
            assert json.loads(texts[viewer]) == marked_view(seat_view_json(game, viewer))
        steps += 1
    assert steps > 0
