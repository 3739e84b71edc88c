// Your hand and the buttons of your decision: discarding, 换三张 and 定缺, claims. The tiles 换三张
// brought are marked (data-received) until your first discard; 定缺 comes with the shortest suit
// chosen (data-preselected), one tap to confirm. The table is drawn again through the hook "render" (hooks.js).

import { myDeadline } from "./clocks.js";
import { $, compact, el, parseTiles, tileImg, tileWords } from "./dom.js";
import { call } from "./hooks.js";
import { t, term } from "./i18n.js";
import { renderReplayControls } from "./replay.js";
import { meldNode, plate, wonTiles } from "./seats.js";
import { send, sendAction } from "./socket.js";
import { answered, base, legal, mineToPlay, S } from "./state.js";
import { markWaits, renderWaits } from "./waits.js";

export function myTiles() {
  const v = S.view;
  const me = base();
  const sv = v.seats[me];
  const mine = mineToPlay() || (S.replay && v.hand);
  let tiles = mine ? parseTiles(v.hand) : sv.hand ? parseTiles(sv.hand) : [];
  let drawn = mine ? v.drawn : null;
  if (drawn) {
    const k = tiles.lastIndexOf(drawn);
    if (k >= 0) { tiles.splice(k, 1); tiles.push(drawn); } else drawn = null;
  }
  return { tiles, drawn, hidden: !mine && !sv.hand ? sv.concealed : 0 };
}

// From each state message: the tiles this seat received in 换三张, until it discards.
export function trackReceived(msg) {
  if (msg.reset || msg.hand_no !== S.receivedHand) { S.received = []; S.receivedHand = msg.hand_no; }
  for (const ev of msg.events || []) {
    if (ev.seat !== S.seat || S.seat === null) continue;
    if (ev.type === "exchange_received") S.received = Array.isArray(ev.tiles) ? [...ev.tiles] : parseTiles(ev.tiles);
    else if (ev.type === "discard") S.received = [];
  }
}

// the suit 定缺 offers first: the legal one with the fewest tiles in hand
export function shortestSuit(tiles, dq) {
  const counts = { m: 0, p: 0, s: 0 };
  for (const x of tiles) counts[x[1]]++;
  const suits = ["m", "p", "s"].filter((s) => dq.some((a) => a.suit === s));
  return suits.length ? suits.reduce((a, b) => (counts[b] < counts[a] ? b : a)) : null;
}

export function renderMine() {
  const v = S.view;
  const hand = $("hand");
  const actions = $("actions");
  const prompt = $("prompt");
  if (!v) {
    hand.replaceChildren(); actions.replaceChildren(); $("my-melds").replaceChildren(); $("my-plate").replaceChildren();
    prompt.hidden = true;
    renderWaits(null);
    if (S.replay) renderReplayControls();
    return;
  }
  const me = base();
  const sv = v.seats[me];
  $("my-plate").replaceChildren(plate(me, sv), wonTiles(me) || "");
  $("my-melds").replaceChildren(...sv.melds.map((m) => meldNode(m)));
  const acts = mineToPlay() && !S.trustee ? legal() : [];
  const done = answered();
  const discards = new Set(acts.filter((a) => a.type === "discard").map((a) => a.tile));
  const exchanging = !done && acts.some((a) => a.type === "exchange");
  const canDiscard = !done && discards.size > 0;
  const { tiles, drawn, hidden } = myTiles();
  if (S.sel !== null && (!canDiscard || !discards.has(tiles[S.sel]))) S.sel = null;
  const received = {};
  if (mineToPlay() && !S.replay) for (const x of S.received || []) received[x] = (received[x] || 0) + 1;
  const hinted = S.hint && S.hint.choices && S.hint.choices[0] && S.hint.choices[0].action.type === "discard" ? S.hint.choices[0].action.tile : null;
  const buttons = tiles.map((x, idx) => {
    const cls = ["tile-btn"];
    const playable = (canDiscard && discards.has(x)) || exchanging;
    if (sv.void && x[1] === sv.void) cls.push("void");
    if (playable) cls.push("playable");
    if (drawn && idx === tiles.length - 1) cls.push("new");
    if ((canDiscard && S.sel === idx) || (exchanging && S.exch.includes(idx))) cls.push("selected");
    if (hinted === x && canDiscard) cls.push("hinted");
    const got = received[x] > 0;
    if (got) { received[x]--; cls.push("received"); }
    const words = got ? t("hand.received", { tile: tileWords(x) }) : tileWords(x);
    const button = el("button", { type: "button", class: cls.join(" "), dataset: got ? { tile: x, received: "true" } : { tile: x }, "aria-label": words,
      "aria-pressed": cls.includes("selected") ? "true" : null, disabled: !playable || undefined,
      on: { click: () => tapTile(idx, x, tiles, acts) } }, tileImg(x, "", true));
    if (canDiscard && discards.has(x)) markWaits(button, x);
    return button;
  });
  renderWaits(canDiscard && S.sel !== null ? tiles[S.sel] : null);
  for (let k = 0; k < hidden; k++) {
    buttons.push(el("span", { class: "tile-btn back", dataset: { tile: "back" }, role: "img", "aria-label": tileWords("back") }, tileImg("back", "", true)));
  }
  hand.replaceChildren(...buttons);
  hand.classList.toggle("choosing", canDiscard || exchanging);

  // the buttons of the current decision, each marked with its action
  const out = [];
  const dq = done ? [] : acts.filter((a) => a.type === "dingque");
  let promptText = "";
  if (dq.length) {
    const counts = { m: 0, p: 0, s: 0 };
    for (const x of tiles) counts[x[1]]++;
    const pre = shortestSuit(tiles, dq);
    promptText = pre ? t("prompt.dingque_preselected", { suit: t(`suit.${pre}`) }) : t("prompt.dingque");
    for (const s of ["m", "p", "s"]) {
      const ok = dq.some((a) => a.suit === s);
      const mark = s === pre ? { action: "dingque", suit: s, preselected: "true" } : { action: "dingque", suit: s };
      out.push(el("button", { class: "act dingque suit" + (s === pre ? " preselected primary" : ""), dataset: mark,
        "aria-pressed": s === pre ? "true" : null, disabled: !ok || undefined,
        on: { click: () => sendAction({ type: "dingque", suit: s }) } },
      tileImg(`5${s}`), el("span", { text: t(`suit.${s}`) }), el("small", { text: t("prompt.tiles", { count: counts[s] }) })));
    }
  } else if (exchanging) {
    const chosen = S.exch.map((idx) => tiles[idx]);
    const match = chosen.length === 3 ? acts.find((a) => a.type === "exchange" && a.tiles === compact(chosen)) : null;
    promptText = t("prompt.exchange", { count: chosen.length });
    out.push(el("button", { id: "exchange-suggest", class: "ghost", text: t("prompt.suggest"), on: { click: () => suggestExchange(tiles, acts) } }));
    out.push(el("button", { class: "act exchange primary", dataset: { action: "exchange" }, disabled: !match || undefined,
      on: { click: () => { if (match) sendAction({ type: "exchange", tiles: match.tiles }); } } }, term("action", "exchange")));
  } else if (!done) {
    for (const a of acts) {
      if (a.type === "hu") out.push(actButton(a));
      else if (a.type === "gang") out.push(actButton(a, a.tile));
      else if (a.type === "peng") out.push(actButton(a, v.offered));
      else if (a.type === "pass") out.push(actButton(a));
    }
    if (canDiscard) {
      promptText = S.sel === null ? t("prompt.discard") : t("prompt.discard_again", { tile: tileWords(tiles[S.sel]) });
      out.push(el("button", { class: "act discard", dataset: { action: "discard" }, disabled: S.sel === null || undefined,
        on: { click: () => { if (S.sel !== null) sendAction({ type: "discard", tile: tiles[S.sel] }); } } },
      term("action", "discard"), S.sel !== null ? tileImg(tiles[S.sel]) : null));
    }
  }
  const clock = mineToPlay() && !done && myDeadline() !== null ? el("span", { class: "my-clock", id: "my-clock" }, el("span", { class: "bar" }, el("span")), el("b")) : null;
  actions.replaceChildren(...out, clock || "");
  actions.hidden = out.length === 0 && !clock;
  prompt.hidden = !promptText && !S.replay && !betweenOnTable();
  prompt.replaceChildren(promptText ? el("span", { text: promptText }) : "");
  if (betweenOnTable()) {
    const ready = S.room.seats[S.seat] && S.room.seats[S.seat].ready;
    prompt.append(
      el("button", { class: "ghost", text: t("settle.show"), on: { click: () => { S.lookAtTable = false; call("render"); } } }),
      el("button", { id: "next-hand", class: "primary", text: ready ? t("settle.waiting") : t("settle.next"),
        disabled: ready || undefined, on: { click: () => send({ type: "ready" }) } }));
  }
  if (S.replay) renderReplayControls();
}

export function betweenOnTable() {
  return !S.replay && S.room && S.room.status === "between" && S.lookAtTable && S.seat !== null;
}

export function tapTile(idx, tile, tiles, acts) {
  if (answered()) return;
  if (acts.some((a) => a.type === "exchange")) { toggleExchange(idx, tiles); return; }
  if (S.sel === idx) { sendAction({ type: "discard", tile }); return; }
  S.sel = idx;
  call("render");
}

export function toggleExchange(idx, tiles) {
  const k = S.exch.indexOf(idx);
  if (k >= 0) S.exch.splice(k, 1);
  else {
    const suit = tiles[idx][1];
    S.exch = S.exch.filter((i) => tiles[i] && tiles[i][1] === suit);
    if (S.exch.length >= 3) S.exch.shift();
    S.exch.push(idx);
  }
  call("render");
}

export function suggestExchange(tiles, acts) {
  const counts = { m: 0, p: 0, s: 0 };
  for (const x of tiles) counts[x[1]]++;
  const suits = ["m", "p", "s"].filter((s) => counts[s] >= 3).sort((a, b) => counts[a] - counts[b]);
  const pick = suits.length ? acts.find((a) => a.type === "exchange" && a.tiles.endsWith(suits[0])) : null;
  if (!pick) return;
  const sel = [];
  for (const x of parseTiles(pick.tiles)) {
    const idx = tiles.findIndex((y, i) => y === x && !sel.includes(i));
    if (idx >= 0) sel.push(idx);
  }
  S.exch = sel;
  call("render");
}

export function actButton(action, tile) {
  const payload = { type: action.type };
  if (action.tile) payload.tile = action.tile;
  return el("button", { class: `act ${action.type}`, dataset: { action: action.type }, on: { click: () => sendAction(payload) } },
    term("action", action.type), tile ? tileImg(tile) : "");
}
