// A table's websocket: connecting (again), sending, and what each server message changes. The modules above
// this one listen for the messages of a type (listen); it draws the table through the hook "render", closes
// the settlement's dialogs through "closeDialogs" and follows the address through "route" (hooks.js).

import { refreshMe, setMe } from "./account.js";
import { $, confirmBox, toast } from "./dom.js";
import { hideEffect, onState } from "./effects.js";
import { hideMissed, showMissed, showReconnecting } from "./grace.js";
import { call } from "./hooks.js";
import { errorWords, t, term } from "./i18n.js";
import { logEvent } from "./log.js";
import { answered, S } from "./state.js";

// What the modules above do with a message of a type (main.js registers them): each runs once the message has
// changed S, before the table is drawn again. A type nobody listens for is no mistake: S holds all it says.
const LISTENERS = new Map();

export function listen(type, fn) {
  if (!LISTENERS.has(type)) LISTENERS.set(type, []);
  LISTENERS.get(type).push(fn);
}

export function resetTable(code, watch) {
  Object.assign(S, { code, watch, seat: null, room: null, view: null, version: 0, handNo: 0, names: null,
    handEnd: null, matchEnd: null, timer: null, deadline: null, trustee: false, decision: null, answered: null,
    sel: null, exch: [], hint: null, replaced: false, lookAtTable: false, logOpen: false, jiaoMa: null });
  $("log").replaceChildren();
  call("closeDialogs");
  showReconnecting(false);
  hideMissed();
  hideEffect();  // the last table's win or kong does not play over the next one, nor over a replay
}

// Connects to the table `code` (the router shows its view), unless the page is connected to it already.
export function openTable(code, watch) {
  if (S.code === code && S.watch === watch && S.ws) { call("render"); return; }
  disconnect();
  resetTable(code, watch);
  S.wsWanted = true;
  S.retry = 0;
  connect();
  call("render");
}

export function connect() {
  if (!S.wsWanted) return;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  // a cluster's node that does not run the room names the one that does (4307): /n/NAME/ reaches it
  // through the balancer; every other reconnection goes through the balancer again (docs/deploy.md)
  const node = S.node ? `/n/${encodeURIComponent(S.node)}` : "";
  S.node = null;
  const ws = new WebSocket(`${proto}//${location.host}${node}/ws/${S.code}` + (S.watch ? "?watch=1" : ""));
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
    if (ev.code === 4401) { S.wsWanted = false; setMe(null); call("route"); return; }
    if (ev.code === 4404) { S.wsWanted = false; toast(term("error", "unknown_room")); location.hash = "#/"; return; }
    if (ev.code === 4000) { S.wsWanted = false; S.replaced = true; call("render"); return; }
    if (ev.code === 4307 && ev.reason && S.wsWanted && S.retry < 8) { S.node = ev.reason; S.retry++; connect(); return; }
    if (S.wsWanted) {
      showReconnecting(true); // until the table is back (4503: another node is taking the room over)
      setTimeout(connect, ev.code === 4503 ? 500 : Math.min(5000, 250 * 2 ** S.retry++));
      call("render");
    }
  };
}

// A second socket to the same table, the first closed once the second is greeted: the seat passes
// from one to the other (as to a second window) and is never left to the bot in between.
export function reconnect() {
  const old = S.ws;
  resetTable(S.code, S.watch);
  S.ws = null;
  S.oldWs = old;
  S.wsWanted = true;
  S.retry = 0;
  connect();
}

export function disconnect() {
  S.wsWanted = false;
  if (S.ws) { const ws = S.ws; S.ws = null; ws.close(); }
  if (S.oldWs) { S.oldWs.close(); S.oldWs = null; }
  S.code = null;
  showReconnecting(false);
}

export function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(msg));
}

export function sendAction(action) {
  if (answered()) return; // one answer per decision
  S.answered = S.decision;
  S.sel = null;
  S.exch = [];
  send({ type: "action", action, version: S.version });
  call("render");
}

export async function onTableError(msg) {
  if (msg.code === "stale") return;
  if (msg.for === "sit" && msg.code === "stake_warning") {
    if (await confirmBox(t("stake.title"), errorWords(msg.code, msg.message), "stake.accept")) {
      send({ type: "sit", seat: S.pendingSit, accept_risk: true });
    }
    return;
  }
  toast(errorWords(msg.code, msg.message));
  if (msg.for === "action") S.answered = null;
  call("render");
}

export function onMessage(msg) {
  switch (msg.type) {
    case "hello":
      if (S.oldWs) { S.oldWs.close(); S.oldWs = null; }
      S.retry = 0;
      S.seat = msg.seat;
      S.timeouts = msg.timeouts || null;
      break;
    case "room": {
      if (!S.view) showReconnecting(false); // a room with no hand yet sends no state
      const before = S.room && S.room.status;
      S.room = msg.room;
      S.roomAt = performance.now();
      if (msg.room.status === "playing" && before !== "playing") { S.handEnd = null; S.lookAtTable = false; }
      break;
    }
    case "state":
      if (msg.reset) { $("log").replaceChildren(); S.sel = null; S.exch = []; }
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
      for (const ev of msg.events || []) logEvent(ev);
      onState(msg);
      showReconnecting(false);
      showMissed(msg.missed);
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
  for (const fn of LISTENERS.get(msg.type) || []) fn(msg);
  call("render");
}
