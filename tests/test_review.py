"""Review (复盘): every decision of a record weighed by the expert, on the command line and in the
web history. Losses are checked against the expert's own evaluation of each decision (its
``expected_points`` at that point of the hand), never against numbers written here."""

from __future__ import annotations

import dataclasses
import json
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_server import Client, make_app

from xuezhan import i18n
from xuezhan.bots import ExpertBot, make_bot
from xuezhan.cli import main
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import Game
from xuezhan.explain import tile_word
from xuezhan.hints import action_words
from xuezhan.i18n import Lang
from xuezhan.records import Record, parse_record, record_json
from xuezhan.review import MISTAKE_Z, REVIEW_SEED, SHOWN_LOSS, Review, review_lines, review_record
from xuezhan.rules import Rules
from xuezhan.runtime import HandDriver, Seat

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

__all__ = ["make_app"]

PER_CHOICE = 8
"""Play-outs a choice in these tests: enough to tell choices apart, quick to run."""


def _hand(preset: str, seed: int, bots: str = "heuristic") -> dict[str, Any]:
    """The record of a hand played by ``bots`` (their own seeded choices, mistakes and all)."""
    game = Game.new(Rules.preset(preset), seed=seed)
    HandDriver(game, [Seat.of_bot(make_bot(bots, random.Random(seed * 4 + s))) for s in range(4)], seed=seed).run()
    return record_json(game)


@pytest.fixture(scope="module")
def hands() -> dict[str, dict[str, Any]]:
    return {"qq": _hand("qq", 7), "chengdu": _hand("chengdu", 11, "random")}


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory, hands: dict[str, dict[str, Any]]) -> Path:
    path = tmp_path_factory.mktemp("review") / "hand.json"
    path.write_text(json.dumps(hands["qq"]), encoding="utf-8")
    return path


def _game_at(record: Record, step: int) -> Game:
    """The hand just before the record's action ``step``: its actions before it applied one by one
    (a record the project writes lists every answer of every window)."""
    game = record.new_game()
    for a in record.actions[:step]:
        game.apply(a)
    return game


@pytest.mark.parametrize("preset", ["qq", "chengdu"])
def test_each_loss_is_the_experts_own_evaluation(hands: dict[str, dict[str, Any]], preset: str) -> None:
    record = parse_record(hands[preset])
    review = review_record(record, per_choice=PER_CHOICE)
    reviewed = {d.step: d for d in review.decisions}
    game = record.new_game()
    for step, action in enumerate(record.actions):
        legal = game.legal_actions(action.seat)
        if len(set(legal)) > 1:  # a choice: reviewed, with every legal choice weighed as the expert does
            d = reviewed.pop(step)
            assert (d.seat, d.taken) == (action.seat, action)
            distinct = list(dict.fromkeys(legal))
            distinct.remove(action)  # the choice taken is the reference of the expert's differences
            expert = ExpertBot(random.Random(REVIEW_SEED), playouts=PER_CHOICE * (len(distinct) + 1))
            expert.start_hand(REVIEW_SEED)
            evals = expert.expected_points(_game_at(record, step).view(action.seat), [action, *distinct])
            own = {e.action: e.mean for e in evals}
            assert {c.action: c.ev for c in d.choices} == own
            assert [c.ev for c in d.choices] == sorted(own.values(), reverse=True)  # the best first
            assert d.loss == pytest.approx(max(own.values()) - own[action]) and d.loss >= 0
            assert d.best.ev == max(own.values())
            best = next(e for e in evals if e.action == d.best.action)  # its error of the difference from the taken
            assert d.stderr == (0.0 if best.action == action else best.stderr)
            assert d.mistake == (d.loss >= SHOWN_LOSS and d.loss >= MISTAKE_Z * d.stderr)
        game.apply(action)
    assert reviewed == {}  # nothing else: no decision of a single legal action
    assert any(d.loss > 0 for d in review.decisions)  # the bots' hands hold mistakes to find
    assert review.total_loss() == pytest.approx(
        {s: sum(d.loss for d in review.decisions if d.seat == s and d.mistake) for s in range(4)})


def test_a_review_is_the_same_every_time_and_whatever_else_is_reviewed(hands: dict[str, dict[str, Any]]) -> None:
    record = parse_record(hands["qq"])
    whole = review_record(record, per_choice=PER_CHOICE)
    assert review_record(record, per_choice=PER_CHOICE) == whole
    for seat in range(4):
        alone = review_record(record, [seat], per_choice=PER_CHOICE)
        assert alone.decisions == tuple(d for d in whole.decisions if d.seat == seat)
        assert alone.to_json()["total_loss"] == {str(seat): whole.to_json()["total_loss"][str(seat)]}
    other = review_record(record, per_choice=PER_CHOICE, seed=REVIEW_SEED + 1)
    assert [c.ev for c in other.decisions[0].choices] != [c.ev for c in whole.decisions[0].choices]


def test_the_expert_decides_as_before_when_asked_for_every_choice(hands: dict[str, dict[str, Any]]) -> None:
    """Weighing every choice leaves the expert's own decision as it was: the same bot chooses the same
    action before and after being asked, and its search measures its candidates alike."""
    record = parse_record(hands["qq"])
    game = record.new_game()
    checked = 0
    for action in record.actions:
        legal = game.legal_actions(action.seat)
        if len(set(legal)) > 1 and checked < 6:
            view = game.view(action.seat)
            fresh = ExpertBot(random.Random(3), playouts=64)
            fresh.start_hand(3)
            asked = ExpertBot(random.Random(3), playouts=64)
            asked.start_hand(3)
            asked.expected_points(view, legal)
            assert asked.choose(view, legal) == fresh.choose(view, legal)
            checked += 1
        game.apply(action)
    assert checked == 6


# --- the command line ---------------------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_review_json_has_the_spec_shape(record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "review", str(record_file), "--json")
    assert rc == 0
    data = json.loads(out)
    assert set(data) == {"hand", "decisions", "total_loss"} and data["hand"] == 1
    assert set(data["total_loss"]) == {"0", "1", "2", "3"}
    raw = json.loads(record_file.read_text(encoding="utf-8"))
    assert data == review_record(parse_record(raw)).to_json()
    steps = [d["step"] for d in data["decisions"]]
    assert steps == sorted(set(steps))  # the record's order, one decision a step
    for d in data["decisions"]:
        assert set(d) == {"seat", "step", "taken", "choices", "loss", "stderr", "mistake", "stand_in"}
        assert d["stand_in"] is False  # a record does not say who took an action: the player, then
        assert d["stderr"] >= 0 and d["mistake"] == (d["loss"] > 0 and d["loss"] >= MISTAKE_Z * d["stderr"] - 0.011)
        assert d["taken"] == raw["actions"][d["step"]] and d["taken"]["seat"] == d["seat"]
        assert len(d["choices"]) >= 2 and all(set(c) == {"action", "ev"} for c in d["choices"])
        evs = [c["ev"] for c in d["choices"]]
        assert evs == sorted(evs, reverse=True)
        taken = next(c["ev"] for c in d["choices"] if c["action"] == d["taken"])
        assert d["loss"] >= 0 and d["loss"] == pytest.approx(evs[0] - taken, abs=0.011)
    noise_too: list[float] = []
    for seat, total in data["total_loss"].items():
        mine = [d for d in data["decisions"] if d["seat"] == int(seat)]
        assert total == pytest.approx(sum(d["loss"] for d in mine if d["mistake"]), abs=0.05)  # the mistakes' losses
        noise_too.append(sum(d["loss"] for d in mine) - total)
    assert max(noise_too) > 0  # the losses within the search's noise are not counted
    rc, out, _ = run(capsys, "review", str(record_file), "--seat", "2", "--json")
    alone = json.loads(out)
    assert rc == 0 and set(alone["total_loss"]) == {"2"}
    assert alone["decisions"] == [d for d in data["decisions"] if d["seat"] == 2]


def test_review_takes_one_hand_of_a_jsonl_file(tmp_path: Path, hands: dict[str, dict[str, Any]],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hands.jsonl"
    path.write_text("\n".join(json.dumps(hands[p]) for p in ("qq", "chengdu")) + "\n", encoding="utf-8")
    rc, out, _ = run(capsys, "review", str(path), "--hand", "2", "--seat", "1", "--json")
    assert rc == 0
    data = json.loads(out)
    assert data["hand"] == 2
    assert data == review_record(parse_record(hands["chengdu"]), [1], hand=2).to_json()


@pytest.mark.parametrize(("args", "code"), [
    (["--seat", "4"], "bad_seat"),
    (["--seat", "-1"], "bad_seat"),
    (["--hand", "0"], "bad_hand_no"),
    (["--hand", "2"], "bad_hand_no"),
])
def test_bad_options_get_their_codes(record_file: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                     code: str) -> None:
    rc, out, err = run(capsys, "review", str(record_file), *args, "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == code and err


@pytest.mark.parametrize(("content", "code"), [
    (None, "unreadable"),
    (b'{"dealer": 0, "hands": [', "bad_json"),
    (b"\xff\xfe{}", "bad_json"),
    (b'{"dealer": 0}', "bad_record"),
    (b'{"id": 3}', "unknown_field"),
])
def test_bad_files_get_their_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None,
                                   code: str) -> None:
    path = tmp_path / "record.json"
    if content is not None:
        path.write_bytes(content)
    rc, out, err = run(capsys, "review", str(path), "--json")
    assert rc == 2 and json.loads(out)["error"] == {"code": code, "message": json.loads(out)["error"]["message"]}
    assert err.strip()


def test_a_record_that_does_not_replay_is_refused_before_any_search(
        tmp_path: Path, hands: dict[str, dict[str, Any]], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    raw = dict(hands["qq"])
    raw["actions"] = [*raw["actions"][:5], {"seat": 0, "type": "peng"}, *raw["actions"][5:]]
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    weighed: list[int] = []
    monkeypatch.setattr(ExpertBot, "expected_points", lambda self, *a, **k: weighed.append(1))
    rc, out, _ = run(capsys, "review", str(path), "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == "illegal_action" and not weighed


@pytest.mark.parametrize("lang", list(i18n.LANGS))
def test_the_text_names_the_biggest_mistakes_first_in_the_language(
        record_file: Path, capsys: pytest.CaptureFixture[str], lang: Lang) -> None:
    rc, out, _ = run(capsys, "review", str(record_file), "--lang", lang)
    assert rc == 0
    review = review_record(parse_record(json.loads(record_file.read_text(encoding="utf-8"))))
    lines = out.splitlines()
    assert lines == review_lines(review, lang)
    assert lines[0] == i18n.t("review.heading", lang, hand=1, count=len(review.decisions))
    mistakes = review.mistakes()
    assert mistakes and [d.loss for d in mistakes] == sorted((d.loss for d in mistakes), reverse=True)
    top = mistakes[0]
    assert lines[2] == i18n.t("review.mistake", lang, rank=1, step=top.step + 1,
                              seat=i18n.t("common.seat", lang, seat=top.seat), taken=action_words(top.taken, lang),
                              taken_ev=f"{top.taken_ev:+.2f}", best=action_words(top.best.action, lang),
                              best_ev=f"{top.best.ev:+.2f}", loss=f"{top.loss:.2f}", stderr=f"{top.stderr:.2f}")
    assert len(lines) == 2 + len(mistakes)  # the heading, the totals, then the mistakes and nothing else
    noise = [d for d in review.decisions if d.loss >= SHOWN_LOSS and not d.mistake]
    assert noise and all(d.loss < MISTAKE_Z * d.stderr for d in noise)  # losses within the search's noise: not listed
    discards = [d for d in mistakes if d.taken.type is ActionType.DISCARD]
    assert discards and tile_word(discards[0].taken.tile or 0, lang) in out  # tiles named as the project names them


def test_the_text_language_follows_the_environment(record_file: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    rc, out, _ = run(capsys, "review", str(record_file), "--seat", "0")
    assert rc == 0 and out.splitlines()[0].startswith("第 1 局复盘")  # zh-CN by default
    monkeypatch.setenv("LANG", "zh_TW.UTF-8")
    rc, out, _ = run(capsys, "review", str(record_file), "--seat", "0")
    assert rc == 0 and out.splitlines()[0].startswith("第 1 局復盤")


def test_the_stand_ins_decisions_are_marked_and_count_for_no_loss(hands: dict[str, dict[str, Any]]) -> None:
    record = parse_record(hands["chengdu"])  # random seats: mistakes enough
    own = review_record(record, [2, 3], per_choice=PER_CHOICE)
    mistakes = [d.step for d in own.decisions if d.seat == 2 and d.mistake]
    others = [d.step for d in own.decisions if d.seat == 2 and not d.mistake]
    assert len(mistakes) >= 2 and len(others) >= 4
    taken = sorted([mistakes[0], *others[::2]])  # one mistake of seat 2 and some other decisions were its stand-in's
    marked = review_record(record, [2, 3], per_choice=PER_CHOICE, stand_in=taken)
    assert [dataclasses.replace(d, stand_in=False) for d in marked.decisions] == list(own.decisions)  # weighed alike
    assert [d.step for d in marked.decisions if d.stand_in] == taken
    assert [d["stand_in"] for d in marked.to_json()["decisions"]] == [d.step in taken for d in marked.decisions]
    assert marked.stand_ins() == len(taken)
    # the seat's total: its own mistakes only; the other seat's is as it was
    totals = marked.total_loss()
    assert totals[2] == pytest.approx(sum(d.loss for d in own.decisions
                                          if d.seat == 2 and d.mistake and d.step not in taken))
    assert 0 < totals[2] < own.total_loss()[2] and totals[3] == own.total_loss()[3]
    # the words: how many the stand-in took, and each of its mistakes marked as its
    lines = review_lines(marked, "en")
    assert lines[2] == f"{len(taken)} decisions were the stand-in's, counted in no loss"
    listed = marked.mistakes()
    assert [d.step for d in listed] == [d.step for d in own.mistakes()]  # still listed, biggest first
    assert [d.step for d in listed if d.stand_in] == [mistakes[0]]
    for d, line in zip(listed, lines[3:], strict=True):
        assert ("seat 2 (stand-in):" in line) == d.stand_in
    assert not any("stand-in" in line for line in review_lines(own, "en"))  # nothing marked without them


def test_a_hand_without_a_mistake_says_so() -> None:
    review = Review(3, (0,), ())
    assert review_lines(review, "en")[-1] == i18n.t("review.no_mistake", "en")
    assert review.to_json() == {"hand": 3, "decisions": [], "total_loss": {"0": 0.0}}


# --- the web history ----------------------------------------------------------------------------------------


def test_the_web_history_reviews_the_players_own_seat_once_on_a_thread(
        make_app: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from xuezhan.server import history

    calls: list[tuple[str, Review]] = []

    def counted(*args: Any, **kwargs: Any) -> Review:
        review = review_record(*args, **{**kwargs, "per_choice": PER_CHOICE})
        calls.append((threading.current_thread().name, review))
        return review

    monkeypatch.setattr(history, "review_record", counted)
    app = make_app(turn_timeout=0.01, claim_timeout=0.01, choice_timeout=0.01)
    p = Client(app, "rea")
    code = p.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    p.connect(code)
    p.wait_for(lambda m: m["type"] == "hand_end")
    [listed] = p.http.get("/api/history").json()["hands"]
    r = p.http.get(f"/api/history/{listed['id']}/review")
    assert r.status_code == 200, r.text
    data = r.json()
    [(thread, review)] = calls
    assert thread.startswith("review") and thread != threading.main_thread().name
    assert data["seat"] == listed["seat"] == 0 and data["hand"] == listed["hand_no"] == 1
    assert {k: data[k] for k in ("hand", "decisions", "total_loss")} == review.to_json()
    assert review.seats == (0,) and all(d["seat"] == 0 for d in data["decisions"])  # only the player's own
    assert set(data["total_loss"]) == {"0"} and data["decisions"]
    # the player never answered: the stand-in took every decision, none of them the player's mistake
    assert all(d["stand_in"] for d in data["decisions"]) and data["total_loss"] == {"0": 0.0}
    assert i18n.t("review.stand_ins", "zh-CN", count=len(data["decisions"])) in data["lines"]
    assert data["lines"] == review_lines(review, "zh-CN", names=_names(p, listed["id"]))
    again = p.http.get(f"/api/history/{listed['id']}/review")
    assert again.json() == data and len(calls) == 1  # kept: worked out once
    en = p.http.runner.get(f"/api/history/{listed['id']}/review",
                           headers={"cookie": f"xz_session={p.http.token}; lang=en"})
    assert en.json()["lines"][0] == i18n.t("review.heading", "en", hand=1, count=len(review.decisions))
    assert len(calls) == 1
    stranger = Client(app, "reb")
    r = stranger.http.get(f"/api/history/{listed['id']}/review")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "unknown_hand")
    r = p.http.get("/api/history/abc/review")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "unknown_hand")
    r = p.http.runner.get(f"/api/history/{listed['id']}/review")
    assert (r.status_code, r.json()["error"]["code"]) == (401, "not_signed_in")
    p.close()
    stranger.close()


def _names(p: Client, hand_id: int) -> list[str]:
    names: list[str] = p.http.get(f"/api/history/{hand_id}").json()["names"]
    return names


def test_json_actions_of_a_review_read_back(hands: dict[str, dict[str, Any]]) -> None:
    review = review_record(parse_record(hands["chengdu"]), [0], per_choice=2)
    for d in review.to_json()["decisions"]:
        assert Action.from_json(d["taken"]) in {Action.from_json(c["action"]) for c in d["choices"]}
