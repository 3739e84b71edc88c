// The wallet: coins, the ledger in the server's words, the daily relief, the password.

import { readMe, refreshMe, setMe } from "./account.js";
import { api } from "./api.js";
import { $, el, signed, toast } from "./dom.js";
import { call } from "./hooks.js";
import { errText, I18N, t, term } from "./i18n.js";
import { S } from "./state.js";

export async function loadWallet() {
  const me = await refreshMe();
  if (!me) { call("route"); return; }
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

export async function takeRelief() {
  const r = await api("POST", "/api/relief", {});
  if (!r.ok) { toast(errText(r)); return; }
  toast(t("wallet.relief_granted", { amount: r.data.granted }), "info");
  loadWallet();
}

export async function setPassword(ev) {
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
