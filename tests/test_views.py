"""What each seat may see: a concealed kong (暗杠) lies face down until the hand is laid down."""

from __future__ import annotations

from test_engine_rules import build

from xuezhan.engine import ActionType, Game, SeatView, events_for
from xuezhan.engine.actions import Action
from xuezhan.engine.views import visible_events
from xuezhan.records import parse_record, replay
from xuezhan.tiles import parse_tile

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
