// The lobby: tiers, tournaments, public rooms, your finished hands, creating and joining rooms, and the queue
// (POST/DELETE /api/queue; the lobby socket /ws/lobby says where the queue seated you).

import { refreshMe } from "./account.js";
import { api, errCode } from "./api.js";
import { $, confirmBox, el, signed, toast } from "./dom.js";
import { call } from "./hooks.js";
import { errText, I18N, t } from "./i18n.js";
import { S } from "./state.js";
import { loadTournaments } from "./tournaments.js";

export async function loadTiers() {
  if (S.tiers !== null) return;
  const r = await api("GET", "/api/tiers");
  S.tiers = r.ok && r.data && Array.isArray(r.data.tiers) ? r.data.tiers : [];
}

export function affordable(tier) { return !S.me || typeof S.me.coins !== "number" || S.me.coins >= (tier.min_balance || 0); }
// a tier whose worst hand the balance covers: no stake warning there

export function safe(tier) { return affordable(tier) && (!S.me || typeof tier.max_loss !== "number" || S.me.coins >= tier.max_loss); }

export function renderTiers() {
  const box = $("tier-list");
  const tiers = S.tiers || [];
  $("tier-box").hidden = tiers.length === 0;
  $("room-tier-label").hidden = tiers.length === 0;
  for (const id of ["room-n-label", "room-a-label"]) $(id).hidden = tiers.length > 0;
  if (!tiers.length) return;
  if (!S.tier || !tiers.some((x) => x.id === S.tier)) {
    const ok = tiers.filter(safe).length ? tiers.filter(safe) : tiers.filter(affordable);
    S.tier = (ok.length ? ok[ok.length - 1] : tiers[0]).id;
  }
  box.replaceChildren(...tiers.map((x) => el("button", {
    type: "button", class: "tier" + (x.id === S.tier ? " chosen" : ""), role: "radio",
    "aria-checked": x.id === S.tier ? "true" : "false", dataset: { tier: x.id },
    on: { click: () => { S.tier = x.id; renderTiers(); } } },
  el("b", { text: x.name }),
  el("small", { text: t("tier.line", { min: x.min_balance, base: x.base_score, n: x.coefficient }) }),
  el("small", { class: affordable(x) ? "muted" : "neg", text: affordable(x) ? t("tier.max_loss", { count: x.max_loss || 0 }) : t("tier.too_poor", { count: x.min_balance }) }))));
  const sel = $("room-tier");
  sel.replaceChildren(...tiers.map((x) => el("option", { value: x.id, text: x.name })));
  sel.value = S.tier;
}

export async function loadLobby() {
  const me = await refreshMe();
  if (!me) { call("route"); return; }
  await loadTiers();
  renderTiers();
  $("guest-note").hidden = !me.guest;
  const back = $("back-to-table");
  back.hidden = S.tables.length === 0;
  back.replaceChildren(...S.tables.map((code) => el("button", { class: "primary", text: t("lobby.back_to_table", { code }),
    on: { click: () => { location.hash = `#/t/${code}`; } } })));
  loadTournaments();
  const rooms = await api("GET", "/api/rooms");
  const list = (rooms.ok && rooms.data.rooms) || [];
  $("rooms-empty").hidden = list.length > 0;
  $("rooms-list").replaceChildren(...list.map((room) => el("li", { class: "room-item" },
    el("div", { class: "room-head" }, el("b", { text: room.name }), " ", el("span", { class: "code", text: room.code })),
    el("div", { class: "muted", text: t("lobby.room_line", { rules: room.rules, n: room.coefficient, fee: room.fee,
      hand: room.hand_no || 0, hands: room.hands || 0 }) + (room.tier ? " · " + tierName(room.tier) : "")
      + (room.items ? " · " + t("items.badge") : "") }),
    el("div", { class: "muted", text: (room.seats || []).map((s) => (s.name ? (s.bot ? t("seat.bot") : s.name) : "·")).join(" / ") }),
    el("div", { class: "row" },
      el("button", { text: t("lobby.join"), on: { click: () => { location.hash = `#/t/${room.code}`; } } }),
      el("button", { class: "ghost", text: t("lobby.watch"), on: { click: () => { location.hash = `#/t/${room.code}/watch`; } } })))));
  const hist = await api("GET", "/api/history");
  const hands = hist.ok ? (Array.isArray(hist.data) ? hist.data : hist.data.hands || []) : [];
  $("history-empty").hidden = hands.length > 0;
  $("history-list").replaceChildren(...hands.map((h) => {
    const delta = h.delta !== undefined ? h.delta : h.coins;
    const when = h.at || h.finished_at;
    return el("li", { class: "hist-item" },
      el("span", { class: "code", text: h.room }),
      el("span", { text: t("history.hand", { n: h.hand_no }) }),
      el("span", { class: "num " + (delta > 0 ? "pos" : delta < 0 ? "neg" : ""), text: typeof delta === "number" ? signed(delta) : "" }),
      el("span", { class: "muted", text: when ? new Date(when).toLocaleString(I18N.lang) : "" }),
      // a bystander's bet (no seat) has no seat's view to replay
      h.id !== undefined && h.id !== null && h.seat !== null
        ? el("button", { class: "ghost small", dataset: { replay: h.id }, text: t("history.replay"),
          on: { click: () => { location.hash = `#/history/${h.id}`; } } }) : null);
  }));
}

export function tierName(id) {
  const x = (S.tiers || []).find((y) => y.id === id);
  return x ? x.name : id;
}

// POST a room (or quickstart): a stake the balance cannot cover is asked about first.
export async function postRoom(path, body) {
  const r = await postChecked(path, body);
  if (!r) return;
  const code = r.data.code;
  if (/^\d{6}$/.test(code)) {
    // a friends' room: its link goes to the clipboard, to pass on
    const link = `${location.origin}/r/${code}`;
    try { await navigator.clipboard.writeText(link); } catch (e) { /* shown below all the same */ }
    toast(t("room.friends_link", { code, link }), "info");
  }
  location.hash = `#/t/${code}`;
}

// POST with the stake warning asked about; the answer, or null after a refusal (shown).
async function postChecked(path, body) {
  let r = await api("POST", path, body);
  if (!r.ok && r.status === 409 && errCode(r) === "stake_warning") {
    const yes = await confirmBox(t("stake.title"), errText(r), "stake.accept");
    if (!yes) return null;
    r = await api("POST", path, { ...body, accept_risk: true });
  }
  if (!r.ok) { toast(errText(r)); return null; }
  return r;
}

// 血战 with 换三张 (the dice choose the direction) unless the lobby's box is unticked
function quickChoice() {
  const body = { preset: $("quick-preset").value };
  if (S.tiers && S.tiers.length && S.tier) body.tier = S.tier;
  return { body, exchange: $("quick-exchange").checked };
}

export function quickstart() {
  const { body, exchange } = quickChoice();
  postRoom("/api/quickstart", { ...body, options: { exchange_three: exchange ? "random" : "none" } });
}

// --- the queue -------------------------------------------------------------------------------

const Q = { since: 0, ws: null, poll: null, tick: null };

export async function joinQueue() {
  const { body, exchange } = quickChoice();
  const r = await postChecked("/api/queue", { ...body, exchange_three: exchange });
  if (!r) return;
  Q.since = performance.now();
  listenQueue();
  renderQueue();
}

export async function leaveQueue() {
  const was = Q.since > 0;
  stopQueue();
  renderQueue();
  if (was) await api("DELETE", "/api/queue");
}

function stopQueue() {
  Q.since = 0;
  if (Q.ws) { const ws = Q.ws; Q.ws = null; ws.close(); }
  clearInterval(Q.poll);
  clearInterval(Q.tick);
  Q.poll = null;
  Q.tick = null;
}

function seatedAt(code) {
  stopQueue();
  renderQueue();
  location.hash = `#/t/${code}`;
}

// the lobby socket tells where the queue seats you; GET /api/queue is asked too while it is down
function listenQueue() {
  if (Q.ws) return;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/lobby`);
  Q.ws = ws;
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if (msg.type === "matched" && msg.table && Q.since > 0) seatedAt(msg.table);
  };
  ws.onclose = () => { if (Q.ws === ws) Q.ws = null; };
  if (Q.poll === null) {
    Q.poll = setInterval(async () => {
      if (Q.since === 0 || (Q.ws && Q.ws.readyState === WebSocket.OPEN)) return;
      const q = await api("GET", "/api/queue");
      if (!q.ok || Q.since === 0) return;
      if (q.data.table) seatedAt(q.data.table);
      else if (!q.data.queued) { stopQueue(); renderQueue(); }
      else if (!Q.ws) listenQueue();
    }, 2000);
  }
  if (Q.tick === null) Q.tick = setInterval(renderQueue, 1000);
}

export function renderQueue() {
  const waiting = Q.since > 0;
  $("queue-status").hidden = !waiting;
  $("queue-btn").disabled = waiting;
  $("quickstart").disabled = waiting;
  if (waiting) $("queue-text").textContent = t("queue.waiting", { seconds: Math.floor((performance.now() - Q.since) / 1000) });
}

// back in the lobby (a reload, another tab): still queued on the server, so waiting here too
export async function resumeQueue() {
  renderQueue();
  if (Q.since > 0) return;
  const q = await api("GET", "/api/queue");
  if (!q.ok || Q.since > 0 || $("lobby-view").hidden) return;
  if (q.data.queued) {
    Q.since = performance.now();
    listenQueue();
    renderQueue();
  }
}

// out of the lobby: out of the queue (no table is found for someone who went elsewhere)
export function leftLobby() { if (Q.since > 0) leaveQueue(); }

export function initQueue() {
  $("queue-btn").addEventListener("click", joinQueue);
  $("queue-cancel").addEventListener("click", leaveQueue);
}

export function createRoom(ev) {
  ev.preventDefault();
  const options = { exchange_three: $("room-exchange").value };
  if ($("room-blood-river").checked) options.blood_river = true;
  if (!$("room-dingque").checked) options.dingque = false;
  const body = {
    name: $("room-name").value, preset: $("room-preset").value, options,
    coefficient: Number($("room-n").value), fee: Number($("room-a").value), hands: Number($("room-hands").value),
    public: $("room-public").checked,
  };
  if ($("room-items").checked) body.items = true;
  if (S.tiers && S.tiers.length) {
    // in a tiered lobby the stake (N and A) is the tier's
    body.tier = $("room-tier").value;
    delete body.coefficient;
    delete body.fee;
  }
  postRoom("/api/rooms", body);
}

export async function joinByCode(ev, watch) {
  if (ev) ev.preventDefault();
  $("join-error").textContent = "";
  const code = $("join-code").value.trim().toUpperCase();
  if (!code) return;
  const r = await api("GET", `/api/rooms/${encodeURIComponent(code)}`);
  if (!r.ok) { $("join-error").textContent = errText(r); return; }
  location.hash = `#/t/${code}` + (watch ? "/watch" : "");
}
