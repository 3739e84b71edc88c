"""Message catalogs: every key in three languages, the same placeholders, plurals, negotiation."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from xuezhan import i18n
from xuezhan.errors import XuezhanError


def _forms(message: i18n.Message) -> list[str]:
    return [message] if isinstance(message, str) else list(message.values())


@pytest.mark.parametrize("key", i18n.keys())
def test_every_key_has_three_languages_with_the_same_placeholders(key: str) -> None:
    entry = i18n.catalog()[key]
    assert set(entry) == set(i18n.LANGS)
    wanted = {i18n.placeholders(f) for f in _forms(entry["en"])}
    for lang in i18n.LANGS:
        for form in _forms(entry[lang]):
            assert form.strip(), f"{key} [{lang}] is empty"
            assert i18n.placeholders(form) in wanted, f"{key} [{lang}]: {form!r}"


def test_english_plurals_follow_the_count() -> None:
    assert i18n.t("common.coins", "en", count=1) == "1 coin"
    assert i18n.t("common.coins", "en", count=0) == "0 coins"
    assert i18n.t("common.coins", "en", count=20000) == "20000 coins"
    assert i18n.t("common.coins", "zh-CN", count=1) == "1 金币"
    assert i18n.t("common.hands", "en", count=-1) == "-1 hand"


def test_an_unknown_key_is_an_error_with_a_code() -> None:
    with pytest.raises(XuezhanError) as info:
        i18n.t("no.such.key", "en")
    assert info.value.code == "unknown_message"


@pytest.mark.parametrize(
    ("header", "choice", "lang"),
    [
        (None, None, "zh-CN"),
        ("", None, "zh-CN"),
        ("de-DE,fr;q=0.9", None, "zh-CN"),
        ("en-US,en;q=0.9", None, "en"),
        ("zh-TW", None, "zh-TW"),
        ("zh-HK,en;q=0.5", None, "zh-TW"),
        ("zh-Hant", None, "zh-TW"),
        ("zh-Hans-SG", None, "zh-CN"),
        ("zh", None, "zh-CN"),
        ("zh-CN;q=0.2,en;q=0.9", None, "en"),
        ("en;q=0,zh-TW;q=0.1", None, "zh-TW"),
        ("en;q=abc,zh-TW;q=0.1", None, "zh-TW"),
        ("en", "zh-TW", "zh-TW"),
        ("en", "klingon", "en"),
        ("*;q=1", None, "zh-CN"),
    ],
)
def test_language_negotiation(header: str | None, choice: str | None, lang: str) -> None:
    assert i18n.negotiate(header, choice) == lang


def test_the_web_page_gets_its_messages_in_the_negotiated_language(tmp_path: object) -> None:
    from xuezhan.server.app import create_app

    app = create_app(db_url=f"sqlite:///{tmp_path}/i18n.sqlite3")
    with TestClient(app) as client:
        default = client.get("/api/i18n").json()
        assert default["lang"] == "zh-CN"
        assert default["messages"]["common.coins"] == "{count} 金币"
        english = client.get("/api/i18n", headers={"Accept-Language": "en-US"}).json()
        assert english["lang"] == "en"
        assert english["messages"]["common.coins"] == {"one": "{count} coin", "other": "{count} coins"}
        chosen = client.get("/api/i18n?lang=zh-TW", headers={"Accept-Language": "en-US"}).json()
        assert chosen["lang"] == "zh-TW"
