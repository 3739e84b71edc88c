// Hints: asking the server for one, and showing its best choices.

import { $, el, parseTiles, tileWords } from "./dom.js";
import { call } from "./hooks.js";
import { t, term } from "./i18n.js";
import { send } from "./socket.js";
import { answered, S } from "./state.js";

export function askHint() {
  S.hint = null;
  S.hintFor = S.decision;
  send({ type: "hint", version: S.version });
}

export function actionWords(a) {
  const name = term("action", a.type);
  if (a.tile) return `${name} ${tileWords(a.tile)}`;
  if (a.suit) return `${name} ${t(`suit.${a.suit}`)}`;
  if (a.tiles) return `${name} ${parseTiles(a.tiles).map(tileWords).join(" ")}`;
  return name;
}

export function renderHint() {
  const box = $("hint-box");
  const h = S.hint;
  if (!h || S.replay || answered()) { box.hidden = true; return; }
  box.hidden = false;
  const choices = (h.choices || []).slice(0, 3);
  box.replaceChildren(el("b", { text: t("hint.title") }),
    choices.length ? el("ol", null, choices.map((c) => el("li", null,
      el("b", { text: actionWords(c.action) }),
      (c.reasons || []).length ? el("span", { class: "muted", text: " · " + c.reasons.join(" · ") }) : null)))
      : el("p", { class: "muted", text: t("hint.none") }),
    el("button", { class: "ghost small", text: t("hint.close"), on: { click: () => { S.hint = null; call("render"); } } }));
}
