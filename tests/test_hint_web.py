"""The web table's hint: the advisor's ranking of the seat's own choices, in the player's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_server import Client, make_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
__all__ = ["make_app"]  # the fixture


def test_a_seated_player_gets_the_advisor_s_ranking_of_its_own_choices(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=30, claim_timeout=30, choice_timeout=30)
    p = Client(app, "hana")
    code = p.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    p.connect(code)
    st = p.wait_for(lambda m: m["type"] == "state" and m["decision"] is not None and bool(m["view"]["legal"]))
    legal = st["view"]["legal"]
    p.send({"type": "hint", "version": st["version"]})
    hint = p.wait_for(lambda m: m["type"] in ("hint", "error") and m.get("for") == "hint")
    assert hint["type"] == "hint"
    choices = hint["choices"]
    assert sorted(map(repr, (c["action"] for c in choices))) == sorted(map(repr, legal))  # every choice, ranked
    assert all(c["words"] and isinstance(c["reasons"], list) for c in choices)
    assert hint["lines"] and hint["lines"][0].startswith("提示")  # Simplified Chinese by default
    p.close()


def test_a_spectator_gets_no_hint(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=30, claim_timeout=30, choice_timeout=30)
    p = Client(app, "ivo")
    code = p.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    p.connect(code)
    p.wait_for(lambda m: m["type"] == "state")
    w = Client(app, "jun")
    w.connect(code, watch=True)
    w.wait_for(lambda m: m["type"] == "state")
    w.send({"type": "hint"})
    refused = w.wait_for(lambda m: m.get("for") == "hint")
    assert refused["type"] == "error" and refused["code"] == "not_seated"
    w.close()
    p.close()
