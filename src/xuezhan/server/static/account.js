// The account: who is signed in (GET /api/me), signing in or up, signing out. It sits below the table's socket
// and the router: signing out closes the socket through the hook "disconnect", and both follow the address
// through "route" (hooks.js).

import { api, errCode } from "./api.js";
import { $, num } from "./dom.js";
import { call } from "./hooks.js";
import { errText, I18N, loadMessages, t } from "./i18n.js";
import { S } from "./state.js";

// GET /api/me answers the account (and, where the server knows them, the tables you sit at).
export function readMe(r) {
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

export function setMe(me) {
  S.me = me;
  $("me-box").hidden = !me;
  if (me) {
    $("me-name").textContent = me.name;
    $("me-coins").textContent = num(me.coins);
    S.tables = me.tables || [];
  }
}

export async function refreshMe() {
  const me = readMe(await api("GET", "/api/me"));
  setMe(me);
  return me;
}

// A refusal that says how long to wait (429 rate_limited, with retry_after): the wait in words,
// counted down each second in the sign-in box until it is over.
let waitTimer = null;
export function showWait(r) {
  const e = r.data && r.data.error;
  if (!e || e.code !== "rate_limited" || typeof e.retry_after !== "number" || e.retry_after <= 0) return false;
  const until = Date.now() + e.retry_after * 1000;
  const box = $("login-error");
  const tick = () => {
    const seconds = Math.ceil((until - Date.now()) / 1000);
    if (seconds <= 0) { clearInterval(waitTimer); waitTimer = null; box.textContent = ""; return; }
    box.textContent = t("login.wait", { seconds });
  };
  if (waitTimer) clearInterval(waitTimer);
  waitTimer = setInterval(tick, 1000);
  tick();
  return true;
}

export async function signIn(kind) {
  const name = $("login-name").value.trim();
  const password = $("login-password").value;
  if (waitTimer) { clearInterval(waitTimer); waitTimer = null; }
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
  if (!r.ok) { if (!showWait(r)) $("login-error").textContent = errText(r); return; }
  $("login-password").value = "";
  const me = readMe(r) || (await refreshMe());
  setMe(me);
  if (me && me.lang && me.lang !== I18N.lang) await loadMessages(me.lang);
  const next = S.after || "#/";
  S.after = null;
  if (location.hash === next) call("route"); else location.hash = next;
}

export async function logout() {
  await api("POST", "/api/logout");
  call("disconnect");
  setMe(null);
  if (location.hash === "#/") call("route"); else location.hash = "#/";
}
