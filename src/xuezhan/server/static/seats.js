// The seats around the table: where each sits on the screen (yours at the bottom), its plate (wind, name, badges,
// coins), its melds, the tiles it won, and whether the golden finger marks its discards.

import { el, num, tileImg } from "./dom.js";
import { t, term } from "./i18n.js";
import { seatInfo } from "./log.js";
import { base, S } from "./state.js";

export function rel(seat) { return (seat - base() + 4) % 4; }

export function plate(i, sv) {
  const info = seatInfo(i);
  const v = S.view;
  const windIdx = v ? (i - v.dealer + 4) % 4 : i;
  const badges = [];
  if (v && v.dealer === i) badges.push(el("span", { class: "badge dealer", text: t("badge.dealer") }));
  if (sv && sv.void) badges.push(el("span", { class: `badge void-${sv.void}`, text: t("badge.void", { suit: t(`suit.${sv.void}`) }) }));
  if (sv && sv.won) badges.push(el("span", { class: "badge won", text: term("action", "hu") + (sv.wins > 1 ? `×${sv.wins}` : "") }));
  if (sv && sv.escaped) badges.push(el("span", { class: "badge escaped", text: term("reason", "escape") }));
  if (golden(i)) badges.push(el("span", { class: "badge golden", text: term("item", "golden_finger") }));
  if (info && info.trustee) badges.push(el("span", { class: "badge trustee", text: t("badge.trustee") }));
  if (info && !info.bot && info.name && info.connected === false) badges.push(el("span", { class: "badge off", text: t("seat.away") }));
  if (info && info.ready && S.room && S.room.status === "between") badges.push(el("span", { class: "badge ready", text: t("seat.ready") }));
  const turn = v && v.phase === "turn" && v.turn === i;
  const name = (info && info.name) || t("common.seat", { seat: i + 1 });
  return el("div", { class: "plate" + (turn ? " turn" : ""), dataset: { seat: i } },
    el("span", { class: "avatar", text: t(`wind.${windIdx}`) }),
    el("span", { class: "name", text: name }),
    info && info.bot ? el("span", { class: "bot-mark", text: t("seat.bot_mark") }) : null,
    info && !info.bot && typeof info.balance === "number" ? el("span", { class: "coins", text: num(info.balance) }) : null,
    sv && rel(i) !== 0 && !sv.hand ? el("span", { class: "count", text: t("seat.concealed", { count: sv.concealed }) }) : null,
    badges.length ? el("span", { class: "badges" }, ...badges) : null);
}

export function meldNode(m) {
  const node = el("span", { class: "meld", title: term("event", m.type) });
  const n = m.type === "peng" ? 3 : 4;
  for (let k = 0; k < n; k++) {
    // a concealed kong lies face down: others see only backs (the tile is null for them)
    const hidden = m.type === "angang" && (!m.tile || k === 0 || k === 3);
    node.append(tileImg(hidden ? "back" : m.tile));
  }
  return node;
}

export function wonTiles(i) {
  const wins = ((S.view && S.view.winners) || []).filter((w) => w.seat === i);
  if (!wins.length) return null;
  return el("span", { class: "won-tiles" }, term("action", "hu"), ...wins.map((w) => tileImg(w.tile)));
}

// The golden finger: the seats whose discards it marks, for everyone (room.items.golden_fingers)
export function golden(i) {
  const items = S.room && S.room.items;
  return !S.replay && !!items && (items.golden_fingers || []).includes(i);
}
