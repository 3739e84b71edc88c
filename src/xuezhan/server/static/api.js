// HTTP: one JSON request, and the code of a refusal (i18n.js words it: errText). No answer at all (offline) is
// status 0 with the code "offline".

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
    return { ok: false, status: 0, data: { error: { code: "offline" } } };
  }
  let data = {};
  try { data = await res.json(); } catch (e) { /* an empty or non-JSON body */ }
  return { ok: res.ok, status: res.status, data };
}

export function errCode(r) { return r.data && r.data.error ? r.data.error.code : null; }
