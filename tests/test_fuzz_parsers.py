"""Fuzz targets for everything that reads outside input: tile and hand strings, rules (mappings
and TOML files), game records, and the websocket protocol down to the engine.

The property is the same everywhere: the input is read, or refused with an
:class:`~xuezhan.errors.XuezhanError` whose code the vocabulary names; nothing else is raised,
and a refusal changes nothing (the input, the game).
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzzing import (
    BASE_RECORDS,
    FUZZ,
    assert_clear_error,
    bad_literals,
    json_values,
    odd_text,
    rule_mappings,
    scalars,
    tile_text,
    toml_text,
    with_bad_text,
)
from hypothesis import given
from hypothesis import strategies as st

from xuezhan.bots.outside import BotFault, read_answer
from xuezhan.cli.games import load_hand
from xuezhan.engine.actions import ActionType
from xuezhan.engine.game import Game
from xuezhan.errors import IllegalActionError, XuezhanError
from xuezhan.match.items import ItemKind
from xuezhan.records import load_record, parse_record, record_json, replay
from xuezhan.rules import Rules
from xuezhan.scoring import Meld, MeldKind, NoWin, Score, WinContext, score_win
from xuezhan.server.conn import dumps
from xuezhan.server.items import parse_item
from xuezhan.server.protocol import CLIENT_TYPES, ClientMessage, parse_action, parse_client_message
from xuezhan.tiles import format_tiles, parse_tile, parse_tiles, suit_index

# --- tiles and hands ----------------------------------------------------------------------------------


@FUZZ
@given(text=tile_text)
def test_fuzz_tile_strings(text: str) -> None:
    try:
        tiles = parse_tiles(text)
    except XuezhanError as exc:
        assert_clear_error(exc)
    else:
        assert tiles and all(0 <= t < 27 for t in tiles)
        assert sorted(parse_tiles(format_tiles(tiles))) == sorted(tiles)
    for read in (parse_tile, suit_index):
        try:
            read(text)
        except XuezhanError as exc:
            assert_clear_error(exc)


contexts = st.builds(WinContext, self_drawn=st.booleans(), after_kong=st.booleans(), robbing_kong=st.booleans(),
                     last_tile=st.booleans(), tian_hu=st.booleans(), di_hu=st.booleans(), last_copy=st.booleans(),
                     paid_as_discard=st.booleans())
# Hands near complete ones (so that scoring is reached) and free ones.
hand_texts = st.one_of(
    tile_text,
    st.lists(st.sampled_from(["123m", "456m", "789m", "111p", "55p", "99s", "234s", "5m", "7p", "1s"]),
             min_size=1, max_size=7).map("".join),
)


@FUZZ
@given(hand=hand_texts, win=tile_text, peng=st.lists(tile_text, max_size=4), gang=st.lists(tile_text, max_size=2),
       angang=st.lists(tile_text, max_size=2), ctx=contexts, void=st.sampled_from([None, 0, 1, 2]),
       preset=st.sampled_from(["qq", "chengdu"]))
def test_fuzz_hands_to_score(hand: str, win: str, peng: list[str], gang: list[str], angang: list[str],
                             ctx: WinContext, void: int | None, preset: str) -> None:
    """The path of ``xuezhan score``: hand and meld strings, then the scorer with its checks."""
    try:
        tiles = parse_tiles(hand)
        tile = parse_tile(win)
        melds = ([Meld(MeldKind.PENG, parse_tile(t)) for t in peng] + [Meld(MeldKind.GANG, parse_tile(t)) for t in gang]
                 + [Meld(MeldKind.ANGANG, parse_tile(t)) for t in angang])
        result = score_win(tiles, melds, tile, ctx, Rules.preset(preset), void)
    except XuezhanError as exc:
        assert_clear_error(exc)
        return
    assert isinstance(result, Score | NoWin)
    if isinstance(result, Score):
        assert result.fan >= 1 and result.multiple >= 1 and result.points >= result.hand_points > 0


# --- rules ----------------------------------------------------------------------------------------------


@FUZZ
@given(mapping=rule_mappings)
def test_fuzz_rules_mappings(mapping: dict[str, Any]) -> None:
    before = copy.deepcopy(mapping)
    try:
        rules = Rules.from_mapping(mapping)
    except XuezhanError as exc:
        assert_clear_error(exc)
    else:
        assert Rules.from_mapping(rules.to_mapping()) == rules
    assert mapping == before


@st.composite
def bad_toml(draw: st.DrawFn) -> str:
    """A rules file with bad text in a key or a value: a number past 4,300 digits (decimal, or
    hexadecimal, which Python reads whatever its length), a lone surrogate escape, odd text."""
    key = draw(st.sampled_from(["base_score", "cap_fan", "preset", '"\\ud800"', '"k\\udfff"', "x"]))
    value = draw(st.one_of(
        bad_literals(),
        st.integers(4290, 4400).map(lambda n: "1" * n),
        st.integers(1, 6000).map(lambda n: "0x" + "f" * n),
        st.integers(0xD800, 0xDFFF).map(lambda c: f'"\\u{c:04x}"'),
        odd_text.map(lambda t: json.dumps(t, ensure_ascii=False)),
    ))
    table = draw(st.sampled_from(["", "[fan]\n", '["\\udc80"]\n']))
    return f"{table}{key} = {value}\n"


@FUZZ
@given(mapping=rule_mappings, raw=st.one_of(st.none(), st.text(max_size=80), st.binary(max_size=40), bad_toml()))
def test_fuzz_rules_files(mapping: dict[str, Any], raw: str | bytes | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "house.toml"
        if raw is None:
            path.write_text(toml_text(mapping), encoding="utf-8")
        elif isinstance(raw, bytes):
            path.write_bytes(raw)
        else:
            path.write_text(raw, encoding="utf-8", errors="surrogatepass")
        try:
            rules = Rules.load(path)
        except XuezhanError as exc:
            assert_clear_error(exc)
        else:
            assert Rules.from_mapping(rules.to_mapping()) == rules


# --- records ----------------------------------------------------------------------------------------------

ACTION_FIELDS = ["seat", "type", "tile", "suit", "tiles", "want", "x"]
action_values = st.one_of(st.integers(-1, 5), st.sampled_from([str(t) for t in ActionType]), tile_text, scalars,
                          st.sampled_from(["m", "p", "s", "5m", "123m"]))
RECORD_KEYS = ["rules", "dealer", "hands", "wall", "dice", "wall_layout", "actions", "autoplay",
               "exchange_direction", "bystanders", "result", "seed", "match", "extra"]


@st.composite
def mutated_records(draw: st.DrawFn) -> Any:
    """A played record with a few changes: a field replaced, dropped or added; an action changed,
    dropped, duplicated or moved; a tile string rewritten. Sometimes not a record at all."""
    if draw(st.integers(0, 19)) == 0:
        return draw(json_values)
    rec: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(BASE_RECORDS)))
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["field", "drop", "action", "action_drop", "action_dup", "action_move", "tiles"]))
        actions = rec.get("actions")
        if op == "field":
            rec[draw(st.sampled_from(RECORD_KEYS))] = draw(json_values)
        elif op == "drop" and rec:
            rec.pop(draw(st.sampled_from(sorted(rec))))
        elif op == "tiles":
            key = draw(st.sampled_from(["wall", "wall_layout", "hands"]))
            if isinstance(rec.get(key), str):
                rec[key] = draw(tile_text)
            elif isinstance(rec.get(key), list) and rec[key]:
                rec[key][draw(st.integers(0, len(rec[key]) - 1))] = draw(tile_text)
        elif isinstance(actions, list) and actions:
            i = draw(st.integers(0, len(actions) - 1))
            if op == "action" and isinstance(actions[i], dict):
                actions[i][draw(st.sampled_from(ACTION_FIELDS))] = draw(action_values)
            elif op == "action_drop":
                actions.pop(i)
            elif op == "action_dup":
                actions.insert(i, copy.deepcopy(actions[i]))
            elif op == "action_move":
                actions.insert(draw(st.integers(0, len(actions) - 1)), actions.pop(i))
    return rec


@FUZZ
@given(data=mutated_records())
def test_fuzz_records(data: Any) -> None:
    before = copy.deepcopy(data)
    try:
        record = parse_record(data)
        game, complete = replay(record)
    except XuezhanError as exc:
        assert_clear_error(exc)
    else:
        assert complete is game.over
        assert sum(game.deltas()) == 0 and game.tile_total() == 108
    assert data == before


NOT_UTF8 = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"]
"""Bytes no UTF-8 reader takes: a stray byte, a cut sequence, an encoded surrogate, an overlong form."""


@st.composite
def record_files(draw: st.DrawFn) -> bytes:
    """A record file's bytes: a (mutated) record with bad text put in, sometimes bytes that are not
    UTF-8 put in too, sometimes several lines (JSON lines)."""
    texts = [draw(with_bad_text(draw(mutated_records()))) for _ in range(draw(st.integers(1, 2)))]
    data = "\n".join(texts).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 3)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from(NOT_UTF8)) + data[at:]
    return data


@FUZZ
@given(data=record_files())
def test_fuzz_record_files(data: bytes) -> None:
    """Record files of bad text (surrogates, numbers past 4,300 digits, bytes that are not UTF-8):
    read by the library and by ``xuezhan replay``'s reader, or refused with a clear error."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rec.json"
        path.write_bytes(data)
        for hand in (0, None, 2):  # the library's reader, then the command's (a whole file, a line of one)
            try:
                record = load_record(path) if hand == 0 else load_hand(str(path), hand)
                game, complete = replay(record)
            except XuezhanError as exc:
                assert_clear_error(exc)
                exc.message.encode("utf-8", "backslashreplace")
            else:
                assert complete is game.over


answer_texts = st.one_of(
    st.text(max_size=40),
    odd_text,
    st.sampled_from([{"action": {"seat": 0, "type": "discard", "tile": "5m"}}, {"action": {"seat": 1, "type": "pass"}},
                     {"action": {"seat": 2, "type": "dingque", "suit": "m"}}]).flatmap(with_bad_text),
    st.builds(lambda v: json.dumps({"action": v}), json_values),
)


@FUZZ
@given(line=answer_texts)
def test_fuzz_bot_answers(line: str) -> None:
    """An outside bot's answer line: an action, or a fault of the bot (nothing else is raised)."""
    try:
        action = read_answer(line)
    except BotFault as fault:
        str(fault).encode("utf-8")  # the log line it makes can be written
    else:
        assert 0 <= action.seat <= 3


# --- the websocket protocol, down to the engine ------------------------------------------------------------

TILE_NAMES = [f"{r}{x}" for x in "mps" for r in range(1, 10)]
# Mostly the fields an action takes, with sensible values; sometimes others.
action_objects = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from([str(t) for t in ActionType])},
        optional={"tile": st.one_of(st.sampled_from(TILE_NAMES), action_values),
                  "suit": st.one_of(st.sampled_from(["m", "p", "s"]), action_values),
                  "tiles": st.one_of(st.lists(st.sampled_from(TILE_NAMES), min_size=3, max_size=3).map("".join),
                                     action_values)},
    ),
    st.dictionaries(st.sampled_from(["type", "tile", "suit", "tiles", "seat", "want", "x"]), action_values,
                    max_size=4),
)
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "action": st.one_of(action_objects, action_objects, json_values),
    "version": st.one_of(st.integers(-2, 2 ** 70), st.integers(0, 99), scalars),
    "seat": st.one_of(st.integers(-1, 5), st.integers(0, 3), scalars),
    "on": st.one_of(st.booleans(), scalars),
    "accept_risk": st.one_of(st.booleans(), scalars),
    "kind": st.one_of(st.sampled_from([str(k) for k in ItemKind]), st.text(max_size=12), scalars),
    "tile": st.one_of(st.sampled_from(["5m", "1p", "9s", "0m", "5z", ""]), st.text(max_size=4), scalars),
    "wanted": st.one_of(st.sampled_from(["5m", "1p", "9s", "0m", "5z", ""]), st.text(max_size=4), scalars),
    "suit": st.one_of(st.sampled_from(["m", "p", "s", "z", ""]), st.text(max_size=2), scalars),
}


often = st.sampled_from([True] * 9 + [False])


@st.composite
def message_objects(draw: st.DrawFn) -> Any:
    """A message of a known type with its own fields (sometimes one missing or one more), or any JSON."""
    if not draw(often):
        return draw(json_values)
    kind = draw(st.sampled_from(sorted(CLIENT_TYPES)))
    msg: dict[str, Any] = {"type": kind}
    for name in sorted(CLIENT_TYPES[kind] - {"type"}):
        if draw(often):
            msg[name] = draw(FIELD_VALUES[name])
    if not draw(often):
        msg[draw(st.text(max_size=6))] = draw(scalars)
    return msg


message_texts = st.one_of(message_objects().map(json.dumps), message_objects().map(json.dumps), st.text(max_size=60),
                          st.just("[" * 5000), st.just('{"type": "ping"' + " " * 300 + "}"),
                          message_objects().flatmap(with_bad_text), odd_text)

# Games at different points of a hand (exchange, dingque, turns, claim windows, the end).
GAMES = []
for _n, _base in enumerate(BASE_RECORDS):
    _game, _ = replay(parse_record({**_base, "actions": _base["actions"][: 3 + 11 * _n]}))
    GAMES.append(_game)


def _snapshot(game: Game) -> Any:
    return (json.dumps(record_json(game), sort_keys=True), [game.legal_actions(s) for s in range(4)], game.pending())


@FUZZ
@given(text=message_texts, max_bytes=st.sampled_from([64, 256, 4096]), seat=st.integers(0, 3),
       which=st.integers(0, len(GAMES) - 1))
def test_fuzz_client_messages(text: str, max_bytes: int, seat: int, which: int) -> None:
    try:
        message = parse_client_message(text, max_bytes)
    except XuezhanError as exc:
        assert_clear_error(exc)
        dumps({"type": "error", "code": exc.code, "message": exc.message}).encode("utf-8")  # can be sent
        return
    json.dumps(message.data, ensure_ascii=False).encode("utf-8")  # nothing read holds a lone surrogate
    assert isinstance(message, ClientMessage) and message.type in CLIENT_TYPES
    if message.type == "item":  # read further by the table (xuezhan.server.items)
        try:
            request = parse_item(message.data)
        except XuezhanError as exc:
            assert_clear_error(exc)
        else:
            assert request.kind in ItemKind and request.suit in (None, 0, 1, 2)
        return
    if message.type != "action":
        return
    try:
        action = parse_action(message.data["action"], seat)
    except XuezhanError as exc:
        assert_clear_error(exc)
        return
    assert action.seat == seat
    game = GAMES[which].copy()
    before = _snapshot(game)
    try:
        game.apply(action)
    except IllegalActionError as exc:
        assert_clear_error(exc)
        assert _snapshot(game) == before
    else:
        assert game.action_count == GAMES[which].action_count + 1


@pytest.mark.parametrize("spec", ["/dev/zero", "/dev/null", "/", "/proc/self/fd/0"])
def test_rules_files_that_are_not_files(spec: str) -> None:
    # reading a device or a pipe as a rules file would never end
    try:
        Rules.load(spec)
    except XuezhanError as exc:
        assert assert_clear_error(exc) == "rules_file_unreadable"
    else:
        raise AssertionError(f"{spec} read as a rules file")
