"""Outside bots over the JSON-lines bot protocol: the same results as in process, misbehaving
programs counted and replaced, our own bots as outside programs (``xuezhan bot stdio``)."""

from __future__ import annotations

import io
import json
import queue
import random
import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from xuezhan.bots import DEFAULT_MAX_LINE, make_bot
from xuezhan.bots.outside import BotFault, OutsideBot, _read_lines
from xuezhan.bots.protocol import RemoteView, capped_lines, request_message, rules_json, serve, start_message
from xuezhan.cli import cli, main
from xuezhan.engine.actions import Action
from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView
from xuezhan.errors import XuezhanError
from xuezhan.match import hand_record
from xuezhan.rules import Rules
from xuezhan.selfplay import simulate

PY = shlex.quote(sys.executable)
STDIO_HEURISTIC = f"cmd:{PY} -m xuezhan bot stdio --bot heuristic"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "bots" / "minimal_bot.py"


def _play(names: list[str], games: int, **kw: Any) -> tuple[list[list[dict[str, Any]]], dict[str, Any]]:
    actions: list[list[dict[str, Any]]] = []
    stats = simulate(games, names, seed=5, on_hand=lambda h: actions.append(hand_record(h)["actions"]), **kw)
    return actions, stats.to_json()


def test_a_cmd_heuristic_plays_exactly_as_the_heuristic_in_process() -> None:
    inside, s1 = _play(["heuristic", "random", "heuristic", "heuristic"], 4)
    outside, s2 = _play([STDIO_HEURISTIC, "random", STDIO_HEURISTIC, "heuristic"], 4, rules=None)
    assert outside == inside
    def numbers(summary: dict[str, Any]) -> list[tuple[float, float, float]]:
        return [(s["win_rate"], s["avg_points"], s["avg_fan"]) for s in summary["by_seat"]]

    assert numbers(s2) == numbers(s1)
    assert s2["bot_faults"] == {STDIO_HEURISTIC: 0, "random": 0, "heuristic": 0}


BAD_BOTS = {
    "garbage": "print('hello, table', flush=True)",
    "illegal": "print(json.dumps({'action': {'seat': m['view']['seat'], 'type': 'gang', 'tile': '9s'}}), flush=True)",
    "silent": "pass",
    "exits": "sys.exit(3)",
    # past the line cap (1 MiB): never a newline, or an answer padded to 2 MiB; and bytes that are not UTF-8
    "endless": "while True: sys.stdout.write('x' * 65536)",
    "huge_line": "print(json.dumps({'action': m['legal'][0], 'pad': 'x' * (2 << 20)}), flush=True)",
    "not_utf8": "sys.stdout.buffer.write(bytes([0x7b, 0xff, 0x7d, 0x0a])); sys.stdout.flush()",
}


def _bad_bot(tmp_path: Path, kind: str) -> str:
    script = tmp_path / f"{kind}.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'request':\n"
        f"        {BAD_BOTS[kind]}\n",
        encoding="utf-8",
    )
    return f"cmd:{PY} {shlex.quote(str(script))}"


@pytest.mark.parametrize("kind", sorted(BAD_BOTS))
def test_a_misbehaving_bot_is_counted_and_replaced_by_the_heuristic_and_the_hands_finish(
        tmp_path: Path, kind: str) -> None:
    bad = _bad_bot(tmp_path, kind)
    reference, _ = _play(["heuristic"] * 4, 3)
    actions, summary = _play([bad, "heuristic", "heuristic", "heuristic"], 3, bot_timeout=0.5)
    assert summary["hands"] == 3
    assert summary["bot_faults"] == {bad: 3, "heuristic": 0}  # one fault a hand: restarted at each hand
    assert actions == reference  # the heuristic took every decision the bot did not answer


def test_the_example_bot_plays_without_faults() -> None:
    name = f"cmd:{PY} {shlex.quote(str(EXAMPLE))}"
    actions, summary = _play([name, "heuristic", "heuristic", "heuristic"], 3)
    assert summary["bot_faults"][name] == 0
    assert all(any(a["seat"] == 0 and a["type"] == "discard" for a in hand) for hand in actions)


def test_the_bot_is_sent_the_start_the_requests_and_the_end_of_each_hand(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    script = tmp_path / "logger.py"
    script.write_text(
        "import json, sys\n"
        f"out = open({str(log)!r}, 'a')\n"
        "for line in sys.stdin:\n"
        "    out.write(line); out.flush()\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'request':\n"
        "        print(json.dumps({'action': m['legal'][-1]}), flush=True)\n",
        encoding="utf-8",
    )
    name = f"cmd:{PY} {shlex.quote(str(script))}"
    _, summary = _play([name, "random", "random", "random"], 2)
    assert summary["bot_faults"][name] == 0
    messages = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    kinds = [m["type"] for m in messages]
    assert kinds.count("start_hand") == 2 and kinds.count("end_hand") == 2
    assert kinds[0] == "start_hand" and kinds[-1] == "end_hand"
    start = messages[0]
    assert start["seat"] == 0 and Rules.from_mapping(start["rules"]) == Rules.preset("qq")
    for m in messages:
        if m["type"] == "request":
            assert m["view"]["seat"] == 0 and len(m["legal"]) > 1
            others = [s for s in m["view"]["seats"] if s["seat"] != 0]
            assert all("hand" not in s or s["won"] or s["escaped"] for s in others)
    end = messages[kinds.index("end_hand")]["result"]
    assert sum(end["deltas"]) == 0 and end["complete"] is True
    for ev in end["events"]:  # the events as seat 0 may see them: no other seat's draw
        assert not (ev["type"] == "draw" and ev.get("seat") != 0 and "tile" in ev)


def test_the_remote_view_answers_as_the_seat_view_it_was_sent() -> None:
    rng = random.Random(2)
    rules = Rules.preset("qq").with_options({"blood_river": True, "exchange_three": "clockwise"})
    checked = 0
    for seed in range(5):
        game = Game.new(rules, seed=seed)
        while not game.over:
            for seat in range(4):
                view = SeatView(game, seat)
                sent = json.loads(json.dumps(request_message(view, game.legal_actions(seat))))
                got = Rules.from_mapping(json.loads(json.dumps(start_message(view)))["rules"])
                remote = RemoteView(sent["view"], got)
                assert got == rules
                for name in ("counts", "hand", "drawn", "void", "live", "step", "phase", "turn", "dealer",
                             "offered_tile"):
                    assert getattr(remote, name) == getattr(view, name), name
                assert remote.voids() == view.voids() and remote.deltas() == view.deltas()
                assert remote.visible_counts() == view.visible_counts()
                for other in range(4):
                    for name in ("melds", "hidden_kongs", "river", "river_state", "aside", "shown_counts", "wins",
                                 "escaped", "concealed_count", "won", "win_tiles"):
                        assert getattr(remote, name)(other) == getattr(view, name)(other), name
                checked += 1
            seat = game.pending()[0]
            game.apply(rng.choice(game.legal_actions(seat)))
    assert checked > 500


def test_serve_answers_each_request_with_a_legal_action() -> None:
    game = Game.new(Rules.preset("qq"), seed=4)
    seat = game.pending()[0]
    view = SeatView(game, seat)
    lines = [json.dumps(start_message(view)), "not json", json.dumps(request_message(view, game.legal_actions(seat))),
             json.dumps({"type": "end_hand", "result": {}})]
    out, err = io.StringIO(), io.StringIO()
    assert serve(make_bot("random"), io.StringIO("\n".join(lines) + "\n"), out, stderr=err) == 1
    assert "not json" in err.getvalue() and err.getvalue().count("\n") == 1
    answer = json.loads(out.getvalue())
    assert Action.from_json(answer["action"]) in game.legal_actions(seat)


def test_bot_stdio_command_answers_over_stdin_and_stdout() -> None:
    game = Game.new(Rules.preset("chengdu"), seed=8)
    seat = game.pending()[0]
    view = SeatView(game, seat)
    stdin = json.dumps(start_message(view)) + "\n" + json.dumps(request_message(view, game.legal_actions(seat))) + "\n"
    result = CliRunner().invoke(cli, ["bot", "stdio", "--bot", "heuristic"], input=stdin)
    assert result.exit_code == 0, result.output
    assert Action.from_json(json.loads(result.output)["action"]) in game.legal_actions(seat)


class _Reads(io.BytesIO):
    """A byte stream that remembers the most bytes any one read asked for."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.most = 0

    def readline(self, size: int | None = -1, /) -> bytes:
        assert size is not None and size > 0, "a read without a cap"
        self.most = max(self.most, size)
        return super().readline(size)


def test_bot_stdio_passes_over_an_endless_or_undecodable_line_and_answers_the_next() -> None:
    game = Game.new(Rules.preset("qq"), seed=4)
    seat = game.pending()[0]
    view = SeatView(game, seat)
    request = json.dumps(request_message(view, game.legal_actions(seat))).encode()
    data = (json.dumps(start_message(view)).encode() + b"\n" + b"x" * (3 * 4096 + 17) + b"\n"
            + b'{"type": "\xff"}\n' + request + b"\n")
    stream, err = _Reads(data), io.StringIO()
    out = io.StringIO()
    assert serve(make_bot("random"), capped_lines(stream, 4096, stderr=err), out, stderr=err) == 1
    assert stream.most == 4097  # never more than the cap (and one byte to see past it) is held
    assert "longer than 4096 bytes" in err.getvalue() and "not UTF-8" in err.getvalue()
    assert Action.from_json(json.loads(out.getvalue())["action"]) in game.legal_actions(seat)
    # the command reads its stdin the same way: a 2 MiB line is passed over, the request answered
    stdin = b"y" * (2 * DEFAULT_MAX_LINE) + b"\n" + request + b"\n"
    result = CliRunner().invoke(cli, ["bot", "stdio", "--bot", "heuristic"], input=stdin)
    assert result.exit_code == 0, result.output
    assert Action.from_json(json.loads(result.stdout)["action"]) in game.legal_actions(seat)
    assert list(capped_lines(io.BytesIO(b"a\nb"), 1024)) == ["a\n", "b"]  # a last line without its newline


@pytest.mark.parametrize("name", ["cmd:", "cmd:no-such-program-here --x", "cmd:python 'unbalanced", "policy", "rl"])
def test_bad_bot_names_are_bad_input(name: str) -> None:
    with pytest.raises(XuezhanError) as exc:
        make_bot(name)
    assert exc.value.code == "unknown_bot"
    result = CliRunner().invoke(cli, ["simulate", "--games", "1", "--bots", name, "--json"], standalone_mode=False)
    assert result.return_value == 2
    assert json.loads(result.output.splitlines()[-1])["error"]["code"] == "unknown_bot"


def test_simulate_json_counts_bot_faults_and_takes_a_timeout(tmp_path: Path) -> None:
    bad = _bad_bot(tmp_path, "silent")
    result = CliRunner().invoke(cli, ["simulate", "--games", "2", "--bots", f"{bad},heuristic,heuristic,random",
                                      "--bot-timeout", "0.3", "--json"], standalone_mode=False)
    assert result.return_value == 0, result.output
    summary = json.loads(result.output)
    assert summary["hands"] == 2 and summary["bot_faults"] == {bad: 2, "heuristic": 0, "random": 0}
    result = CliRunner().invoke(cli, ["simulate", "--games", "1", "--bot-timeout", "0", "--json"],
                                standalone_mode=False)
    assert result.return_value == 2


def test_an_outside_bot_refuses_a_bad_timeout() -> None:
    with pytest.raises(XuezhanError):
        OutsideBot(f"{PY} -c pass", random.Random(0), timeout=0)
    assert rules_json(Rules.preset("chengdu"))["preset"] == "chengdu"


def test_an_operator_seats_an_outside_bot_at_the_web_tables() -> None:
    from xuezhan.match import RoomConfig
    from xuezhan.server.config import ServerConfig
    from xuezhan.server.storebank import StoreBank
    from xuezhan.server.table import Table
    from xuezhan.store import Store

    config = ServerConfig.from_mapping({"seat_bot": STDIO_HEURISTIC, "bot_timeout": 2, "bot_max_line": 4096})
    bank = StoreBank(Store("sqlite://"))
    person = bank.create_account("ann")[0]
    table = Table("OUT1", "outside", RoomConfig(), person, bank, config)
    table.players = [None, person.player, None, None]
    bot = table.seat_owner(0).bot
    assert isinstance(bot, OutsideBot) and bot.name == STDIO_HEURISTIC and bot.timeout == 2.0
    assert bot.max_line == 4096
    assert table.seat_owner(1).is_person and table.seat_owner(1).bot.name == "heuristic"  # 托管 stays in process
    bank.close()
    with pytest.raises(XuezhanError) as exc:
        ServerConfig.from_mapping({"seat_bot": "cmd:no-such-program-here"})
    assert exc.value.code == "bad_config"
    assert ServerConfig.from_mapping({"seat_bot": ""}).seat_bot == ""
    for cap in (1023, 0):  # a line cap under 1 KiB would refuse the protocol's own messages
        with pytest.raises(XuezhanError) as exc:
            ServerConfig.from_mapping({"bot_max_line": cap})
        assert exc.value.code == "bad_config" and "bot_max_line" in exc.value.message
    assert ServerConfig().bot_max_line == 1 << 20


def test_the_driver_tells_listening_bots_once_that_the_hand_is_over() -> None:
    from xuezhan.bots.heuristic import HeuristicBot
    from xuezhan.runtime import HandDriver, Seat

    class Listening(HeuristicBot):
        def __init__(self) -> None:
            super().__init__(random.Random(0))
            self.ends: list[dict[str, Any]] = []

        def end_hand(self, view: SeatView) -> None:
            self.ends.append(view.result_json())

    bots = [Listening() for _ in range(4)]
    game = Game.new(Rules.preset("qq"), seed=6)
    driver = HandDriver(game, [Seat.of_bot(b) for b in bots], seed=6)
    assert driver.run() and driver.run()
    driver.end_hand()
    assert [len(b.ends) for b in bots] == [1, 1, 1, 1]
    assert bots[0].ends[0]["deltas"] == game.deltas() and bots[0].ends[0]["complete"] is True
    draws = [e for e in bots[0].ends[0]["events"] if e["type"] == "draw"]
    assert draws and all(("tile" in e) == (e["seat"] == 0) for e in draws)
    rebuilt = HandDriver(Game(game.rules, game.deal, game.dealer), [Seat.of_bot(b) for b in bots])
    rebuilt.replay(game.actions)
    assert rebuilt.run()
    assert [len(b.ends) for b in bots] == [1, 1, 1, 1]  # a hand rebuilt from its log is not told again


def test_the_remote_view_answers_everything_a_seat_view_answers() -> None:
    public = {n for n in dir(SeatView) if not n.startswith("_")} - {"seat"}
    assert public and public <= set(vars(RemoteView)), sorted(public - set(vars(RemoteView)))


def test_a_line_a_bot_writes_after_the_end_of_a_hand_is_not_taken_as_an_answer(tmp_path: Path) -> None:
    import time

    script = tmp_path / "chatty.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'end_hand':\n"
        "        print('good game', flush=True)\n"
        "    elif m['type'] == 'request':\n"
        "        print(json.dumps({'action': m['legal'][0]}), flush=True)\n",
        encoding="utf-8",
    )
    bot = make_bot(f"cmd:{PY} {shlex.quote(str(script))}")
    for seed in (12, 13):
        game = Game.new(Rules.preset("qq"), seed=seed)
        bot.start_hand(seed)
        while not game.over:
            seat = game.pending()[0]
            legal = game.legal_actions(seat)
            if seat == 0 and len(legal) > 1:
                assert bot.choose(SeatView(game, 0), legal) == legal[0]
            game.apply(legal[0])
        bot.end_hand(SeatView(game, 0))  # type: ignore[attr-defined]
        time.sleep(0.5)  # the stray line arrives before the next hand's first request
    assert getattr(bot, "faults", None) == 0


def test_the_league_seats_outside_bots_and_counts_their_faults(tmp_path: Path) -> None:
    bad = _bad_bot(tmp_path, "garbage")
    result = CliRunner().invoke(cli, ["league", "--bots", f"{bad},heuristic", "--deals", "1", "--bot-timeout", "2",
                                      "--json"], standalone_mode=False)
    assert result.return_value == 0, result.output
    data = json.loads(result.output)
    # ABAB then BABA: the outside bot holds two seats of each hand and faults once a hand at each
    assert data["bot_faults"] == {bad: 4, "heuristic": 0}
    [pair] = data["pairs"]
    assert pair["mean_diff"] == 0  # the heuristic took its decisions: both sides played the same
    result = CliRunner().invoke(cli, ["league", "--bots", "random,heuristic", "--deals", "1", "--bot-timeout", "-1"],
                                standalone_mode=False)
    assert result.return_value == 2


class _Endless(io.RawIOBase):
    """A program's output that never ends and has no newline; it counts the bytes read from it
    (and gives up after 64 MiB, so that a reader without a bound fails instead of hanging)."""

    def __init__(self, newline_every: int = 0) -> None:
        self.read_bytes = 0
        self.newline_every = newline_every

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        assert self.read_bytes < 64 << 20, "the reader holds no bound"
        n = len(buffer)
        buffer[:n] = b"x" * n
        if self.newline_every:
            for i in range(n):
                if (self.read_bytes + i + 1) % self.newline_every == 0:
                    buffer[i] = ord("\n")
        self.read_bytes += n
        return n


@pytest.mark.parametrize("cap", [1024, 64 << 10, DEFAULT_MAX_LINE])
def test_the_reader_of_a_bot_never_holds_more_than_a_line_of_the_cap(cap: int) -> None:
    stream = _Endless()
    lines: queue.Queue[Any] = queue.Queue(1)
    _read_lines(io.BufferedReader(stream), lines, cap)  # returns: the line is cut off at the cap
    fault = lines.get_nowait()
    assert isinstance(fault, BotFault) and f"longer than {cap} bytes" in str(fault)
    assert stream.read_bytes <= cap + 1 + io.DEFAULT_BUFFER_SIZE  # what was read: one line of the cap at most


def test_lines_up_to_the_cap_are_taken_and_one_waits_at_most() -> None:
    stream = _Endless(newline_every=1024)  # lines of 1,023 bytes and a newline: each one at the cap
    lines: queue.Queue[Any] = queue.Queue(1)
    reader = io.BufferedReader(stream)
    thread = threading.Thread(target=_read_lines, args=(reader, lines, 1023), daemon=True)
    thread.start()
    for _ in range(20):
        assert lines.get(timeout=30) == "x" * 1023 + "\n"
    time.sleep(0.5)
    held = stream.read_bytes
    time.sleep(0.5)
    assert lines.qsize() == 1 and stream.read_bytes == held  # the reader waits: nothing more is read meanwhile
    reader.close()  # the program is stopped: the reader gives up its line and ends
    thread.join(5)
    assert not thread.is_alive()


def test_an_endless_bot_is_faulted_at_its_line_cap_and_the_hand_goes_on(tmp_path: Path) -> None:
    bad = _bad_bot(tmp_path, "endless")
    bot = make_bot(bad, random.Random(1), timeout=30.0, max_line=64 << 10)
    assert isinstance(bot, OutsideBot) and bot.max_line == 64 << 10
    game = Game.new(Rules.preset("qq"), seed=3)
    seat = game.pending()[0]
    view, legal = SeatView(game, seat), game.legal_actions(seat)
    bot.start_hand(1)
    started = time.monotonic()
    action = bot.choose(view, legal)
    assert time.monotonic() - started < 25  # the cap, not the 30-s timeout, ended the wait
    assert action in legal and bot.faults == 1 and bot._proc is None  # faulted, stopped, the heuristic answered
    bot.close()


@pytest.mark.parametrize("value", ["0", "1023", "x"])
def test_a_bad_bot_line_cap_is_bad_input(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["simulate", "--games", "1"], ["league", "--bots", "random,heuristic", "--deals", "1"]):
        assert main([*command, "--bot-max-line", value, "--json"]) == 2
        assert json.loads(capsys.readouterr().out.splitlines()[-1])["error"]["code"] in ("bad_input", "usage")
    with pytest.raises(XuezhanError):
        OutsideBot(f"{PY} -c pass", random.Random(0), max_line=int(value) if value.isdigit() else 0)


def test_the_commands_that_take_bots_take_a_line_cap(tmp_path: Path) -> None:
    bad = _bad_bot(tmp_path, "huge_line")
    result = CliRunner().invoke(cli, ["simulate", "--games", "1", "--bots", f"{bad},heuristic,heuristic,heuristic",
                                      "--bot-max-line", str(4 << 20), "--json"], standalone_mode=False)
    assert result.return_value == 0, result.output
    assert json.loads(result.output)["bot_faults"][bad] == 0  # 2 MiB lines are within a cap of 4 MiB
    result = CliRunner().invoke(cli, ["simulate", "--games", "1", "--bots", f"{bad},heuristic,heuristic,heuristic",
                                      "--json"], standalone_mode=False)
    assert json.loads(result.output)["bot_faults"][bad] == 1  # and past the default of 1 MiB
