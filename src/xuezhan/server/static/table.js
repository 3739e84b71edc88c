// Drawing the table: the bar, the waiting room, the seats' plates, melds and rivers, the compass.

import { renderClocks } from "./clocks.js";
import { $, el, num, parseTiles, tileImg } from "./dom.js";
import { renderMine } from "./hand.js";
import { renderHint } from "./hint.js";
import { renderJiaoMa } from "./jiaoma.js";
import { t, term } from "./i18n.js";
import { renderItems } from "./items.js";
import { seatInfo, seatName } from "./log.js";
import { renderDialogs } from "./settlement.js";
import { send } from "./socket.js";
import { answered, S } from "./state.js";

export function base() { return S.seat === null || S.seat === undefined ? 0 : S.seat; }

export function rel(seat) { return (seat - base() + 4) % 4; }

export function legal() { return (S.view && S.view.legal) || []; }

export function mineToPlay() { return S.seat !== null && S.seat !== undefined && !S.replay; }

export function renderAll() {
  if ($("table-view").hidden) return;
  renderBar();
  renderWaiting();
  for (let i = 0; i < 4; i++) {
    if (rel(i) !== 0) renderOpponent(i);
    renderRiver(i);
  }
  renderCompass();
  renderMine();
  renderHint();
  renderJiaoMa();
  renderItems();
  renderDialogs();
  renderClocks();
}

export function renderBar() {
  const room = S.room;
  let title = "";
  let status = "";
  if (S.replay) {
    title = t("replay.title");
    status = t("replay.step", { k: S.replay.k + 1, n: S.replay.data.steps.length });
  } else {
    title = room ? room.name : "…";
    if (room) {
      status = t("table.hand_of", { n: room.hand_no, hands: room.hands });
      if (room.status === "waiting") status = t("table.waiting");
      if (room.status === "finished") status = t("table.match_over");
    }
    if (S.seat === null) status += " · " + t("table.watching");
    if (room && room.spectators) status += " · " + t("table.spectators", { count: room.spectators });
    if (!S.ws && S.wsWanted) status += " · " + t("table.reconnecting");
    if (S.replaced) status += " · " + t("table.replaced");
  }
  $("room-title").textContent = title;
  $("room-code").textContent = S.replay ? "" : S.code || "";
  $("room-status").textContent = status;
  const playing = room && room.status === "playing";
  const seated = S.seat !== null && !S.replay;
  $("trustee-btn").hidden = !seated || !playing;
  $("trustee-btn").classList.toggle("on", S.trustee);
  $("trustee-btn").setAttribute("aria-pressed", S.trustee ? "true" : "false");
  $("hint-btn").hidden = !seated || !playing;
  $("hint-btn").disabled = answered() || S.trustee;
  $("share-btn").hidden = !!S.replay;
  $("trustee-banner").hidden = !S.trustee || !seated;
  $("felt-wrap").classList.toggle("log-open", S.logOpen);
  $("log-btn").setAttribute("aria-pressed", S.logOpen ? "true" : "false");
}

export function renderWaiting() {
  const panel = $("waiting-panel");
  const room = S.room;
  const canSit = S.seat === null && room && room.status !== "playing" && room.seats.some((s) => !s.name || s.bot);
  if (S.replay || !room || (room.status !== "waiting" && !(canSit && !S.handEnd))) { panel.hidden = true; return; }
  panel.hidden = false;
  const link = `${location.origin}/?watch=${room.code}`;
  panel.replaceChildren(
    el("div", { class: "muted", text: t("table.share_code") }),
    el("div", { class: "big-code", text: room.code }),
    el("div", { class: "muted small-text", text: t("table.watch_link", { link }) }),
    el("div", { class: "seat-list" }, room.seats.map((s) => el("div", { class: "seat-slot" },
      el("b", { text: t("common.seat", { seat: s.seat + 1 }) }),
      s.name ? el("div", { text: s.name + (s.connected === false && !s.bot ? " · " + t("seat.away") : "") })
        : el("div", { class: "muted", text: t("table.empty_seat") }),
      S.seat === null && (!s.name || s.bot) && room.status !== "playing"
        ? el("button", { text: t("table.sit"), dataset: { sit: s.seat }, on: { click: () => { S.pendingSit = s.seat; send({ type: "sit", seat: s.seat }); } } }) : null,
    ))),
    S.seat !== null && room.status === "waiting"
      ? el("button", { id: "start-btn", class: "primary big", text: t("table.start"), on: { click: () => send({ type: "start" }) } })
      : el("div", { class: "muted", text: S.seat === null ? t("table.watching_hint") : "" }),
  );
}

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

export function renderOpponent(i) {
  const area = $(`seat-${rel(i)}`);
  const v = S.view;
  if (!v) { area.replaceChildren(seatInfo(i) && seatInfo(i).name ? plate(i, null) : ""); return; }
  const sv = v.seats[i];
  area.replaceChildren(plate(i, sv),
    el("div", { class: "opp-tiles" },
      sv.melds.map((m) => meldNode(m)),
      sv.hand ? el("span", { class: "revealed" }, parseTiles(sv.hand).map((x) => tileImg(x))) : null,
      wonTiles(i)));
}

export function riverEntry(sv, k) {
  const e = sv.river[k];
  const tile = typeof e === "string" ? e : e && e.tile;
  const st = sv.river_state ? sv.river_state[k] : 0;
  const claimed = (typeof e === "object" && e && e.claimed === true) || st === 1;
  return { tile, claimed, won: st === 2 || st === 3 };
}

// The golden finger: the seats whose discards it marks, for everyone (room.items.golden_fingers)
export function golden(i) {
  const items = S.room && S.room.items;
  return !S.replay && !!items && (items.golden_fingers || []).includes(i);
}

export function renderRiver(i) {
  const v = S.view;
  const node = $(`river-${rel(i)}`);
  if (golden(i)) node.dataset.golden = "true";
  else delete node.dataset.golden;
  node.title = golden(i) ? term("item", "golden_finger") : "";
  if (!v) { node.replaceChildren(); return; }
  const sv = v.seats[i];
  const n = sv.river.length;
  // The latest discard is marked in its river for everyone; only a seat that may claim it is
  // offered it (its view alone has the claim phase), and only there does it pulse.
  const latest = S.lastDiscard === i ? n - 1 : -1;
  node.replaceChildren(...sv.river.map((_, k) => {
    const e = riverEntry(sv, k);
    let cls = "rt";
    if (e.claimed) cls += " claimed";
    if (e.won) cls += " won-on";
    if (k === latest) cls += " last";
    if (k === latest && !e.claimed && v.phase === "claim" && v.offered === e.tile && v.turn === i) cls += " offered";
    return el("span", { class: cls, "data-last": k === latest ? true : null, title: e.claimed ? t("river.claimed") : null },
      tileImg(e.tile));
  }));
}

export function renderCompass() {
  const v = S.view;
  $("wall-count").textContent = v ? t("table.wall", { count: v.wall }) : "";
  const turn = v ? seatName(v.turn) : "";
  $("turn-name").textContent = v && (v.phase === "turn" || v.phase === "claim") ? t("table.turn", { who: turn }) : "";
}
