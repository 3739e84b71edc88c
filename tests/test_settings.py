"""What a person chose for the page (the table's sounds muted or not), kept per account: in the
store (on SQLite and PostgreSQL, across a new Store on the same database) and over HTTP
(``GET``/``PUT /api/settings``: signed in only, a bad body refused with ``bad_setting`` and
nothing kept)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text
from test_server import Http, make_app

from xuezhan.store import AccountSettings, Store, StoreError, migrate

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

__all__ = ["make_app"]  # the fixture, shared with test_server

PASSWORD = "correct horse"


def _code(r: Any) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"] if r.status_code >= 400 else ""


def test_a_setting_is_kept_per_account_and_outlives_the_store(url: str) -> None:
    store = Store(url)
    try:
        store.accounts.create_account("mei")
        store.accounts.create_account("kai")
        assert store.accounts.account_settings("mei") == AccountSettings(mute=False)  # nothing chosen yet
        assert store.accounts.save_account_settings("mei", AccountSettings(mute=True)) == AccountSettings(mute=True)
        assert store.accounts.account_settings("mei").mute is True
        assert store.accounts.account_settings("kai").mute is False  # another account's choice is its own
    finally:
        store.close()
    again = Store(url)  # a restarted server on the same database
    try:
        assert again.accounts.account_settings("mei").mute is True
        assert again.accounts.account_settings("kai").mute is False
        again.accounts.save_account_settings("mei", AccountSettings(mute=False))  # changed back: an update
        again.accounts.save_account_settings("mei", AccountSettings(mute=False))
        assert again.accounts.account_settings("mei").mute is False
        with again.engine.connect() as conn:
            assert conn.execute(text("SELECT COUNT(*) FROM account_settings")).scalar_one() == 1
        with pytest.raises(StoreError) as info:
            again.accounts.save_account_settings("nobody", AccountSettings(mute=True))
        assert info.value.code == "unknown_account"
        with pytest.raises(StoreError):
            again.accounts.account_settings("nobody")
    finally:
        again.close()


def test_a_database_made_before_settings_gets_their_table(tmp_path: Any) -> None:
    """A database at the schema before settings existed is migrated, and its accounts can choose."""
    db = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    migrate(db, "0004")
    old = Store(db, migrate_schema=False)
    try:
        old.accounts.create_account("lou")
    finally:
        old.close()
    store = Store(db)
    try:
        assert store.accounts.account_settings("lou").mute is False
        store.accounts.save_account_settings("lou", AccountSettings(mute=True))
        assert store.accounts.account_settings("lou").mute is True
    finally:
        store.close()


def _put(c: Http, body: Any, **kwargs: Any) -> Any:
    headers = {"cookie": f"xz_session={c.token}"} if c.token else {}
    return c.runner.put("/api/settings", json=body, headers=headers, **kwargs)


def test_the_settings_api_is_per_account_and_refuses_bad_bodies(make_app: Callable[..., Any]) -> None:
    app = make_app()
    mei = Http(app.state.runner)
    assert mei.post("/api/register", json={"name": "mei", "password": PASSWORD}).status_code == 200
    kai = Http(app.state.runner)
    assert kai.post("/api/login", json={"name": "kai"}).status_code == 200
    assert mei.get("/api/settings").json() == {"mute": False}
    r = _put(mei, {"mute": True})
    assert r.status_code == 200 and r.json() == {"mute": True}
    assert mei.get("/api/settings").json() == {"mute": True}
    assert kai.get("/api/settings").json() == {"mute": False}

    for body in ({}, {"mute": 1}, {"mute": "true"}, {"mute": None}, {"mute": False, "volume": 3}, {"sound": False}):
        r = _put(mei, body)
        assert _code(r) == (400, "bad_setting"), body
        assert r.json()["error"]["message"]  # a sentence, in the request's language
    assert _code(_put(mei, [False])) == (400, "bad_json")
    r = mei.runner.put("/api/settings", content=b"mute=0", headers={"cookie": f"xz_session={mei.token}"})
    assert _code(r) == (400, "bad_request")
    assert mei.get("/api/settings").json() == {"mute": True}  # nothing changed by a refused write

    signed_out = Http(app.state.runner)
    assert _code(signed_out.get("/api/settings")) == (401, "not_signed_in")
    assert _code(_put(signed_out, {"mute": False})) == (401, "not_signed_in")
    assert mei.post("/api/settings", json={"mute": False}).status_code == 405
    assert mei.get("/api/settings").json() == {"mute": True}

    # a new session of the same account finds the choice
    assert mei.post("/api/logout").status_code == 200
    assert _code(mei.get("/api/settings")) == (401, "not_signed_in")
    again = Http(app.state.runner)
    assert again.post("/api/login", json={"name": "mei", "password": PASSWORD}).status_code == 200
    assert again.get("/api/settings").json() == {"mute": True}
