"""The page's own files: every sentence from the catalog, fonts that cover what it shows, a
manifest and icons for the home screen, all served by the package itself."""

from __future__ import annotations

import json
import re
import struct
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from fontTools.ttLib import TTFont
from starlette.testclient import TestClient

from xuezhan import i18n, vocab
from xuezhan.server import create_app

STATIC = Path(__file__).resolve().parent.parent / "src" / "xuezhan" / "server" / "static"
MODULES = {path.name: path.read_text(encoding="utf-8") for path in sorted(STATIC.glob("*.js"))}
"""The page's script: native ES modules, one concern each, loaded from main.js (no build step)."""
APP_JS = "\n".join(MODULES.values())
INDEX = (STATIC / "index.html").read_text(encoding="utf-8")
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def _code_without_comments(js: str) -> str:
    return "\n".join(line.split("//", 1)[0] if "//" in line and "://" not in line else line for line in js.splitlines())


def test_every_key_the_page_asks_for_is_in_the_catalog() -> None:
    used = set(re.findall(r'\bt\("([a-z_.0-9]+)"', APP_JS))
    used |= set(re.findall(r'data-i18n(?:-placeholder|-label)?="([a-z_.0-9]+)"', INDEX))
    # keys the script builds from a prefix: each one it can build
    used |= {f"suit.{s}" for s in "mps"} | {f"wind.{i}" for i in range(4)}
    used |= set(re.findall(r'"((?:stake|leave|confirm)\.[a-z_]+)"', APP_JS))
    assert len(used) > 100
    known = set(i18n.keys())
    missing = sorted(k for k in used if (k if k.startswith("common.") else "web." + k) not in known)
    assert not missing


def test_the_script_holds_no_sentence_of_its_own() -> None:
    code = _code_without_comments(APP_JS)
    assert not CJK.findall(code), sorted(set(CJK.findall(code)))
    assert "/api/i18n" in code and "/api/vocab" in code
    # the page's HTML carries only the brand and the languages' own names before the catalog loads
    text = re.sub(r"<[^>]+>", " ", INDEX)
    assert set(CJK.findall(text)) <= set("血战到底简体中文繁體中文简繁")


IMPORT = re.compile(r'^import \{ ([^}]*) \} from "\./([a-z0-9]+\.js)";$', re.MULTILINE)
EXPORT = re.compile(r"^export (?:async )?(?:function|const|let) ([\w$]+)", re.MULTILINE)
EXPORT_LIST = re.compile(r"^export \{ ([^}]*) \};?$", re.MULTILINE)
CALL = re.compile(r'\bcall\("(\w+)"')
PROVIDE = re.compile(r'\bprovide\("(\w+)"')


def _exports(code: str) -> set[str]:
    """The names a module exports: `export function|const|let NAME` and `export { NAME, NAME as OTHER }`."""
    names = set(EXPORT.findall(code))
    for listed in EXPORT_LIST.findall(code):
        names |= {item.split(" as ")[-1].strip() for item in listed.split(",") if item.strip()}
    return names


def _imports(code: str) -> dict[str, set[str]]:
    """The modules a module imports, each with the names it takes from it (under their exported names)."""
    taken: dict[str, set[str]] = {}
    for names, source in IMPORT.findall(code):
        taken.setdefault(source, set()).update(n.split(" as ")[0].strip() for n in names.split(","))
    return taken


def _circle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """A circle of imports (its modules in import order, the first one again at the end), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        if name in path:
            return [*path[path.index(name):], name]
        if name in done:
            return None
        path.append(name)
        for target in sorted(graph.get(name, ())):
            found = visit(target)
            if found:
                return found
        path.pop()
        done.add(name)
        return None

    for name in sorted(graph):
        found = visit(name)
        if found:
            return found
    return None


def test_the_script_is_small_es_modules_that_import_what_they_use() -> None:
    scripts = re.findall(r"<script[^>]*>", INDEX)
    assert scripts == ['<script type="module" src="/static/main.js">']
    assert "main.js" in MODULES and "app.js" not in MODULES and len(MODULES) >= 8
    exported = {name: _exports(code) for name, code in MODULES.items()}
    reached, todo = set(), ["main.js"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        code = MODULES[name]
        assert code.count("\n") < 400, name
        assert '"use strict"' not in code  # a module is strict already
        for source, names in _imports(code).items():
            assert source in MODULES, (name, source)
            missing = names - exported[source]
            assert not missing, f"{name} imports {sorted(missing)} from {source}, which does not export them"
            todo.append(source)
        # every import is a line of its own, at the top, of the form above
        assert len(IMPORT.findall(code)) == code.count("import {"), name
    assert reached == set(MODULES)  # no module the page never loads


def test_the_modules_import_one_another_in_layers_without_a_circle() -> None:
    """The imports run one way, down the layers (state.js and hooks.js at the bottom, main.js at the top): a
    module calls one above it through a hook that main.js provides (hooks.js), never by importing it."""
    assert _circle({"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": {"a.js"}}) == ["a.js", "b.js", "c.js", "a.js"]
    assert _circle({"a.js": {"b.js", "c.js"}, "b.js": {"c.js"}, "c.js": set()}) is None
    graph = {name: set(_imports(code)) for name, code in MODULES.items()}
    circle = _circle(graph)
    assert circle is None, "the modules import one another in a circle: " + " -> ".join(circle or [])
    assert not graph["state.js"] and not graph["hooks.js"]
    assert not any("main.js" in targets for targets in graph.values())


def test_every_hook_the_modules_call_is_provided_once() -> None:
    code = _code_without_comments(APP_JS)
    provided = PROVIDE.findall(_code_without_comments(MODULES["main.js"]))
    assert len(provided) == len(set(provided)), provided
    assert set(CALL.findall(code)) == set(provided)
    assert PROVIDE.findall(code) == provided  # main.js alone provides them


def test_the_page_shows_the_servers_words_for_events() -> None:
    code = _code_without_comments(APP_JS)
    assert "ev.text" in MODULES["log.js"]
    assert not re.findall(r'\bt\("log\.', code)  # no sentence of its own for an event
    assert not i18n.keys("web.log.")
    # the page's own UI strings still come from the catalog
    assert re.findall(r'\bt\("table\.', code)


def _cmap(name: str) -> set[int]:
    return set(TTFont(str(STATIC / "fonts" / name)).getBestCmap())


def test_the_shipped_fonts_cover_every_character_the_page_shows() -> None:
    sc, tc, emoji = _cmap("noto-sans-sc.woff"), _cmap("noto-sans-tc.woff"), _cmap("noto-emoji.woff")
    texts: list[str] = []
    for key in (i18n.keys("web.") + i18n.keys("common.") + i18n.keys("words.") + i18n.keys("explain.")
                + i18n.keys("server.settle.")):
        for message in i18n.catalog()[key].values():
            texts.extend([message] if isinstance(message, str) else message.values())
    # game terms the page names itself (an error is shown in the server's own words first)
    data = {k: v for k, v in vocab.to_json()["kinds"].items() if k != "error"}
    texts.extend(name for kind in data.values() for names in kind.values() for name in names.values())
    texts.append(re.sub(r"<[^>]+>", " ", INDEX))
    wanted = {ord(ch) for ch in "".join(texts) if ch.isprintable() and not ch.isspace()}
    assert len(wanted) > 300
    assert not sorted(chr(c) for c in wanted - (sc | emoji)), "run tools/build_web_fonts.py"
    assert not sorted(chr(c) for c in wanted - (tc | emoji)), "run tools/build_web_fonts.py"
    assert {ord(ch) for ch in "💡🤖📜🔗🚪"} <= emoji
    # cut down: far fewer characters than the full fonts (tens of thousands)
    assert len(sc) < 3000 and len(emoji) < 100
    assert (STATIC / "fonts" / "OFL.txt").read_text(encoding="utf-8").count("SIL OPEN FONT LICENSE") >= 1


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_icons_and_fonts_are_served(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'assets.sqlite3'}")
    with TestClient(app) as client:
        page = client.get("/")
        assert 'rel="manifest"' in page.text and "/static/fonts/fonts.css" in page.text
        manifest = client.get("/static/manifest.webmanifest")
        assert manifest.status_code == 200
        data = json.loads(manifest.text)
        assert data["start_url"] == "/" and data["display"] == "standalone" and data["lang"] == "zh-CN"
        sizes = set()
        for icon in data["icons"]:
            res = client.get(icon["src"])
            assert res.status_code == 200, icon
            if icon["type"] == "image/png":
                w, h = _png_size(res.content)
                assert icon["sizes"] == f"{w}x{h}"
                sizes.add(w)
        assert {192, 512} <= sizes
        assert _png_size(client.get("/static/icons/apple-touch-icon.png").content) == (180, 180)
        css = client.get("/static/fonts/fonts.css").text
        files = re.findall(r'url\("([^"]+)"\)', css)
        assert len(files) == 3
        for name in files:
            res = client.get(f"/static/fonts/{name}")
            assert res.status_code == 200 and res.content[:4] == b"wOFF"
        assert client.get("/static/fonts/OFL.txt").status_code == 200
        for name in MODULES:  # each module served as JavaScript, as a module script must be
            res = client.get(f"/static/{name}")
            assert res.status_code == 200 and "javascript" in res.headers["content-type"], name


def test_the_clock_names_the_decision_in_the_vocabulary_s_words() -> None:
    """The clock's sentence takes the decision's name (出牌, 碰, 杠, 胡, 定缺, 换三张) from the
    vocabulary, and the page picks it from the seat's legal actions: the exchange and 定缺 by
    name, 出牌 on its own turn, else the best claim (胡, then 杠, then 碰)."""
    for lang in ("zh-CN", "zh-TW", "en"):
        what = vocab.name(vocab.Kind.ACTION, "dingque", lang)
        assert what in i18n.t("web.clock.yours", lang, what=what, count=9)
    exchange = vocab.name(vocab.Kind.ACTION, "exchange")
    assert i18n.t("web.clock.yours", "zh-CN", what=exchange, count=9) == "你换三张 · 9 秒"
    js = MODULES["clocks.js"]
    assert 't("clock.yours", { what: term("action", decisionKind(legal()))' in js
    start = js.index("const DECISIONS")
    end = js.index("\n}\n", js.index("export function decisionKind")) + 3
    cases = {"exchange": ["exchange", "exchange"], "dingque": ["dingque", "dingque", "dingque"],
             "discard": ["discard", "gang", "hu"], "hu": ["hu", "peng", "pass"], "gang": ["peng", "gang", "pass"],
             "peng": ["pass", "peng"]}
    script = js[start:end].replace("export ", "") + "\n" + "".join(
        f"console.log(decisionKind({json.dumps([{'type': k} for k in kinds])}));\n" for kinds in cases.values())
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True, timeout=30).stdout
    assert out.split() == list(cases)
    for kind in cases:
        assert all(vocab.name(vocab.Kind.ACTION, kind, lang) for lang in ("zh-CN", "zh-TW", "en"))
