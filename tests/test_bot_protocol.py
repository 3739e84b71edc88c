"""The bot protocol's specification: the shipped JSON Schemas are the project's, every message a real
table sends (and every answer) validates against them, docs/bot-protocol.md holds them, and the
worked example in JavaScript plays without a fault."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from xuezhan.bots.protocol import PROTOCOL_VERSION
from xuezhan.bots.schema import MESSAGES, SCHEMA_DIR, schema_path, schema_text, schemas
from xuezhan.cli import cli
from xuezhan.rules import Rules
from xuezhan.selfplay import simulate

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "bot-protocol.md"
JS_BOT = ROOT / "examples" / "bots" / "js" / "minimal_bot.js"

# an outside bot that logs every line it is sent and every answer it gives, and plays as `heuristic`
RECORDER = """
import io, sys
from xuezhan.bots import make_bot
from xuezhan.bots.protocol import serve
import random
log = open(sys.argv[1], "a", encoding="utf-8")
class Tee(io.TextIOBase):
    def write(self, text):
        log.write(text); log.flush(); sys.stdout.write(text); return len(text)
    def flush(self):
        sys.stdout.flush()
def lines():
    for line in sys.stdin:
        log.write(line); log.flush(); yield line
serve(make_bot("heuristic", random.Random(0)), lines(), Tee())
"""


def _validators() -> dict[str, jsonschema.protocols.Validator]:
    return {name: jsonschema.Draft202012Validator(schema) for name, schema in schemas().items()}


def test_the_shipped_files_are_the_schemas_and_valid_json_schemas() -> None:
    assert sorted(p.name for p in SCHEMA_DIR.glob("*.json")) == sorted(f"{m}.schema.json" for m in MESSAGES)
    for name, schema in schemas().items():
        assert schema_path(name).read_text(encoding="utf-8") == schema_text(schema), (
            f"{name}: run python -m xuezhan.bots.schema")
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["title"].startswith(f"xuezhan bot protocol {PROTOCOL_VERSION}")


@pytest.fixture(scope="module")
def messages(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Every line a table sent two recording bots and each answer, over hands of three rule sets
    (换三张 and 血流成河 among them)."""
    folder = tmp_path_factory.mktemp("protocol")
    script = folder / "recorder.py"
    script.write_text(RECORDER, encoding="utf-8")
    log = folder / "log.jsonl"
    command = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(log))}"
    variants = [Rules.preset("qq"), Rules.preset("chengdu"),
                Rules.from_mapping({"preset": "qq", "exchange_three": "clockwise", "blood_river": True})]
    for k, rules in enumerate(variants):
        stats = simulate(4, [command, "heuristic", command, "heuristic"], seed=k, rules=rules)
        assert stats.to_json()["bot_faults"][command] == 0
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_every_message_and_answer_of_a_real_table_validates(messages: list[dict[str, Any]]) -> None:
    check = _validators()
    kinds = [m.get("type", "answer") for m in messages]
    assert kinds.count("start_hand") == kinds.count("end_hand") == 24
    assert kinds.count("request") == kinds.count("answer") > 100
    seen = {(m["type"], a["type"]) for m in messages if m.get("type") == "request" for a in m["legal"]}
    assert {("request", t) for t in ("exchange", "dingque", "discard", "hu", "pass")} <= seen
    for m in messages:
        check[m.get("type", "answer")].validate(m)
    assert all(m["protocol"] == PROTOCOL_VERSION == 1 for m in messages if m.get("type") == "start_hand")


@pytest.mark.parametrize(("name", "message"), [
    ("start_hand", {"type": "start_hand", "seat": 0, "rules": {"preset": "qq", "fan": {}}}),  # no protocol
    ("start_hand", {"type": "start_hand", "protocol": 2, "seat": 0, "rules": {"preset": "qq", "fan": {}}}),
    ("start_hand", {"type": "start_hand", "protocol": 1, "seat": 4, "rules": {"preset": "qq", "fan": {}}}),
    ("answer", {"act": {"seat": 0, "type": "hu"}}),
    ("answer", {"action": {"seat": 0, "type": "discard"}}),  # a discard names its tile
    ("answer", {"action": {"seat": 0, "type": "discard", "tile": "0m"}}),
    ("answer", {"action": {"seat": 0, "type": "dingque", "suit": "z"}}),
    ("answer", {"action": {"seat": 0, "type": "chi", "tile": "5m"}}),
    ("end_hand", {"type": "end_hand", "result": {}}),
])
def test_a_message_that_is_not_the_protocols_does_not_validate(name: str, message: dict[str, Any]) -> None:
    assert not _validators()[name].is_valid(message)


def test_the_request_schema_refuses_a_view_that_lost_a_field(messages: list[dict[str, Any]]) -> None:
    request = next(m for m in messages if m.get("type") == "request")
    check = _validators()["request"]
    check.validate(request)
    for key in request["view"]:
        broken = {**request, "view": {k: v for k, v in request["view"].items() if k != key}}
        assert not check.is_valid(broken), key


def test_the_specification_holds_every_schema() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name, schema in schemas().items():
        found = re.search(rf"<!-- schema:{name} -->\s*```json\n(.*?)```", text, re.S)
        assert found, f"docs/bot-protocol.md has no schema of {name}"
        assert json.loads(found.group(1)) == schema, f"docs/bot-protocol.md: the schema of {name} is not the project's"
    assert '"protocol": 1' in text


def test_the_javascript_example_plays_hands_without_a_fault() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js) is not installed: the JavaScript example bot cannot be checked")
    bot = f"cmd:{shlex.quote(node)} {shlex.quote(str(JS_BOT))}"
    result = CliRunner().invoke(cli, ["simulate", "--games", "12", "--seed", "3", "--bots",
                                      f"{bot},heuristic,heuristic,heuristic", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["hands"] == 12 and summary["bot_faults"] == {bot: 0, "heuristic": 0}
    rules = Rules.from_mapping({"preset": "qq", "exchange_three": "opposite", "blood_river": True})
    stats = simulate(4, [bot, "heuristic", bot, "random"], seed=1, rules=rules).to_json()
    assert stats["bot_faults"][bot] == 0
