// 血战到底: the browser client. Plain JavaScript, no build step, no third-party code.
// The server is authoritative: this page shows the view it is sent and offers only the
// legal actions listed in it. Text from other players is always set as text, never as HTML.
"use strict";

const SUIT_NAMES = { m: "万", p: "筒", s: "条" };
const SUIT_EN = { m: "characters", p: "dots", s: "bamboo" };
const WINDS = "东南西北";
// Names of patterns, extras, ledger reasons, actions and error codes come from the server's one
// vocabulary (GET /api/vocab), never from tables of this page. Chinese (zh-CN) unless the player chose
// another of its languages.
const VOCAB = { langs: ["zh-CN"], default: "zh-CN", kinds: {} };
let LANG = "zh-CN";

async function loadVocab() {
  const r = await api("GET", "/api/vocab");
  if (r.ok && r.data && r.data.kinds) Object.assign(VOCAB, r.data);
  let chosen = null;
  try { chosen = localStorage.getItem("xz_lang"); } catch (e) { /* storage blocked */ }
  LANG = VOCAB.langs.includes(chosen) ? chosen : VOCAB.default;
}

function term(kind, id, lang) {
  const names = VOCAB.kinds[kind] && VOCAB.kinds[kind][id];
  if (!names) return id;
  return names[lang || LANG] || names[VOCAB.default] || id;
}

function errorWords(code, message) {
  const name = code ? term("error", code) : "";
  if (name && name !== code) return message ? `${name}: ${message}` : name;
  return message || code || "error";
}

const S = {
  me: null, code: null, watch: false,
  ws: null, wsWanted: false, retry: 0, replaced: false,
  seat: null, room: null, view: null, version: 0, handNo: 0,
  timer: null, timerAt: 0, trustee: false,
  lastDiscardSeat: null, selected: [], decision: null, answered: null,
  handEnd: null, lookAtTable: false, matchEnd: null,
};

// --- small helpers ------------------------------------------------------------------------------
const $ = (id) => document.getElementById(id);

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? "" : v);
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function tileImg(name, cls) {
  return el("img", { class: "tile" + (cls ? " " + cls : ""), src: `/tiles/${name}.svg`, alt: name, draggable: "false",
    dataset: { tile: name } });
}

function parseTiles(text) {
  const out = [];
  let digits = [];
  for (const ch of text || "") {
    if (ch >= "1" && ch <= "9") digits.push(ch);
    else if ("mps".includes(ch)) { for (const d of digits) out.push(d + ch); digits = []; }
  }
  return out;
}

function compact(tiles) {
  const bySuit = { m: [], p: [], s: [] };
  for (const t of tiles) bySuit[t[1]].push(t[0]);
  return ["m", "p", "s"].filter((s) => bySuit[s].length).map((s) => bySuit[s].sort().join("") + s).join("");
}

function toast(text, kind) {
  const node = el("div", { class: "toast" + (kind ? " " + kind : ""), text });
  $("toasts").append(node);
  setTimeout(() => node.remove(), 4200);
}

async function api(method, path, body) {
  const opts = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    return { ok: false, status: 0, data: { error: { code: "offline", message: "the server cannot be reached" } } };
  }
  let data = {};
  try { data = await res.json(); } catch (e) { /* empty body */ }
  return { ok: res.ok, status: res.status, data };
}

function errText(r) {
  const e = r.data && r.data.error;
  return e ? errorWords(e.code, e.message) : `error ${r.status}`;
}

function showView(name) {
  for (const v of ["login-view", "lobby-view", "table-view"]) $(v).hidden = v !== name;
}

function setMe(account) {
  S.me = account;
  $("whoami").hidden = !account;
  if (account) {
    $("me-name").textContent = account.nickname;
    $("me-coins").textContent = account.balance.toLocaleString();
  }
}

// --- routing --------------------------------------------------------------------------------------
async function route() {
  const hash = location.hash || "#/";
  if (!S.me) {
    const r = await api("GET", "/api/me");
    if (r.ok && r.data.account) setMe(r.data.account);
  }
  if (!S.me) {
    disconnect();
    showView("login-view");
    $("nickname").focus();
    return;
  }
  const m = hash.match(/^#\/t\/([A-Za-z0-9]{1,12})(\/watch)?$/);
  if (m) {
    openTable(m[1].toUpperCase(), !!m[2]);
  } else {
    disconnect();
    showView("lobby-view");
    loadLobby();
  }
}

// --- login and lobby -----------------------------------------------------------------------------------
async function login(ev) {
  ev.preventDefault();
  $("login-error").textContent = "";
  const r = await api("POST", "/api/login", { nickname: $("nickname").value });
  if (!r.ok) { $("login-error").textContent = errText(r); return; }
  setMe(r.data.account);
  route();
}

async function logout() {
  await api("POST", "/api/logout");
  disconnect();
  setMe(null);
  location.hash = "#/";
  route();
}

async function refreshMe() {
  const r = await api("GET", "/api/me");
  if (r.ok && r.data.account) setMe(r.data.account);
}

function seatsSummary(seats) {
  return seats.map((s) => (s.name ? (s.bot ? "bot" : s.name) : "·")).join(" / ");
}

async function loadLobby() {
  const me = await api("GET", "/api/me");
  if (me.ok && me.data.account) setMe(me.data.account);
  const back = $("back-to-table");
  const seated = (me.ok && me.data.tables) || [];
  back.hidden = seated.length === 0;
  back.replaceChildren(...seated.map((code) => el("button", { class: "primary", text: `Back to your table ${code}`,
    on: { click: () => { location.hash = `#/t/${code}`; } } })));
  const rooms = await api("GET", "/api/rooms");
  const body = $("rooms-table").querySelector("tbody");
  body.replaceChildren();
  const list = (rooms.ok && rooms.data.rooms) || [];
  $("rooms-empty").hidden = list.length > 0;
  for (const room of list) {
    const opts = Object.keys(room.options || {}).length ? " +" + Object.keys(room.options).join(", ") : "";
    body.append(el("tr", null,
      el("td", null, el("b", { text: room.name }), " ", el("span", { class: "code", text: room.code })),
      el("td", { text: room.rules + opts }),
      el("td", { text: `${room.coefficient} / ${room.fee}` }),
      el("td", { text: `${room.hand_no} / ${room.hands}` }),
      el("td", { text: seatsSummary(room.seats) }),
      el("td", null,
        el("button", { text: "Join", on: { click: () => { location.hash = `#/t/${room.code}`; } } }), " ",
        el("button", { class: "ghost", text: "Watch", on: { click: () => { location.hash = `#/t/${room.code}/watch`; } } })),
    ));
  }
  const hist = await api("GET", "/api/history");
  const hbody = $("history-table").querySelector("tbody");
  hbody.replaceChildren();
  const hands = (hist.ok && hist.data.hands) || [];
  $("history-empty").hidden = hands.length > 0;
  for (const h of hands) {
    const when = h.finished_at ? new Date(h.finished_at).toLocaleString() : "";
    hbody.append(el("tr", null,
      el("td", { class: "code", text: h.room }), el("td", { text: h.hand_no }),
      el("td", { class: "num " + (h.points > 0 ? "pos" : h.points < 0 ? "neg" : ""), text: signed(h.points) }),
      el("td", { class: "num", text: h.fee }),
      el("td", { class: "num " + (h.coins > 0 ? "pos" : h.coins < 0 ? "neg" : ""), text: signed(h.coins) }),
      el("td", { class: "muted", text: when })));
  }
}

function signed(n) { return n > 0 ? "+" + n.toLocaleString() : n.toLocaleString(); }

async function quickstart() {
  const r = await api("POST", "/api/quickstart", { preset: $("quick-preset").value });
  if (!r.ok) { toast(errText(r)); return; }
  location.hash = `#/t/${r.data.code}`;
}

async function createRoom(ev) {
  ev.preventDefault();
  $("create-error").textContent = "";
  const options = { exchange_three: $("room-exchange").value };
  if ($("room-blood-river").checked) options.blood_river = true;
  if (!$("room-dingque").checked) options.dingque = false;
  const body = {
    name: $("room-name").value, preset: $("room-preset").value, options,
    coefficient: Number($("room-n").value), fee: Number($("room-a").value), hands: Number($("room-hands").value),
    public: $("room-public").checked,
  };
  const r = await api("POST", "/api/rooms", body);
  if (!r.ok) { $("create-error").textContent = errText(r); return; }
  location.hash = `#/t/${r.data.code}`;
}

async function joinByCode(ev, watch) {
  if (ev) ev.preventDefault();
  $("join-error").textContent = "";
  const code = $("join-code").value.trim().toUpperCase();
  if (!code) return;
  const r = await api("GET", `/api/rooms/${encodeURIComponent(code)}`);
  if (!r.ok) { $("join-error").textContent = errText(r); return; }
  location.hash = `#/t/${code}` + (watch ? "/watch" : "");
}

// --- the websocket ----------------------------------------------------------------------------------------
function openTable(code, watch) {
  showView("table-view");
  if (S.code === code && S.watch === watch && S.ws) return;
  disconnect();
  Object.assign(S, { code, watch, seat: null, room: null, view: null, version: 0, handEnd: null, matchEnd: null,
    timer: null, trustee: false, selected: [], replaced: false, lookAtTable: false });
  $("log").replaceChildren();
  closeDialogs();
  S.wsWanted = true;
  S.retry = 0;
  connect();
  renderAll();
}

function connect() {
  if (!S.wsWanted) return;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/${S.code}` + (S.watch ? "?watch=1" : ""));
  S.ws = ws;
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    onMessage(msg);
  };
  ws.onclose = (ev) => {
    if (S.ws !== ws) return;
    S.ws = null;
    if (ev.code === 4401) { S.wsWanted = false; setMe(null); route(); return; }
    if (ev.code === 4404) { S.wsWanted = false; toast("No open room has that code."); location.hash = "#/"; return; }
    if (ev.code === 4000) { S.wsWanted = false; S.replaced = true; renderAll(); return; }
    if (S.wsWanted) {
      const delay = Math.min(5000, 250 * 2 ** S.retry++);
      setTimeout(connect, delay);
      renderAll();
    }
  };
}

function disconnect() {
  S.wsWanted = false;
  if (S.ws) { const ws = S.ws; S.ws = null; ws.close(); }
  S.code = null;
}

function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(msg));
}

function answered() { return S.decision === null || S.decision === S.answered; }

function sendAction(action) {
  if (answered()) return; // one answer per decision
  S.answered = S.decision;
  send({ type: "action", action, version: S.version });
}

function onMessage(msg) {
  switch (msg.type) {
    case "hello":
      S.retry = 0;
      S.seat = msg.seat;
      break;
    case "room": {
      const before = S.room && S.room.status;
      S.room = msg.room;
      if (msg.room.status === "playing" && before !== "playing") { S.handEnd = null; closeDialogs(); }
      break;
    }
    case "state":
      if (msg.reset) { $("log").replaceChildren(); S.lastDiscardSeat = null; S.selected = []; }
      if (msg.hand_no !== S.handNo) S.lookAtTable = false;
      S.handNo = msg.hand_no;
      S.view = msg.view;
      S.version = msg.version;
      S.decision = msg.decision;
      S.timer = msg.timer;
      S.timerAt = performance.now();
      S.trustee = msg.trustee;
      for (const ev of msg.events) logEvent(ev);
      break;
    case "hand_end":
      S.handEnd = msg;
      refreshMe();
      break;
    case "match_end":
      S.matchEnd = msg;
      break;
    case "error":
      if (msg.code === "stale") break;
      toast(errorWords(msg.code, msg.message));
      S.answered = null;
      break;
    default:
      break;
  }
  renderAll();
}

// --- names and the log -------------------------------------------------------------------------------------
function seatName(i, possessive) {
  if (i === null || i === undefined) return "?";
  if (i === S.seat) return possessive ? "your" : "You";
  const s = S.room && S.room.seats[i];
  return (s && s.name) || `Seat ${i}`;
}

function logLine(cls, ...parts) {
  const li = el("li", { class: cls || "" }, ...parts);
  const log = $("log");
  log.append(li);
  while (log.children.length > 300) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function logEvent(ev) {
  const who = seatName(ev.seat);
  switch (ev.type) {
    case "start": logLine("", `Hand ${S.handNo || ""} dealt: ${seatName(ev.dealer)} deal${ev.dealer === S.seat ? "" : "s"} (庄).`); break;
    case "exchange": if (ev.tiles) logLine("mine", "You pass ", ...parseTiles(ev.tiles).map((t) => tileImg(t))); break;
    case "exchange_received": if (ev.tiles) logLine("mine", "You receive ", ...parseTiles(ev.tiles).map((t) => tileImg(t))); break;
    case "exchange_done": logLine("", `${term("action", "exchange")}: the tiles have been passed.`); break;
    case "dingque":
      logLine("", `${term("action", "dingque")}: ` + ev.voids.map((v, i) => `${seatName(i)} ${v ? SUIT_NAMES[v] : "–"}`).join(", "));
      break;
    case "draw": if (ev.tile && ev.seat === S.seat) logLine("mine", "You draw ", tileImg(ev.tile)); break;
    case "discard": S.lastDiscardSeat = ev.seat; logLine("", `${who} discard${ev.seat === S.seat ? "" : "s"} `, tileImg(ev.tile)); break;
    case "peng": logLine("", `${who} ${term("action", "peng")} `, tileImg(ev.tile), ` from ${seatName(ev.from).replace(/^You$/, "you")}`); break;
    case "zhigang": logLine("", `${who} ${term("event", "zhigang")} `, tileImg(ev.tile), ` from ${seatName(ev.from).replace(/^You$/, "you")}`); break;
    case "angang": logLine("", `${who} ${term("event", "angang")} `, ev.tile ? tileImg(ev.tile) : ""); break;
    case "bugang_declared": logLine("", `${who} adds to a peng: `, tileImg(ev.tile)); break;
    case "bugang": logLine("", `${who} ${term("event", "bugang")} `, tileImg(ev.tile)); break;
    case "hu": {
      const how = ev.from === null || ev.from === undefined ? term("reason", "zimo") : `on ${seatName(ev.from, true)}${ev.from === S.seat ? "" : "'s"} tile`;
      const extras = Object.entries(ev.extras || {}).filter(([, n]) => n).map(([k, n]) => term("extra", k) + (n > 1 ? `×${n}` : ""));
      logLine("win", `${who} ${term("action", "hu")} ${how} `, tileImg(ev.tile), ` ${term("pattern", ev.base)}${extras.length ? " + " + extras.join(" ") : ""} · ${ev.fan} fan ×${ev.multiple}`);
      break;
    }
    case "pay": logLine("pay", `${seatName(ev.from)} → ${seatName(ev.to)} ${ev.points} (${term("reason", ev.reason)})`); break;
    case "pass_hu": logLine("mine", `${term("event", "pass_hu")}: you passed on a win with `, tileImg(ev.tile), "; no win on it until your next draw."); break;
    case "wall_empty": logLine("", `The wall is empty (${term("event", "wall_empty")}): ${["hua_zhu", "cha_jiao", "tui_shui"].map((r) => term("reason", r)).join(", ")}.`); break;
    case "escape": logLine("", `${who} left the hand (${term("reason", "escape")}).`); break;
    case "end": logLine("", "The hand is over."); break;
    default: break;
  }
}

// --- rendering ------------------------------------------------------------------------------------------------
function base() { return S.seat === null || S.seat === undefined ? 0 : S.seat; }
function rel(seat) { return (seat - base() + 4) % 4; }

function renderAll() {
  if ($("table-view").hidden) return;
  renderSide();
  renderWaiting();
  renderTable();
  renderDialogs();
}

function renderSide() {
  const room = S.room;
  $("room-name-label").textContent = room ? room.name : "…";
  $("room-code-label").textContent = S.code || "";
  if (room) {
    const opts = Object.entries(room.rules.options || {}).map(([k, v]) => `${k}=${v}`).join(", ");
    $("room-rules-label").textContent = `${room.rules.preset} rules${opts ? " (" + opts + ")" : ""} · base ${room.base_score} · N ${room.coefficient} · A ${room.fee}`;
    let status = `Hand ${room.hand_no} of ${room.hands}`;
    if (room.status === "waiting") status = "Waiting for players";
    if (room.status === "finished") status = `Match over after ${room.hands} hands`;
    if (S.seat === null) status += " · watching";
    if (!S.ws && S.wsWanted) status += " · reconnecting…";
    if (S.replaced) status += " · opened in another window";
    $("room-hand-label").textContent = status;
  }
  $("trustee-on").hidden = S.seat === null || !room || room.status !== "playing" || S.trustee;
  $("leave-btn").textContent = S.seat === null ? "Back to lobby" : "Leave 离开";
  $("trustee-banner").hidden = !S.trustee || S.seat === null;
}

function renderWaiting() {
  const panel = $("waiting-panel");
  const room = S.room;
  const canSit = S.seat === null && room && room.status !== "playing" && room.seats.some((s) => !s.name || s.bot);
  if (!room || (room.status !== "waiting" && !(canSit && !S.handEnd))) { panel.hidden = true; return; }
  panel.hidden = false;
  panel.replaceChildren(
    el("div", { class: "muted", text: "Room code 房号 — share it with friends" }),
    el("div", { class: "big-code", text: room.code }),
    el("div", { class: "seat-list" }, room.seats.map((s) => el("div", { class: "seat-slot" },
      el("div", null, el("b", { text: `Seat ${s.seat + 1}` })),
      s.name ? el("div", { text: s.name + (s.connected === false && !s.bot ? " (away)" : "") })
        : el("div", { class: "muted", text: "empty — a bot plays if nobody sits" }),
      S.seat === null && (!s.name || s.bot) && room.status !== "playing"
        ? el("button", { text: "Sit here", dataset: { sit: s.seat }, on: { click: () => send({ type: "sit", seat: s.seat }) } }) : null,
    ))),
    S.seat !== null && room.status === "waiting"
      ? el("button", { id: "start-btn", class: "primary big", text: "Start 开始 (bots fill empty seats)", on: { click: () => send({ type: "start" }) } })
      : el("div", { class: "muted", text: S.seat === null ? "You are watching. Sit down to play." : "" }),
  );
}

function plate(i, seatView, vertical) {
  const info = S.room ? S.room.seats[i] : null;
  const v = S.view;
  const dealer = v && v.dealer === i;
  const windIdx = v ? (i - v.dealer + 4) % 4 : i;
  const badges = [];
  if (dealer) badges.push(el("span", { class: "badge dealer", text: "庄" }));
  if (seatView && seatView.void) badges.push(el("span", { class: `badge void-${seatView.void}`, text: `缺${SUIT_NAMES[seatView.void]}` }));
  if (seatView && seatView.won) badges.push(el("span", { class: "badge won", text: term("action", "hu") + (seatView.wins > 1 ? `×${seatView.wins}` : "") }));
  if (seatView && seatView.escaped) badges.push(el("span", { class: "badge escaped", text: term("reason", "escape") }));
  if (info && info.trustee) badges.push(el("span", { class: "badge trustee", text: "托管" }));
  if (info && !info.bot && info.name && info.connected === false) badges.push(el("span", { class: "badge off", text: "away" }));
  if (info && info.ready && S.room.status === "between") badges.push(el("span", { class: "badge ready", text: "ready" }));
  const turn = v && v.phase === "turn" && v.turn === i;
  return el("div", { class: "plate" + (turn ? " turn" : "") + (vertical ? " vertical" : ""), dataset: { seat: i } },
    el("span", { class: "avatar", text: WINDS[windIdx] }),
    el("span", { class: "name", text: (info && info.name) || `Seat ${i}` }),
    info && !info.bot && info.balance !== null && info.balance !== undefined ? el("span", { class: "coins", text: info.balance.toLocaleString() }) : null,
    info && info.bot ? el("span", { class: "muted", text: "bot" }) : null,
    badges.length ? el("span", { class: "badges" }, ...badges) : null);
}

function meldNode(m, small) {
  const node = el("div", { class: "meld", title: m.type });
  const n = m.type === "peng" ? 3 : 4;
  for (let k = 0; k < n; k++) {
    // a concealed kong lies face down: others see only backs (the tile is null for them)
    const hidden = m.type === "angang" && (!m.tile || k === 0 || k === 3);
    node.append(tileImg(hidden ? "back" : m.tile, small));
  }
  return node;
}

function wonTiles(i) {
  const v = S.view;
  const wins = (v.winners || []).filter((w) => w.seat === i);
  if (!wins.length) return null;
  return el("div", { class: "won-tiles" }, term("action", "hu"), ...wins.map((w) => tileImg(w.tile)));
}

function renderOpponent(i) {
  const pos = rel(i);
  const area = $(`seat-${pos}`);
  const v = S.view;
  if (!v) { area.replaceChildren(S.room && S.room.seats[i] && S.room.seats[i].name ? plate(i, null, pos !== 2) : ""); return; }
  const sv = v.seats[i];
  const side = pos === 1 || pos === 3;
  let tiles;
  if (sv.hand) {
    tiles = el("div", { class: "revealed" }, parseTiles(sv.hand).map((t) => tileImg(t)));
  } else if (side) {
    tiles = el("div", { class: "side-stack" }, Array.from({ length: sv.concealed }, () => el("div", { class: "edge" })));
  } else {
    tiles = el("div", { class: "backs" }, Array.from({ length: sv.concealed }, () => tileImg("back")));
  }
  const melds = el("div", { class: "melds" + (side ? " side-melds" : "") }, sv.melds.map((m) => meldNode(m)));
  const row = side ? el("div", { class: "opp-row" }, pos === 1 ? [melds, tiles] : [tiles, melds])
    : el("div", { class: "opp-row" }, tiles, melds);
  area.replaceChildren(plate(i, sv, side), row, wonTiles(i) || "");
}

function renderRiver(i) {
  const v = S.view;
  const node = $(`river-${rel(i)}`);
  if (!v) { node.replaceChildren(); return; }
  const sv = v.seats[i];
  const n = sv.river.length;
  node.replaceChildren(...sv.river.map((t, k) => {
    const st = sv.river_state[k];
    let cls = st === 1 ? "claimed" : st === 2 || st === 3 ? "won-on" : "";
    if (k === n - 1 && st === 0 && S.lastDiscardSeat === i && v.offered) cls += " last";
    return tileImg(t, cls.trim());
  }));
}

function renderCompass() {
  const v = S.view;
  $("wall-count").textContent = v ? v.wall : "–";
  for (let i = 0; i < 4; i++) {
    const node = $(`wind-${rel(i)}`);
    node.textContent = v ? WINDS[(i - v.dealer + 4) % 4] : WINDS[i];
    node.className = "wind" + (v && v.phase === "turn" && v.turn === i ? " turn" : "") + (v && v.dealer === i ? " dealer" : "");
  }
}

function legal() { return (S.view && S.view.legal) || []; }

function renderMine() {
  const v = S.view;
  const hand = $("hand");
  const drawnBox = $("drawn");
  const actions = $("actions");
  const prompt = $("prompt");
  hand.className = "";
  if (!v) { hand.replaceChildren(); drawnBox.replaceChildren(); actions.replaceChildren(); prompt.hidden = true; $("my-melds").replaceChildren(); $("my-plate").replaceChildren(); return; }
  const me = base();
  const sv = v.seats[me];
  $("my-plate").replaceChildren(plate(me, sv), wonTiles(me) || "");
  $("my-melds").replaceChildren(...sv.melds.map((m) => meldNode(m)));
  const acts = S.seat === null ? [] : legal();
  const discards = new Set(acts.filter((a) => a.type === "discard").map((a) => a.tile));
  const mine = S.seat !== null;
  let tiles = mine ? parseTiles(v.hand) : (sv.hand ? parseTiles(sv.hand) : []);
  let drawn = mine ? v.drawn : null;
  if (drawn) {
    const k = tiles.lastIndexOf(drawn);
    if (k >= 0) tiles.splice(k, 1); else drawn = null;
  }
  const voidSuit = sv.void;
  const exchanging = acts.some((a) => a.type === "exchange");
  const canPlay = discards.size > 0 && !answered();
  const makeTile = (t, idx, isDrawn) => {
    const cls = [];
    if (voidSuit && t[1] === voidSuit) cls.push("void");
    if (canPlay && discards.has(t)) cls.push("playable");
    if (exchanging) {
      cls.push("playable");
      if (S.selected.includes(idx)) cls.push("selected");
    }
    const img = tileImg(t, cls.join(" "));
    if (isDrawn) img.classList.add("new");
    if (canPlay && discards.has(t)) img.addEventListener("click", () => sendAction({ type: "discard", tile: t }));
    if (exchanging) img.addEventListener("click", () => toggleExchange(idx, tiles));
    return img;
  };
  if (mine) {
    hand.replaceChildren(...tiles.map((t, idx) => makeTile(t, idx, false)));
  } else {
    hand.replaceChildren(...(sv.hand ? tiles.map((t) => tileImg(t)) : Array.from({ length: sv.concealed }, () => tileImg("back"))));
  }
  drawnBox.replaceChildren(drawn ? makeTile(drawn, -1, true) : "");
  if (canPlay || exchanging) hand.className = "choosing";

  // buttons for the legal claims and turn actions only
  const buttons = [];
  const done = answered();
  for (const a of acts) {
    if (a.type === "hu") buttons.push(actButton(a));
    else if (a.type === "gang") buttons.push(actButton(a, a.tile));
    else if (a.type === "peng") buttons.push(actButton(a, v.offered));
    else if (a.type === "pass") buttons.push(actButton(a));
  }
  if (done) for (const b of buttons) b.disabled = true;
  const timer = timerNode(true);
  actions.replaceChildren(...buttons, timer || "");

  // 定缺 and 换三张 dialogs
  const dq = acts.filter((a) => a.type === "dingque");
  if (dq.length && !done) {
    prompt.hidden = false;
    const counts = { m: 0, p: 0, s: 0 };
    for (const t of tiles.concat(drawn ? [drawn] : [])) counts[t[1]]++;
    prompt.replaceChildren(
      el("h3", { text: `${term("action", "dingque")} Choose your void suit — you must discard it before anything else` }),
      el("div", { class: "suit-choice" }, ["m", "p", "s"].map((s) => {
        const ok = dq.some((a) => a.suit === s);
        return el("button", { class: "suit", dataset: { suit: s }, disabled: !ok || undefined,
          on: { click: () => sendAction({ type: "dingque", suit: s }) } },
        tileImg(`5${s}`), el("span", { text: `${SUIT_NAMES[s]} ${SUIT_EN[s]}` }), el("small", { class: "muted", text: `${counts[s]} tiles` }));
      })));
  } else if (exchanging && !done) {
    prompt.hidden = false;
    const chosen = S.selected.map((i) => (i === -1 ? drawn : tiles[i]));
    const match = chosen.length === 3 ? acts.find((a) => a.type === "exchange" && a.tiles === compact(chosen)) : null;
    prompt.replaceChildren(
      el("h3", { text: `${term("action", "exchange")} Pick three tiles of one suit to pass on` }),
      el("div", { class: "row" },
        el("span", { class: "muted", text: chosen.length ? `chosen: ${chosen.join(" ")}` : "click three tiles of one suit" }),
        el("button", { id: "exchange-suggest", class: "ghost", text: "Suggest", on: { click: () => suggestExchange(tiles, acts) } }),
        el("button", { id: "exchange-confirm", class: "primary", text: "Pass these 3", disabled: !match || undefined,
          on: { click: () => { if (match) { S.selected = []; sendAction({ type: "exchange", tiles: match.tiles }); } } } })));
  } else {
    prompt.hidden = true;
    prompt.replaceChildren();
  }
  const room = S.room;
  if (room && room.status === "between" && S.lookAtTable && S.seat !== null) {
    const ready = room.seats[S.seat] && room.seats[S.seat].ready;
    actions.replaceChildren(
      el("button", { class: "ghost", text: "Show the settlement", on: { click: () => { S.lookAtTable = false; renderAll(); } } }),
      el("button", { id: "next-hand", class: "primary", text: ready ? "Waiting for the others…" : "Next hand 下一局",
        disabled: ready || undefined, on: { click: () => send({ type: "ready" }) } }));
  }
}

function toggleExchange(idx, tiles) {
  const k = S.selected.indexOf(idx);
  if (k >= 0) S.selected.splice(k, 1);
  else {
    const suit = tiles[idx][1];
    S.selected = S.selected.filter((i) => tiles[i] && tiles[i][1] === suit);
    if (S.selected.length >= 3) S.selected.shift();
    S.selected.push(idx);
  }
  renderAll();
}

function suggestExchange(tiles, acts) {
  const counts = { m: 0, p: 0, s: 0 };
  for (const t of tiles) counts[t[1]]++;
  const suits = ["m", "p", "s"].filter((s) => counts[s] >= 3).sort((a, b) => counts[a] - counts[b]);
  if (!suits.length) return;
  const pick = acts.find((a) => a.type === "exchange" && a.tiles.endsWith(suits[0]));
  if (!pick) return;
  const want = parseTiles(pick.tiles);
  const sel = [];
  for (const t of want) {
    const idx = tiles.findIndex((x, i) => x === t && !sel.includes(i));
    if (idx >= 0) sel.push(idx);
  }
  S.selected = sel;
  renderAll();
}

function actButton(action, tile) {
  const kind = action.type;
  const payload = { type: kind };
  if (action.tile) payload.tile = action.tile;
  const name = term("action", kind);
  const en = term("action", kind, "en");
  return el("button", { class: `act ${kind}`, dataset: { action: kind }, on: { click: () => sendAction(payload) } },
    name, tile ? tileImg(tile) : "", en !== name ? el("span", { class: "en", text: en }) : null);
}

function remaining() {
  if (!S.timer) return null;
  return Math.max(0, S.timer.remaining_ms - (performance.now() - S.timerAt));
}

function timerNode(mineOnly) {
  const t = S.timer;
  if (!t || (mineOnly && !t.mine) || (t.mine && answered())) return null;
  const left = remaining();
  const frac = t.total_ms ? left / t.total_ms : 0;
  const bar = el("div", { class: "countdown", id: "countdown" }, el("div"));
  bar.firstChild.style.width = `${Math.round(frac * 100)}%`;
  return el("div", { class: "row" }, bar, el("span", { class: "countdown-label", text: `${Math.ceil(left / 1000)}s` }));
}

function renderClock() {
  const t = S.timer;
  const node = $("turn-clock");
  if (!t) { node.textContent = ""; return; }
  const left = Math.ceil(remaining() / 1000);
  node.textContent = t.mine ? `you · ${left}s` : `${left}s`;
  const bar = $("countdown");
  if (bar && t.total_ms) {
    bar.firstChild.style.width = `${Math.round((remaining() / t.total_ms) * 100)}%`;
    bar.nextSibling.textContent = `${left}s`;
  }
}

function renderTable() {
  for (let i = 0; i < 4; i++) {
    if (rel(i) !== 0) renderOpponent(i);
    renderRiver(i);
  }
  renderCompass();
  renderMine();
  renderClock();
}

// --- the end of a hand ---------------------------------------------------------------------------------------------
function closeDialogs() {
  for (const id of ["settlement", "match-end"]) if ($(id).open) $(id).close();
}

function renderDialogs() {
  const he = S.handEnd;
  const dlg = $("settlement");
  if (he && !S.lookAtTable) {
    fillSettlement(he);
    if (!dlg.open) dlg.showModal();
  } else if (dlg.open) {
    dlg.close();
  }
  const me = $("match-end");
  if (S.matchEnd && S.room && S.room.status === "finished" && (S.lookAtTable || !he)) {
    $("standings").replaceChildren(...S.matchEnd.standings.map((p) => el("li", null,
      el("b", { text: p.name }), " ", el("span", { class: p.points >= 0 ? "pos" : "neg", text: signed(p.points) + " points" }))));
    if (!me.open) me.showModal();
  } else if (me.open) {
    me.close();
  }
}

function fillSettlement(he) {
  $("settle-title").textContent = `Hand ${he.hand_no} over` + (he.exhausted ? ` · ${term("event", "wall_empty")}` : "") + (he.escaped.length ? ` · ${term("reason", "escape")}` : "");
  $("settle-winners").replaceChildren(...(he.winners.length ? he.winners.map((w) => el("div", { class: "winner" },
    tileImg(w.tile),
    el("div", null,
      el("div", null, el("b", { text: he.names[w.seat] }), w.from === null ? ` ${term("reason", "zimo")}` : ` on ${he.names[w.from]}'s discard`),
      el("div", null, el("span", { class: "fan", text: `${w.fan} fan ×${w.multiple}` }), " ", w.pattern)))) : [el("p", { class: "muted", text: "Nobody won this hand." })]));
  const body = $("settle-table").querySelector("tbody");
  body.replaceChildren(...he.names.map((name, i) => {
    const coins = he.coins ? he.coins[i] : null;
    const bal = he.balances ? he.balances[i] : null;
    return el("tr", null,
      el("td", { text: name + (i === S.seat ? " (you)" : "") }),
      el("td", { class: "num " + (he.points[i] > 0 ? "pos" : he.points[i] < 0 ? "neg" : ""), text: signed(he.points[i]) }),
      el("td", { class: "num", text: he.fees ? he.fees[i] : "–" }),
      el("td", { class: "num " + (coins > 0 ? "pos" : coins < 0 ? "neg" : ""), text: coins === null ? "–" : signed(coins) }),
      el("td", { class: "num", text: he.bots[i] ? "house" : bal === null ? "–" : bal.toLocaleString() }));
  }));
  $("settle-ledger").replaceChildren(...(he.ledger.length ? he.ledger.map((e) => el("li", { text: e.words })) : [el("li", { class: "muted", text: "No payments." })]));
  const room = S.room;
  const next = $("settle-next");
  next.hidden = S.seat === null || !room || room.status !== "between";
  const meReady = room && S.seat !== null && room.seats[S.seat] && room.seats[S.seat].ready;
  next.disabled = !!meReady;
  next.textContent = meReady ? "Waiting for the others…" : "Next hand 下一局";
  const label = $("settle-countdown");
  label.textContent = room && room.status === "between" && room.next_hand_ms !== null
    ? `N ${he.coefficient} coins a point · fee ${he.fee}` : he.final ? "That was the last hand of the match." : "";
}

// --- wiring -----------------------------------------------------------------------------------------------------
function leaveTable() {
  const room = S.room;
  const v = S.view;
  const active = room && room.status === "playing" && S.seat !== null && v && !v.seats[S.seat].escaped && v.phase !== "over";
  if (active && !confirm(`Leaving during a hand is an escape (${term("reason", "escape")}): you pay 16 × base to each player still in the hand. Leave?`)) return;
  if (S.seat !== null) send({ type: "leave" });
  setTimeout(() => { disconnect(); location.hash = "#/"; }, 150);
}

function init() {
  $("login-form").addEventListener("submit", login);
  $("logout-btn").addEventListener("click", logout);
  $("quickstart").addEventListener("click", quickstart);
  $("create-form").addEventListener("submit", createRoom);
  $("join-form").addEventListener("submit", (ev) => joinByCode(ev, false));
  $("watch-btn").addEventListener("click", () => joinByCode(null, true));
  $("rooms-refresh").addEventListener("click", loadLobby);
  $("leave-btn").addEventListener("click", leaveTable);
  $("trustee-on").addEventListener("click", () => send({ type: "trustee", on: true }));
  $("trustee-off").addEventListener("click", () => send({ type: "trustee", on: false }));
  $("settle-next").addEventListener("click", () => { send({ type: "ready" }); });
  $("settle-look").addEventListener("click", () => { S.lookAtTable = true; renderAll(); });
  $("settlement").addEventListener("cancel", (ev) => { ev.preventDefault(); S.lookAtTable = true; renderAll(); });
  $("match-again").addEventListener("click", () => { S.handEnd = null; S.matchEnd = null; closeDialogs(); send({ type: "start" }); });
  $("match-lobby").addEventListener("click", () => { closeDialogs(); leaveTable(); });
  window.addEventListener("hashchange", route);
  setInterval(() => { if (!$("table-view").hidden) renderClock(); }, 250);
  setInterval(() => { if (!$("lobby-view").hidden) loadLobby(); }, 15000);
  loadVocab().then(route);
}

document.addEventListener("DOMContentLoaded", init);
