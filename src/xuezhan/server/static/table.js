// Drawing the table: the bar, the waiting room, the opponents (their plates and melds: seats.js), the rivers, the
// compass; and the whole table at once (renderAll), with the parts the modules below draw. The modules below
// draw it again through the hook "render" (hooks.js), which main.js provides with renderAll.

import { renderClocks } from "./clocks.js";
import { $, el, parseTiles, tileImg } from "./dom.js";
import { renderMine } from "./hand.js";
import { renderHint } from "./hint.js";
import { t, term } from "./i18n.js";
import { renderItems } from "./items.js";
import { renderJiaoMa } from "./jiaoma.js";
import { seatInfo, seatName } from "./log.js";
import { golden, meldNode, plate, rel, wonTiles } from "./seats.js";
import { renderDialogs } from "./settlement.js";
import { send } from "./socket.js";
import { answered, S } from "./state.js";

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
