// Tournaments (比赛): the lobby's list (GET /api/tournaments; entering and leaving with
// POST/DELETE /api/tournaments/ID/join) and a tournament's standings page, #/tournament/ID
// (GET /api/tournaments/ID, asked again every few seconds while the page is shown).

import { refreshMe } from "./account.js";
import { api } from "./api.js";
import { $, el, toast } from "./dom.js";
import { errText, I18N, t } from "./i18n.js";
import { S } from "./state.js";

const POLL_MS = 2000;
const T = { id: null, timer: null };

function when(iso) {
  const d = new Date(iso);
  return isNaN(d) ? "" : d.toLocaleString(I18N.lang, { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

function entryText(x) {
  if (x.entry === "match_ticket") return t("tournament.entry_ticket");
  return x.entry > 0 ? t("tournament.entry_coins", { count: x.entry }) : t("tournament.entry_free");
}

function prizesText(x) {
  const prizes = (x.prizes || []).filter((c) => c > 0);
  return prizes.length ? t("tournament.prizes", { list: prizes.map((c, i) => t("tournament.prize_place", { place: i + 1, count: c })).join(" · ") }) : "";
}

function statusText(x) { return t(`common.tournament.${x.status}`); }

// --- the lobby's list -----------------------------------------------------------------------

export async function loadTournaments() {
  const r = await api("GET", "/api/tournaments");
  const list = r.ok && Array.isArray(r.data) ? r.data : [];
  $("tournaments-empty").hidden = list.length > 0;
  $("tournament-list").replaceChildren(...list.map((x) => el("li", { class: "room-item tournament-item", dataset: { tournament: x.id } },
    el("div", { class: "room-head" }, el("b", { text: x.name }), " ",
      el("span", { class: `badge status-${x.status}`, text: statusText(x) })),
    el("div", { class: "muted", text: t("tournament.starts", { time: when(x.starts_at) }) + " · " + entryText(x) }),
    el("div", { class: "muted", text: t("tournament.line", { rounds: x.rounds, hands: x.hands_per_round, min: x.min_players }) }),
    prizesText(x) ? el("div", { class: "muted", text: prizesText(x) }) : null,
    el("div", { class: "muted", text: t("tournament.entrants", { count: (x.entrants || []).length }) }),
    el("div", { class: "row" },
      x.status === "open"
        ? el("button", { class: x.joined ? "ghost" : "primary", dataset: { testid: "tournament-join" },
          text: x.joined ? t("tournament.leave") : t("tournament.join"), on: { click: () => enter(x, !x.joined) } }) : null,
      el("button", { class: "ghost", dataset: { testid: "tournament-view" }, text: t("tournament.view"),
        on: { click: () => { location.hash = `#/tournament/${encodeURIComponent(x.id)}`; } } })))));
}

async function enter(x, join) {
  const r = await api(join ? "POST" : "DELETE", `/api/tournaments/${encodeURIComponent(x.id)}/join`);
  if (!r.ok) { toast(errText(r)); return; }
  toast(join ? t("tournament.joined", { name: x.name }) : t("tournament.left", { name: x.name }), "info");
  loadTournaments();
}

// --- one tournament's standings ---------------------------------------------------------------

export function openTournament(id) {
  closeTournament();
  T.id = id;
  $("tournament-title").textContent = "";
  $("standings-list").replaceChildren();
  showTournament();
  T.timer = setInterval(showTournament, POLL_MS);
}

export function closeTournament() {
  clearInterval(T.timer);
  T.timer = null;
  T.id = null;
}

async function showTournament() {
  const id = T.id;
  if (id === null) return;
  const r = await api("GET", `/api/tournaments/${encodeURIComponent(id)}`);
  if (T.id !== id) return;
  if (!r.ok) {
    $("tournament-status").textContent = errText(r);
    closeTournament();
    return;
  }
  const x = r.data;
  const me = S.me ? S.me.name : null;
  $("tournament-title").textContent = x.name;
  const parts = [statusText(x)];
  if (x.status === "open") parts.push(t("tournament.starts", { time: when(x.starts_at) }));
  if (x.round > 0) parts.push(t("tournament.round", { round: x.round, rounds: x.rounds }));
  parts.push(entryText(x));
  $("tournament-status").textContent = parts.join(" · ");
  $("tournament-prizes").textContent = prizesText(x);
  $("tournament-note").textContent = x.status === "cancelled" ? t("tournament.cancelled_note") : "";
  const mine = (x.standings || []).find((s) => s.name === me);
  const won = x.status === "finished" && mine;
  $("tournament-result").hidden = !won;
  if (won) {
    $("tournament-result").textContent = mine.prize > 0 ? t("tournament.result", { place: mine.place, count: mine.prize })
      : t("tournament.result_place", { place: mine.place });
  }
  $("standings-list").replaceChildren(...(x.standings || []).map((s) => el("tr", { class: s.name === me ? "me" : null, dataset: { place: s.place } },
    el("td", { class: "num", text: String(s.place) }),
    el("td", { text: s.name }),
    el("td", { class: "num " + (s.points > 0 ? "pos" : s.points < 0 ? "neg" : ""), text: String(s.points) }),
    el("td", { class: "num", dataset: { testid: "tournament-prize" }, text: x.status === "finished" && s.prize ? t("common.coins", { count: s.prize }) : "" }))));
  const box = $("tournament-tables");
  box.hidden = !(x.tables && x.tables.length) || x.status !== "running";
  $("tournament-table-list").replaceChildren(...(x.tables || []).map((code) => el("button", {
    class: code === x.table ? "primary" : "ghost", dataset: { testid: code === x.table ? "tournament-table" : "tournament-watch" },
    text: code === x.table ? t("tournament.my_table") : t("tournament.watch", { code }),
    on: { click: () => { location.hash = code === x.table ? `#/t/${code}` : `#/t/${code}/watch`; } } })));
  if (x.status === "finished" || x.status === "cancelled") {
    clearInterval(T.timer);  // nothing moves any more
    T.timer = null;
    if (won) refreshMe();
  }
}
