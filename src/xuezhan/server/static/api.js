// HTTP: one JSON request, and the words of a refusal.

import { errorWords, t } from "./i18n.js";

export async function api(method, path, body) {
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

export function errCode(r) { return r.data && r.data.error ? r.data.error.code : null; }

export function errText(r) {
  const e = r.data && r.data.error;
  return e ? errorWords(e.code, e.message) : t("error.status", { status: r.status });
}
