// 血战到底: the browser client. Plain JavaScript, no build step, no third-party code.
// The server is authoritative: this page shows the view it is sent and offers only the legal
// actions listed in it. Every sentence comes from the message catalogs (GET /api/i18n), every
// game term from the vocabulary (GET /api/vocab); text from players is always set as text.
"use strict";

// --- language -----------------------------------------------------------------------------------------
const I18N = { lang: "zh-CN", messages: {} };
const VOCAB = { langs: ["zh-CN", "zh-TW", "en"], default: "zh-CN", kinds: {} };

function fmtValue(v) {
  return typeof v === "number" ? v.toLocaleString(I18N.lang) : String(v);
}

// t("lobby.join") reads web.lobby.join; t("common.coins", {count}) reads a common message.
function t(key, params) {
  const full = key.startsWith("common.") ? key : "web." + key;
  let m = I18N.messages[full];
  if (m === undefined || m === null) return key;
  const p = params || {};
  if (typeof m === "object") {
    let count = p.count;
    if (typeof count !== "number") count = Object.values(p).find((v) => typeof v === "number") || 0;
    const cat = new Intl.PluralRules(I18N.lang).select(Math.abs(count));
    m = m[cat] !== undefined ? m[cat] : m.other;
  }
  return m.replace(/\{(\w+)\}/g, (all, name) => (name in p ? fmtValue(p[name]) : all));
}

function term(kind, id, lang) {
  const names = VOCAB.kinds[kind] && VOCAB.kinds[kind][id];
  if (!names) return id;
  return names[lang || I18N.lang] || names[VOCAB.default] || id;
}

function applyStatic(root) {
  const scope = root || document;
  for (const node of scope.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of scope.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
  for (const node of scope.querySelectorAll("[data-i18n-label]")) {
    const text = t(node.dataset.i18nLabel);
    node.setAttribute("aria-label", text);
    node.title = text;
  }
  document.title = t("brand");
}

async function loadMessages(lang) {
  const r = await api("GET", "/api/i18n" + (lang ? `?lang=${encodeURIComponent(lang)}` : ""));
  if (r.ok && r.data && r.data.messages) {
    I18N.lang = r.data.lang;
    I18N.messages = r.data.messages;
  }
  document.documentElement.lang = I18N.lang;
  for (const sel of document.querySelectorAll("select.lang-select")) sel.value = I18N.lang;
  applyStatic();
}

async function loadVocab() {
  const r = await api("GET", "/api/vocab");
  if (r.ok && r.data && r.data.kinds) Object.assign(VOCAB, r.data);
}

async function setLang(lang) {
  if (lang === I18N.lang) return;
  const r = await api("POST", "/api/lang", { lang });
  if (!r.ok) document.cookie = `lang=${encodeURIComponent(lang)}; path=/; max-age=31536000; samesite=lax`;
  await loadMessages(lang);
  if (S.me) S.me.lang = lang;
  S.tiers = null; // their names come from the server, in the language asked for
  rerender();
}

function errorWords(code, message) {
  if (message) return message;
  const name = code ? term("error", code) : "";
  return name || t("error.generic");
}

// --- state ----------------------------------------------------------------------------------------------
const S = {
  me: null, tables: [], after: null,
  tiers: null, tier: null,
  code: null, watch: false,
  ws: null, wsWanted: false, retry: 0, replaced: false,
  seat: null, room: null, roomAt: 0, view: null, version: 0, handNo: 0, names: null,
  timer: null, deadline: null, stateAt: 0,
  trustee: false, decision: null, answered: null,
  sel: null, exch: [], hint: null, hintFor: null,
  handEnd: null, handEndAt: 0, lookAtTable: false, matchEnd: null,
  logOpen: false, replay: null, events: [],
};

// --- small helpers ----------------------------------------------------------------------------------------
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

function tileWords(name) {
  if (!name || name === "back") return t("tile.back");
  return t("tile.name", { n: name[0], suit: t(`suit.${name[1]}`) });
}

// a tile's picture; inside a hand's button (which carries data-tile itself) it is bare
function tileImg(name, cls, bare) {
  return el("img", { class: "tile" + (cls ? " " + cls : ""), src: `/tiles/${name || "back"}.svg`, alt: bare ? "" : tileWords(name),
    draggable: "false", dataset: bare ? null : { tile: name || "back" } });
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
  for (const x of tiles) bySuit[x[1]].push(x[0]);
  return ["m", "p", "s"].filter((s) => bySuit[s].length).map((s) => bySuit[s].sort().join("") + s).join("");
}

function signed(n) { return n > 0 ? "+" + n.toLocaleString(I18N.lang) : n.toLocaleString(I18N.lang); }
function num(n) { return typeof n === "number" ? n.toLocaleString(I18N.lang) : "–"; }
function secs(ms) { return Math.max(0, Math.ceil(ms / 1000)); }

function toast(text, kind) {
  const node = el("div", { class: "toast" + (kind ? " " + kind : ""), role: "status", text });
  $("toasts").append(node);
  setTimeout(() => node.remove(), 4500);
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
    return { ok: false, status: 0, data: { error: { code: "offline", message: t("error.offline") } } };
  }
  let data = {};
  try { data = await res.json(); } catch (e) { /* an empty or non-JSON body */ }
  return { ok: res.ok, status: res.status, data };
}

function errCode(r) { return r.data && r.data.error ? r.data.error.code : null; }
function errText(r) {
  const e = r.data && r.data.error;
  return e ? errorWords(e.code, e.message) : t("error.status", { status: r.status });
}

// A confirmation in the page's own dialog (window.confirm cannot be styled or translated).
function confirmBox(title, text, okKey) {
  return new Promise((resolve) => {
    const dlg = $("confirm");
    $("confirm-title").textContent = title;
    $("confirm-text").textContent = text;
    $("confirm-ok").textContent = t(okKey || "confirm.ok");
    const done = (answer) => { dlg.onclose = null; if (dlg.open) dlg.close(); resolve(answer); };
    $("confirm-ok").onclick = () => done(true);
    $("confirm-cancel").onclick = () => done(false);
    dlg.onclose = () => resolve(false);
    dlg.showModal();
  });
}

// --- the account ------------------------------------------------------------------------------------------
// GET /api/me answers the account (and, where the server knows them, the tables you sit at).
function readMe(r) {
  if (!r.ok || !r.data) return null;
  const d = r.data;
  const a = "account" in d ? d.account : d;
  if (!a || typeof a !== "object" || (a.name === undefined && a.nickname === undefined)) return null;
  return {
    name: a.name !== undefined ? a.name : a.nickname,
    coins: a.coins !== undefined ? a.coins : a.balance,
    guest: a.guest !== undefined ? !!a.guest : !("password" in a),
    lang: a.lang || null,
    relief: a.relief || d.relief || null,
    tables: d.tables || a.tables || [],
  };
}

function setMe(me) {
  S.me = me;
  $("me-box").hidden = !me;
  if (me) {
    $("me-name").textContent = me.name;
    $("me-coins").textContent = num(me.coins);
    S.tables = me.tables || [];
  }
}

async function refreshMe() {
  const me = readMe(await api("GET", "/api/me"));
  setMe(me);
  return me;
}

async function signIn(kind) {
  const name = $("login-name").value.trim();
  const password = $("login-password").value;
  $("login-error").textContent = "";
  if (!name) { $("login-error").textContent = t("login.need_name"); return; }
  if (kind !== "guest" && !password) { $("login-error").textContent = t("login.need_password"); return; }
  let r;
  if (kind === "register") r = await api("POST", "/api/register", { name, password });
  else if (kind === "login") r = await api("POST", "/api/login", { name, password });
  else {
    r = await api("POST", "/api/login", { name });
    if (!r.ok && r.status === 400 && errCode(r) === "bad_nickname") r = await api("POST", "/api/login", { nickname: name });
  }
  if (!r.ok) { $("login-error").textContent = errText(r); return; }
  $("login-password").value = "";
  const me = readMe(r) || (await refreshMe());
  setMe(me);
  if (me && me.lang && me.lang !== I18N.lang) await loadMessages(me.lang);
  const next = S.after || "#/";
  S.after = null;
  if (location.hash === next) route(); else location.hash = next;
}

async function logout() {
  await api("POST", "/api/logout");
  disconnect();
  setMe(null);
  if (location.hash === "#/") route(); else location.hash = "#/";
}

// --- routing ------------------------------------------------------------------------------------------------
const VIEWS = ["login-view", "lobby-view", "wallet-view", "table-view"];

function showView(name) {
  for (const v of VIEWS) $(v).hidden = v !== name;
  document.body.dataset.view = name;
  if (name !== "table-view") closeDialogs();
}

async function route() {
  const hash = location.hash || "#/";
  if (!S.me) await refreshMe();
  if (!S.me) {
    disconnect();
    S.replay = null;
    if (hash !== "#/" && hash !== "#/login") S.after = hash;
    showView("login-view");
    return;
  }
  const table = hash.match(/^#\/t\/([A-Za-z0-9]{1,12})(\/watch)?$/);
  const replay = hash.match(/^#\/history\/([A-Za-z0-9_-]{1,64})$/);
  if (table) {
    S.replay = null;
    openTable(table[1].toUpperCase(), !!table[2]);
  } else if (replay) {
    disconnect();
    openReplay(replay[1]);
  } else if (hash === "#/wallet") {
    disconnect();
    S.replay = null;
    showView("wallet-view");
    loadWallet();
  } else {
    disconnect();
    S.replay = null;
    showView("lobby-view");
    loadLobby();
  }
}

function rerender() {
  if (!$("lobby-view").hidden) loadLobby();
  if (!$("wallet-view").hidden) loadWallet();
  if (!$("table-view").hidden) {
    // the log again, in the new language
    $("log").replaceChildren();
    for (const ev of S.events) logEvent(ev);
    renderAll();
  }
}

// --- the lobby ---------------------------------------------------------------------------------------------------
async function loadTiers() {
  if (S.tiers !== null) return;
  const r = await api("GET", "/api/tiers");
  S.tiers = r.ok && r.data && Array.isArray(r.data.tiers) ? r.data.tiers : [];
}

function affordable(tier) { return !S.me || typeof S.me.coins !== "number" || S.me.coins >= (tier.min_balance || 0); }
// a tier whose worst hand the balance covers: no stake warning there
function safe(tier) { return affordable(tier) && (!S.me || typeof tier.max_loss !== "number" || S.me.coins >= tier.max_loss); }

function renderTiers() {
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

async function loadLobby() {
  const me = await refreshMe();
  if (!me) { route(); return; }
  await loadTiers();
  renderTiers();
  $("guest-note").hidden = !me.guest;
  const back = $("back-to-table");
  back.hidden = S.tables.length === 0;
  back.replaceChildren(...S.tables.map((code) => el("button", { class: "primary", text: t("lobby.back_to_table", { code }),
    on: { click: () => { location.hash = `#/t/${code}`; } } })));
  const rooms = await api("GET", "/api/rooms");
  const list = (rooms.ok && rooms.data.rooms) || [];
  $("rooms-empty").hidden = list.length > 0;
  $("rooms-list").replaceChildren(...list.map((room) => el("li", { class: "room-item" },
    el("div", { class: "room-head" }, el("b", { text: room.name }), " ", el("span", { class: "code", text: room.code })),
    el("div", { class: "muted", text: t("lobby.room_line", { rules: room.rules, n: room.coefficient, fee: room.fee,
      hand: room.hand_no || 0, hands: room.hands || 0 }) + (room.tier ? " · " + tierName(room.tier) : "") }),
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
      h.id !== undefined && h.id !== null
        ? el("button", { class: "ghost small", dataset: { replay: h.id }, text: t("history.replay"),
          on: { click: () => { location.hash = `#/history/${h.id}`; } } }) : null);
  }));
}

function tierName(id) {
  const x = (S.tiers || []).find((y) => y.id === id);
  return x ? x.name : id;
}

// POST a room (or quickstart): a stake the balance cannot cover is asked about first.
async function postRoom(path, body) {
  let r = await api("POST", path, body);
  if (!r.ok && r.status === 409 && errCode(r) === "stake_warning") {
    const yes = await confirmBox(t("stake.title"), errText(r), "stake.accept");
    if (!yes) return;
    r = await api("POST", path, { ...body, accept_risk: true });
  }
  if (!r.ok) { toast(errText(r)); return; }
  location.hash = `#/t/${r.data.code}`;
}

function quickstart() {
  const body = { preset: $("quick-preset").value };
  if (S.tiers && S.tiers.length && S.tier) body.tier = S.tier;
  postRoom("/api/quickstart", body);
}

function createRoom(ev) {
  ev.preventDefault();
  const options = { exchange_three: $("room-exchange").value };
  if ($("room-blood-river").checked) options.blood_river = true;
  if (!$("room-dingque").checked) options.dingque = false;
  const body = {
    name: $("room-name").value, preset: $("room-preset").value, options,
    coefficient: Number($("room-n").value), fee: Number($("room-a").value), hands: Number($("room-hands").value),
    public: $("room-public").checked,
  };
  if (S.tiers && S.tiers.length) {
    // in a tiered lobby the stake (N and A) is the tier's
    body.tier = $("room-tier").value;
    delete body.coefficient;
    delete body.fee;
  }
  postRoom("/api/rooms", body);
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

// --- the wallet ----------------------------------------------------------------------------------------------
async function loadWallet() {
  const me = await refreshMe();
  if (!me) { route(); return; }
  $("wallet-name").textContent = me.name;
  $("wallet-guest").hidden = !me.guest;
  $("password-old").hidden = me.guest;
  const r = await api("GET", "/api/wallet");
  const w = r.ok ? r.data : null;
  $("wallet-coins").textContent = t("common.coins", { count: w ? w.coins : me.coins });
  const relief = (w && w.relief) || me.relief;
  $("relief-box").hidden = !relief;
  if (relief) {
    $("relief-text").textContent = relief.available
      ? t("wallet.relief_ready", { amount: relief.amount, floor: relief.floor })
      : t("wallet.relief_not_now", { floor: relief.floor });
    $("relief-btn").disabled = !relief.available;
  }
  $("ledger-empty").hidden = !!(w && w.ledger && w.ledger.length);
  $("ledger-empty").textContent = w ? t("wallet.ledger_empty") : t("wallet.unavailable");
  $("ledger-list").replaceChildren(...((w && w.ledger) || []).map((e) => el("li", null,
    el("span", { class: "num " + (e.delta > 0 ? "pos" : e.delta < 0 ? "neg" : ""), text: signed(e.delta) }),
    el("span", { text: e.text || term("reason", e.reason) }),
    el("span", { class: "muted", text: e.at ? new Date(e.at).toLocaleString(I18N.lang) : "" }))));
}

async function takeRelief() {
  const r = await api("POST", "/api/relief", {});
  if (!r.ok) { toast(errText(r)); return; }
  toast(t("wallet.relief_granted", { amount: r.data.granted }), "info");
  loadWallet();
}

async function setPassword(ev) {
  ev.preventDefault();
  $("password-error").textContent = "";
  const body = { password: $("password-new").value };
  if (!S.me.guest) body.old_password = $("password-old-input").value;
  const r = await api("POST", "/api/password", body);
  if (!r.ok) { $("password-error").textContent = errText(r); return; }
  $("password-new").value = "";
  $("password-old-input").value = "";
  toast(t("wallet.password_saved"), "info");
  setMe(readMe(r) || (await refreshMe()));
  loadWallet();
}

// --- the websocket -------------------------------------------------------------------------------------------
function resetTable(code, watch) {
  Object.assign(S, { code, watch, seat: null, room: null, view: null, version: 0, handNo: 0, names: null,
    handEnd: null, matchEnd: null, timer: null, deadline: null, trustee: false, decision: null, answered: null,
    sel: null, exch: [], hint: null, replaced: false, lookAtTable: false, logOpen: false, events: [] });
  $("log").replaceChildren();
  closeDialogs();
}

function openTable(code, watch) {
  showView("table-view");
  if (S.code === code && S.watch === watch && S.ws) { renderAll(); return; }
  disconnect();
  resetTable(code, watch);
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
    if (S.ws !== ws) return; // a socket we left: nothing it says is shown any more
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    onMessage(msg);
  };
  ws.onclose = (ev) => {
    if (S.ws !== ws) return;
    S.ws = null;
    if (ev.code === 4401) { S.wsWanted = false; setMe(null); route(); return; }
    if (ev.code === 4404) { S.wsWanted = false; toast(term("error", "unknown_room")); location.hash = "#/"; return; }
    if (ev.code === 4000) { S.wsWanted = false; S.replaced = true; renderAll(); return; }
    if (S.wsWanted) {
      setTimeout(connect, Math.min(5000, 250 * 2 ** S.retry++));
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

function answered() { return S.decision === null || S.decision === undefined || S.decision === S.answered; }

function sendAction(action) {
  if (answered()) return; // one answer per decision
  S.answered = S.decision;
  S.sel = null;
  S.exch = [];
  send({ type: "action", action, version: S.version });
  renderAll();
}

function askHint() {
  S.hint = null;
  S.hintFor = S.decision;
  send({ type: "hint", version: S.version });
}

async function onTableError(msg) {
  if (msg.code === "stale") return;
  if (msg.for === "sit" && msg.code === "stake_warning") {
    if (await confirmBox(t("stake.title"), errorWords(msg.code, msg.message), "stake.accept")) {
      send({ type: "sit", seat: S.pendingSit, accept_risk: true });
    }
    return;
  }
  toast(errorWords(msg.code, msg.message));
  if (msg.for === "action") S.answered = null;
  renderAll();
}

function onMessage(msg) {
  switch (msg.type) {
    case "hello":
      S.retry = 0;
      S.seat = msg.seat;
      S.timeouts = msg.timeouts || null;
      break;
    case "room": {
      const before = S.room && S.room.status;
      S.room = msg.room;
      S.roomAt = performance.now();
      if (msg.room.status === "playing" && before !== "playing") { S.handEnd = null; S.lookAtTable = false; }
      break;
    }
    case "state":
      if (msg.reset) { $("log").replaceChildren(); S.events = []; S.sel = null; S.exch = []; }
      if (msg.decision !== null && msg.decision !== undefined && msg.decision !== S.decision && navigator.vibrate) {
        try { navigator.vibrate(40); } catch (e) { /* not allowed before a tap */ }
      }
      if (msg.hand_no !== S.handNo) { S.lookAtTable = false; S.handEnd = null; }
      if (msg.decision !== S.decision) { S.sel = null; S.exch = []; S.hint = null; }
      S.handNo = msg.hand_no;
      S.view = msg.view;
      S.version = msg.version;
      S.decision = msg.decision;
      S.timer = msg.timer || null;
      S.deadline = typeof msg.deadline_ms === "number" ? msg.deadline_ms : null;
      S.stateAt = performance.now();
      S.trustee = !!msg.trustee;
      for (const ev of msg.events || []) { S.events.push(ev); logEvent(ev); }
      break;
    case "hand_end":
      S.handEnd = msg;
      S.handEndAt = performance.now();
      refreshMe();
      break;
    case "match_end":
      S.matchEnd = msg;
      break;
    case "hint":
      if (S.hintFor === S.decision) S.hint = msg;
      break;
    case "error":
      onTableError(msg);
      return;
    default:
      break;
  }
  renderAll();
}

// --- names and the log ---------------------------------------------------------------------------------------
function seatInfo(i) {
  if (S.room && S.room.seats && S.room.seats[i]) return S.room.seats[i];
  if (S.names && S.names[i] !== undefined) return { seat: i, name: S.names[i], bot: false };
  return null;
}

function seatName(i) {
  if (i === null || i === undefined) return "?";
  if (i === S.seat) return t("seat.you");
  const s = seatInfo(i);
  return (s && s.name) || t("common.seat", { seat: i + 1 });
}

function logLine(cls, ...parts) {
  const log = $("log");
  log.append(el("li", { class: cls || "" }, ...parts));
  while (log.children.length > 300) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function withTile(text, tile) {
  // a sentence with one {tile} place: the words around the tile's picture
  const [before, after] = text.split("\u0000");
  return [before, tile ? tileImg(tile) : "", after || ""];
}

function logEvent(ev) {
  const who = seatName(ev.seat);
  const tiled = (key, tile, extra) => logLine(extra || "", ...withTile(t(key, { who, from: seatName(ev.from), tile: "\u0000" }), tile));
  switch (ev.type) {
    case "start": logLine("", t("log.start", { n: S.handNo || 1, dealer: seatName(ev.dealer) })); break;
    case "exchange": if (ev.tiles) logLine("mine", t("log.exchange_out"), ...parseTiles(ev.tiles).map((x) => tileImg(x))); break;
    case "exchange_received": if (ev.tiles) logLine("mine", t("log.exchange_in"), ...parseTiles(ev.tiles).map((x) => tileImg(x))); break;
    case "exchange_done": logLine("", t("log.exchange_done", { action: term("action", "exchange") })); break;
    case "dingque":
      logLine("", term("action", "dingque") + ": " + (ev.voids || []).map((v, i) => `${seatName(i)} ${v ? t(`suit.${v}`) : "–"}`).join(" · "));
      break;
    case "draw": if (ev.tile && ev.seat === S.seat) tiled("log.draw", ev.tile, "mine"); break;
    case "discard": tiled("log.discard", ev.tile); break;
    case "peng": tiled("log.peng", ev.tile); break;
    case "zhigang": tiled("log.zhigang", ev.tile); break;
    case "angang": if (ev.tile) tiled("log.angang", ev.tile); else logLine("", t("log.angang_hidden", { who })); break;
    case "bugang_declared": tiled("log.bugang", ev.tile); break;
    case "hu": {
      const key = ev.from === null || ev.from === undefined ? "log.zimo" : "log.hu";
      const extras = Object.entries(ev.extras || {}).filter(([, n]) => n).map(([k, n]) => term("extra", k) + (n > 1 ? `×${n}` : ""));
      const pattern = term("pattern", ev.base) + (extras.length ? " + " + extras.join(" ") : "");
      logLine("win", ...withTile(t(key, { who, from: seatName(ev.from), tile: "\u0000", pattern, fan: ev.fan, multiple: ev.multiple }), ev.tile));
      break;
    }
    case "pay": logLine("pay", t("log.pay", { from: seatName(ev.from), to: seatName(ev.to), count: ev.points, reason: term("reason", ev.reason) })); break;
    case "pass_hu": tiled("log.pass_hu", ev.tile, "mine"); break;
    case "wall_empty": logLine("", t("log.wall_empty")); break;
    case "escape": logLine("", t("log.escape", { who })); break;
    case "end": logLine("", t("log.end")); break;
    default: break;
  }
}

// --- rendering the table --------------------------------------------------------------------------------------
function base() { return S.seat === null || S.seat === undefined ? 0 : S.seat; }
function rel(seat) { return (seat - base() + 4) % 4; }
function legal() { return (S.view && S.view.legal) || []; }
function mineToPlay() { return S.seat !== null && S.seat !== undefined && !S.replay; }

function renderAll() {
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
  renderDialogs();
  renderClocks();
}

function renderBar() {
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

function renderWaiting() {
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

function plate(i, sv) {
  const info = seatInfo(i);
  const v = S.view;
  const windIdx = v ? (i - v.dealer + 4) % 4 : i;
  const badges = [];
  if (v && v.dealer === i) badges.push(el("span", { class: "badge dealer", text: t("badge.dealer") }));
  if (sv && sv.void) badges.push(el("span", { class: `badge void-${sv.void}`, text: t("badge.void", { suit: t(`suit.${sv.void}`) }) }));
  if (sv && sv.won) badges.push(el("span", { class: "badge won", text: term("action", "hu") + (sv.wins > 1 ? `×${sv.wins}` : "") }));
  if (sv && sv.escaped) badges.push(el("span", { class: "badge escaped", text: term("reason", "escape") }));
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

function meldNode(m) {
  const node = el("span", { class: "meld", title: term("event", m.type) });
  const n = m.type === "peng" ? 3 : 4;
  for (let k = 0; k < n; k++) {
    // a concealed kong lies face down: others see only backs (the tile is null for them)
    const hidden = m.type === "angang" && (!m.tile || k === 0 || k === 3);
    node.append(tileImg(hidden ? "back" : m.tile));
  }
  return node;
}

function wonTiles(i) {
  const wins = ((S.view && S.view.winners) || []).filter((w) => w.seat === i);
  if (!wins.length) return null;
  return el("span", { class: "won-tiles" }, term("action", "hu"), ...wins.map((w) => tileImg(w.tile)));
}

function renderOpponent(i) {
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

function riverEntry(sv, k) {
  const e = sv.river[k];
  const tile = typeof e === "string" ? e : e && e.tile;
  const st = sv.river_state ? sv.river_state[k] : 0;
  const claimed = (typeof e === "object" && e && e.claimed === true) || st === 1;
  return { tile, claimed, won: st === 2 || st === 3 };
}

function renderRiver(i) {
  const v = S.view;
  const node = $(`river-${rel(i)}`);
  if (!v) { node.replaceChildren(); return; }
  const sv = v.seats[i];
  const n = sv.river.length;
  node.replaceChildren(...sv.river.map((_, k) => {
    const e = riverEntry(sv, k);
    let cls = "rt";
    if (e.claimed) cls += " claimed";
    if (e.won) cls += " won-on";
    if (k === n - 1 && !e.claimed && v.offered && v.offered === e.tile && v.phase === "claim" && v.turn === i) cls += " last";
    return el("span", { class: cls, title: e.claimed ? t("river.claimed") : null }, tileImg(e.tile));
  }));
}

function renderCompass() {
  const v = S.view;
  $("wall-count").textContent = v ? t("table.wall", { count: v.wall }) : "";
  const turn = v ? seatName(v.turn) : "";
  $("turn-name").textContent = v && (v.phase === "turn" || v.phase === "claim") ? t("table.turn", { who: turn }) : "";
}

function myTiles() {
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

function renderMine() {
  const v = S.view;
  const hand = $("hand");
  const actions = $("actions");
  const prompt = $("prompt");
  if (!v) {
    hand.replaceChildren(); actions.replaceChildren(); $("my-melds").replaceChildren(); $("my-plate").replaceChildren();
    prompt.hidden = true;
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
  const hinted = S.hint && S.hint.choices && S.hint.choices[0] && S.hint.choices[0].action.type === "discard" ? S.hint.choices[0].action.tile : null;
  const buttons = tiles.map((x, idx) => {
    const cls = ["tile-btn"];
    const playable = (canDiscard && discards.has(x)) || exchanging;
    if (sv.void && x[1] === sv.void) cls.push("void");
    if (playable) cls.push("playable");
    if (drawn && idx === tiles.length - 1) cls.push("new");
    if ((canDiscard && S.sel === idx) || (exchanging && S.exch.includes(idx))) cls.push("selected");
    if (hinted === x && canDiscard) cls.push("hinted");
    return el("button", { type: "button", class: cls.join(" "), dataset: { tile: x }, "aria-label": tileWords(x),
      "aria-pressed": cls.includes("selected") ? "true" : null, disabled: !playable || undefined,
      on: { click: () => tapTile(idx, x, tiles, acts) } }, tileImg(x, "", true));
  });
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
    promptText = t("prompt.dingque");
    const counts = { m: 0, p: 0, s: 0 };
    for (const x of tiles) counts[x[1]]++;
    for (const s of ["m", "p", "s"]) {
      const ok = dq.some((a) => a.suit === s);
      out.push(el("button", { class: "act dingque suit", dataset: { action: "dingque", suit: s }, disabled: !ok || undefined,
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
      el("button", { class: "ghost", text: t("settle.show"), on: { click: () => { S.lookAtTable = false; renderAll(); } } }),
      el("button", { id: "next-hand", class: "primary", text: ready ? t("settle.waiting") : t("settle.next"),
        disabled: ready || undefined, on: { click: () => send({ type: "ready" }) } }));
  }
  if (S.replay) renderReplayControls();
}

function betweenOnTable() {
  return !S.replay && S.room && S.room.status === "between" && S.lookAtTable && S.seat !== null;
}

function tapTile(idx, tile, tiles, acts) {
  if (answered()) return;
  if (acts.some((a) => a.type === "exchange")) { toggleExchange(idx, tiles); return; }
  if (S.sel === idx) { sendAction({ type: "discard", tile }); return; }
  S.sel = idx;
  renderAll();
}

function toggleExchange(idx, tiles) {
  const k = S.exch.indexOf(idx);
  if (k >= 0) S.exch.splice(k, 1);
  else {
    const suit = tiles[idx][1];
    S.exch = S.exch.filter((i) => tiles[i] && tiles[i][1] === suit);
    if (S.exch.length >= 3) S.exch.shift();
    S.exch.push(idx);
  }
  renderAll();
}

function suggestExchange(tiles, acts) {
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
  renderAll();
}

function actButton(action, tile) {
  const payload = { type: action.type };
  if (action.tile) payload.tile = action.tile;
  return el("button", { class: `act ${action.type}`, dataset: { action: action.type }, on: { click: () => sendAction(payload) } },
    term("action", action.type), tile ? tileImg(tile) : "");
}

function actionWords(a) {
  const name = term("action", a.type);
  if (a.tile) return `${name} ${tileWords(a.tile)}`;
  if (a.suit) return `${name} ${t(`suit.${a.suit}`)}`;
  if (a.tiles) return `${name} ${parseTiles(a.tiles).map(tileWords).join(" ")}`;
  return name;
}

function renderHint() {
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
    el("button", { class: "ghost small", text: t("hint.close"), on: { click: () => { S.hint = null; renderAll(); } } }));
}

// --- clocks ------------------------------------------------------------------------------------------------------
function myDeadline() {
  const gone = performance.now() - S.stateAt;
  if (S.deadline !== null) return Math.max(0, S.deadline - gone);
  if (S.timer && S.timer.mine) return Math.max(0, S.timer.remaining_ms - gone);
  return null;
}

function myTotal() {
  if (S.timer && S.timer.mine && S.timer.total_ms) return S.timer.total_ms;
  return S.deadline || 1;
}

function nextHandLeft() {
  if (S.room && S.room.status === "between" && typeof S.room.next_hand_ms === "number") {
    return Math.max(0, S.room.next_hand_ms - (performance.now() - S.roomAt));
  }
  if (S.handEnd && typeof S.handEnd.next_hand_ms === "number") {
    return Math.max(0, S.handEnd.next_hand_ms - (performance.now() - S.handEndAt));
  }
  return null;
}

function renderClocks() {
  if (S.replay) { $("turn-clock").textContent = ""; return; }
  const mine = mineToPlay() && !answered() ? myDeadline() : null;
  const node = $("my-clock");
  if (node && mine !== null) {
    node.querySelector(".bar > span").style.width = `${Math.round(Math.min(1, mine / myTotal()) * 100)}%`;
    node.querySelector("b").textContent = t("clock.seconds", { count: secs(mine) });
    node.classList.toggle("urgent", mine < 5000);
  }
  const other = S.timer && !S.timer.mine ? Math.max(0, S.timer.remaining_ms - (performance.now() - S.stateAt)) : null;
  let text = "";
  if (mine !== null) text = t("clock.yours", { count: secs(mine) });
  else if (other !== null) text = t("clock.theirs", { who: seatName(S.timer.seat), count: secs(other) });
  const next = nextHandLeft();
  if (next !== null && S.room && S.room.status === "between") text = t("clock.next_hand", { count: secs(next) });
  $("turn-clock").textContent = text;
  const label = $("settle-countdown");
  if ($("settlement").open) {
    label.textContent = next !== null && S.room && S.room.status === "between" ? t("clock.next_hand", { count: secs(next) })
      : S.handEnd && S.handEnd.final ? t("settle.final") : "";
  }
}

// --- the end of a hand --------------------------------------------------------------------------------------------
function closeDialogs() {
  for (const id of ["settlement", "match-end"]) if ($(id).open) $(id).close();
}

function renderDialogs() {
  const he = S.handEnd;
  const dlg = $("settlement");
  if (he && !S.lookAtTable && !S.replay) {
    fillSettlement(he);
    if (!dlg.open) dlg.showModal();
  } else if (dlg.open) {
    dlg.close();
  }
  const end = $("match-end");
  if (!S.replay && S.matchEnd && S.room && S.room.status === "finished" && (S.lookAtTable || !he)) {
    $("standings").replaceChildren(...S.matchEnd.standings.map((p) => el("li", null,
      el("b", { text: p.bot ? `${p.name} · ${t("seat.bot")}` : p.name }), " ",
      el("span", { class: p.points >= 0 ? "pos" : "neg", text: t("common.points", { count: p.points }) }))));
    if (!end.open) end.showModal();
  } else if (end.open) {
    end.close();
  }
}

function lineText(x) { return x.text || x.words || ""; }

function fillSettlement(he) {
  let title = t("settle.title", { n: he.hand_no });
  if (he.exhausted) title += " · " + term("event", "wall_empty");
  if (he.escaped && he.escaped.length) title += " · " + term("reason", "escape");
  $("settle-title").textContent = title;
  $("settle-winners").replaceChildren(...(he.winners.length ? he.winners.map((w) => el("div", { class: "winner" },
    tileImg(w.tile), el("div", null, el("div", { text: lineText(w) || he.names[w.seat] }),
      el("div", { class: "fan", text: t("settle.fan", { fan: w.fan, multiple: w.multiple }) }))))
    : [el("p", { class: "muted", text: t("settle.no_winner") })]));
  const explain = he.explain || [];
  $("settle-explain").hidden = explain.length === 0;
  $("settle-explain").replaceChildren(...explain.map((s) => el("li", { text: s })));
  $("settle-rows").replaceChildren(...he.names.map((name, i) => {
    const coins = he.coins ? he.coins[i] : null;
    const bal = he.balances ? he.balances[i] : null;
    const bot = he.bots && he.bots[i];
    return el("tr", { class: i === S.seat ? "me" : "" },
      el("td", { text: name + (i === S.seat ? ` (${t("seat.you")})` : "") }),
      el("td", { class: "num " + (he.points[i] > 0 ? "pos" : he.points[i] < 0 ? "neg" : ""), text: signed(he.points[i]) }),
      el("td", { class: "num " + (coins > 0 ? "pos" : coins < 0 ? "neg" : ""), text: coins === null ? "–" : signed(coins) }),
      el("td", { class: "num", text: bot ? t("seat.house") : num(bal) }));
  }));
  $("settle-ledger").replaceChildren(...(he.ledger.length ? he.ledger.map((e) => el("li", { text: lineText(e) }))
    : [el("li", { class: "muted", text: t("settle.no_payments") })]));
  const room = S.room;
  const next = $("settle-next");
  next.hidden = S.seat === null || !room || room.status !== "between";
  const meReady = room && S.seat !== null && room.seats[S.seat] && room.seats[S.seat].ready;
  next.disabled = !!meReady;
  next.textContent = meReady ? t("settle.waiting") : t("settle.next");
}

// --- leaving ---------------------------------------------------------------------------------------------------
async function leaveTable() {
  if (S.replay) { location.hash = "#/"; return; }
  const room = S.room;
  const v = S.view;
  const active = room && room.status === "playing" && S.seat !== null && v && !v.seats[S.seat].escaped && v.phase !== "over";
  if (active && !(await confirmBox(t("leave.title"), t("leave.escape_warning", { escape: term("reason", "escape") }), "leave.confirm"))) return;
  const ws = S.ws;
  const seated = S.seat !== null;
  // the socket is dropped at once: whatever it still says (a hand_end of the escape) is never shown
  S.ws = null;
  S.wsWanted = false;
  S.code = null;
  S.handEnd = null;
  S.matchEnd = null;
  closeDialogs();
  if (ws) {
    if (seated && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "leave" }));
    setTimeout(() => ws.close(), 400);
  }
  location.hash = "#/";
}

async function shareLink() {
  if (!S.code) return;
  const link = `${location.origin}/?watch=${S.code}`;
  try {
    await navigator.clipboard.writeText(link);
    toast(t("table.link_copied", { link }), "info");
  } catch (e) {
    toast(t("table.watch_link", { link }), "info");
  }
}

// --- replaying a finished hand -----------------------------------------------------------------------------------
async function openReplay(id) {
  showView("table-view");
  resetTable(null, false);
  const r = await api("GET", `/api/history/${encodeURIComponent(id)}`);
  if (!r.ok || !r.data || !Array.isArray(r.data.steps) || !r.data.steps.length) {
    toast(r.ok ? t("replay.empty") : errText(r));
    location.hash = "#/";
    return;
  }
  S.replay = { data: r.data, k: 0, timer: null };
  S.seat = r.data.seat;
  S.names = r.data.names || null;
  replayGo(0);
}

function replayGo(k) {
  const R = S.replay;
  if (!R) return;
  const steps = R.data.steps;
  R.k = Math.max(0, Math.min(steps.length - 1, k));
  S.view = steps[R.k].view;
  renderAll();
}

function replayPlay() {
  const R = S.replay;
  if (!R) return;
  if (R.timer) { clearInterval(R.timer); R.timer = null; renderAll(); return; }
  R.timer = setInterval(() => {
    if (!S.replay || S.replay !== R || R.k >= R.data.steps.length - 1) { clearInterval(R.timer); R.timer = null; if (S.replay === R) renderAll(); return; }
    replayGo(R.k + 1);
  }, 700);
  renderAll();
}

function recordActionWords(a) {
  if (!a) return t("replay.deal");
  return `${seatName(a.seat)}: ${actionWords(a)}`;
}

function renderReplayControls() {
  const R = S.replay;
  const steps = R.data.steps;
  const step = steps[R.k];
  const last = R.k === steps.length - 1;
  const prompt = $("prompt");
  prompt.hidden = false;
  const res = last && R.data.result ? R.data.result : null;
  const result = res ? [...(res.winners || []), ...(res.explain || []).map((x) => ({ text: x })), ...(res.ledger || [])]
    .map((e) => el("li", { text: lineText(e) })).filter((li) => li.textContent) : [];
  prompt.replaceChildren(
    el("div", { class: "replay-line", id: "replay-line", text: recordActionWords(step.action) }),
    el("div", { class: "row replay-controls" },
      el("button", { id: "replay-first", "aria-label": t("replay.first"), title: t("replay.first"), text: "⏮", on: { click: () => replayGo(0) } }),
      el("button", { id: "replay-prev", "aria-label": t("replay.prev"), title: t("replay.prev"), text: "◀", on: { click: () => replayGo(R.k - 1) } }),
      el("button", { id: "replay-play", class: "primary", "aria-label": t("replay.play"), title: t("replay.play"), text: R.timer ? "⏸" : "▶▶", on: { click: replayPlay } }),
      el("button", { id: "replay-next", "aria-label": t("replay.next"), title: t("replay.next"), text: "▶", on: { click: () => replayGo(R.k + 1) } }),
      el("button", { id: "replay-last", "aria-label": t("replay.last"), title: t("replay.last"), text: "⏭", on: { click: () => replayGo(steps.length - 1) } })),
    result.length ? el("ol", { class: "replay-result" }, result) : "");
}

// --- wiring ---------------------------------------------------------------------------------------------------------
function init() {
  $("login-form").addEventListener("submit", (ev) => { ev.preventDefault(); signIn("login"); });
  $("register-btn").addEventListener("click", () => signIn("register"));
  $("guest-btn").addEventListener("click", () => signIn("guest"));
  $("logout-btn").addEventListener("click", logout);
  $("quickstart").addEventListener("click", quickstart);
  $("create-form").addEventListener("submit", createRoom);
  $("join-form").addEventListener("submit", (ev) => joinByCode(ev, false));
  $("watch-btn").addEventListener("click", () => joinByCode(null, true));
  $("rooms-refresh").addEventListener("click", loadLobby);
  $("relief-btn").addEventListener("click", takeRelief);
  $("password-form").addEventListener("submit", setPassword);
  $("leave-btn").addEventListener("click", leaveTable);
  $("trustee-btn").addEventListener("click", () => send({ type: "trustee", on: !S.trustee }));
  $("trustee-off").addEventListener("click", () => send({ type: "trustee", on: false }));
  $("hint-btn").addEventListener("click", askHint);
  $("log-btn").addEventListener("click", () => { S.logOpen = !S.logOpen; renderAll(); });
  $("share-btn").addEventListener("click", shareLink);
  $("settle-next").addEventListener("click", () => send({ type: "ready" }));
  $("settle-look").addEventListener("click", () => { S.lookAtTable = true; renderAll(); });
  $("settle-leave").addEventListener("click", leaveTable);
  $("settlement").addEventListener("cancel", (ev) => { ev.preventDefault(); S.lookAtTable = true; renderAll(); });
  $("match-again").addEventListener("click", () => { S.handEnd = null; S.matchEnd = null; closeDialogs(); send({ type: "start" }); });
  $("match-lobby").addEventListener("click", () => { closeDialogs(); leaveTable(); });
  for (const sel of document.querySelectorAll("select.lang-select")) sel.addEventListener("change", () => setLang(sel.value));
  window.addEventListener("hashchange", route);
  setInterval(() => { if (!$("table-view").hidden) renderClocks(); }, 250);
  setInterval(() => { if (!$("lobby-view").hidden) loadLobby(); }, 15000);
  // a spectator's link: /?watch=CODE opens that table to watch
  const watch = new URLSearchParams(location.search).get("watch");
  if (watch && /^[A-Za-z0-9]{1,12}$/.test(watch)) history.replaceState(null, "", `/#/t/${watch.toUpperCase()}/watch`);
  Promise.all([loadVocab(), loadMessages(null)]).then(route);
}

document.addEventListener("DOMContentLoaded", init);
