// The PushBus console: plain JavaScript, no framework, no build step. Everything a device or an
// app wrote (tags, aliases, names, payloads) reaches the page through text nodes only: the page
// never assigns HTML, so nothing from the server can run as script.
"use strict";

const state = { role: null, appKey: null, csrf: null, historyBefore: null };

// MARK: helpers

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

/** An element with attributes and children (strings become text nodes). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "onclick") node.addEventListener("click", value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function showError(error) {
  const box = $("#error");
  box.textContent = error ? (error.code ? `${error.message} (code ${error.code})` : String(error.message || error)) : "";
  box.hidden = !error;
}

function notice(selector, text) {
  const box = $(selector);
  box.textContent = text;
  box.hidden = !text;
}

/** Calls the REST API as the signed-in session: `/console/api` + path. */
async function api(method, path, body) {
  const headers = { "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && state.csrf) headers["X-CSRF-Token"] = state.csrf;
  const response = await fetch("/console/api" + path, {
    method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answer(response);
}

async function answer(response) {
  let json = null;
  try { json = await response.json(); } catch (_) { /* not JSON */ }
  if (!response.ok) {
    const error = new Error((json && json.error && json.error.message) || `HTTP ${response.status}`);
    error.code = json && json.error && json.error.code;
    error.status = response.status;
    if (response.status === 401) { signedOut(); }
    throw error;
  }
  return json;
}

const list = (text) => text.split(",").map((item) => item.trim()).filter((item) => item.length > 0);
const time = (text) => text ? text.replace("T", " ").replace(/Z$/, "").replace(/\.\d+$/, "") : "";
const enc = encodeURIComponent;

// MARK: session and pages

async function start() {
  $("#signin-form").addEventListener("submit", signIn);
  $$("#signin-form input[name=as]").forEach((radio) => radio.addEventListener("change", () => {
    const admin = $("#signin-form input[name=as]:checked").value === "admin";
    $$(".for-app", $("#signin-form")).forEach((node) => { node.hidden = admin; });
    $$(".for-admin", $("#signin-form")).forEach((node) => { node.hidden = !admin; });
  }));
  $("#signout").addEventListener("click", signOut);
  $("#app-form").addEventListener("submit", createApp);
  $("#apns-form").addEventListener("submit", uploadCredentials);
  setUpCompose();
  $("#history-more").addEventListener("click", () => loadHistory(false));
  $("#device-form").addEventListener("submit", lookUpDevice);
  $("#stats-form").addEventListener("submit", showStats);
  window.addEventListener("hashchange", route);
  // The page's own link again reloads it (the hash does not change, so no hashchange comes).
  $$("#nav a").forEach((link) => link.addEventListener("click", () => { if (location.hash === link.getAttribute("href")) route(); }));
  try {
    const session = await answer(await fetch("/console/session", { credentials: "same-origin" }));
    if (session.role) { signedIn(session); } else { signedOut(); }
  } catch (error) { showError(error); }
}

async function signIn(event) {
  event.preventDefault();
  const admin = $("#signin-form input[name=as]:checked").value === "admin";
  const body = admin ? { admin_secret: $("#signin-admin-secret").value }
                     : { app_key: $("#signin-app-key").value.trim(), master_secret: $("#signin-master-secret").value };
  try {
    const response = await fetch("/console/session", {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const session = await answer(response);
    $("#signin-form").reset();
    showError(null);
    signedIn(session);
  } catch (error) { showError(error); }
}

async function signOut() {
  try {
    await fetch("/console/session", { method: "DELETE", credentials: "same-origin", headers: { "X-CSRF-Token": state.csrf || "" } });
  } finally { signedOut(); }
}

function signedIn(session) {
  state.role = session.role;
  state.appKey = session.app_key || null;
  state.csrf = session.csrf_token;
  $("#who").textContent = state.role === "admin" ? "admin" : `app ${state.appKey}`;
  $("#signout").hidden = false;
  $("#nav").hidden = false;
  $$("#nav a").forEach((link) => { link.hidden = link.dataset.role !== state.role; });
  const first = state.role === "admin" ? "#apps" : "#compose";
  if (!location.hash || !$(`#nav a[href="${location.hash}"]`) || $(`#nav a[href="${location.hash}"]`).hidden) location.hash = first;
  route();
}

function signedOut() {
  Object.assign(state, { role: null, appKey: null, csrf: null });
  $("#who").textContent = "";
  $("#signout").hidden = true;
  $("#nav").hidden = true;
  show("signin");
}

function show(page) {
  $$("main > section").forEach((section) => { section.hidden = section.id !== `page-${page}`; });
}

function route() {
  if (!state.role) return show("signin");
  const page = (location.hash || "#").slice(1);
  const allowed = $$("#nav a").filter((link) => !link.hidden).map((link) => link.getAttribute("href").slice(1));
  const current = allowed.includes(page) ? page : allowed[0];
  show(current);
  showError(null);
  ({ apps: loadApps, compose: estimate, history: () => loadHistory(true), devices: () => {}, stats: () => {} })[current]();
}

// MARK: apps (admin)

async function loadApps() {
  try {
    const reply = await api("GET", "/v1/apps?limit=500");
    const body = $("#apps-table tbody");
    body.replaceChildren(...reply.apps.map((app) => el("tr", {}, el("td", {}, app.app_key), el("td", {}, app.name), el("td", {}, time(app.created_at)))));
    $("#apns-app").replaceChildren(...reply.apps.map((app) => el("option", { value: app.app_key }, `${app.app_key} (${app.name})`)));
  } catch (error) { showError(error); }
}

async function createApp(event) {
  event.preventDefault();
  const body = { name: $("#app-name").value.trim() };
  const key = $("#app-key").value.trim();
  if (key) body.app_key = key;
  try {
    const created = await api("POST", "/v1/apps", body);
    $("#app-form").reset();
    notice("#app-created", `Created ${created.app_key}. Its master secret, shown this once: ${created.master_secret}`);
    await loadApps();
    $("#apns-app").value = created.app_key;
  } catch (error) { showError(error); }
}

async function uploadCredentials(event) {
  event.preventDefault();
  const file = $("#apns-p8").files[0];
  if (!file) return showError(new Error("choose the .p8 key file"));
  const appKey = $("#apns-app").value;
  try {
    const p8 = await file.text();
    await api("PUT", `/v1/apps/${enc(appKey)}/apns`, {
      team_id: $("#apns-team").value.trim(), key_id: $("#apns-key-id").value.trim(), bundle_id: $("#apns-bundle").value.trim(), p8,
    });
    $("#apns-form").reset();
    notice("#apns-saved", `APNs key stored for ${appKey}.`);
  } catch (error) { showError(error); }
}

// MARK: compose

function setUpCompose() {
  const form = $("#compose-form");
  const refresh = () => {
    const audience = $("input[name=audience]:checked", form).value;
    $(".audience-tags", form).hidden = audience !== "tags";
    $(".audience-list", form).hidden = !["alias", "registration_id"].includes(audience);
    const kind = $("input[name=kind]:checked", form).value;
    $$(".for-notification", form).forEach((node) => { node.hidden = kind !== "notification"; });
    $$(".for-inapp", form).forEach((node) => { node.hidden = kind !== "inapp_message"; });
    const when = $("input[name=when]:checked", form).value;
    $$(".for-at, .for-periodical", form).forEach((node) => { node.hidden = !node.classList.contains(`for-${when}`); });
  };
  $$("input[type=radio]", form).forEach((radio) => radio.addEventListener("change", () => { refresh(); estimateSoon(); }));
  $$("#aud-tag, #aud-tag-and, #aud-tag-not, #aud-list").forEach((input) => input.addEventListener("input", estimateSoon));
  $("#preview-button").addEventListener("click", preview);
  form.addEventListener("submit", send);
  refresh();
}

/** The audience as `push.send`'s `to`. */
function audience() {
  const kind = $("#compose-form input[name=audience]:checked").value;
  if (kind === "all") return "all";
  if (kind === "tags") {
    const to = {};
    for (const [key, id] of [["tag", "#aud-tag"], ["tag_and", "#aud-tag-and"], ["tag_not", "#aud-tag-not"]]) {
      const names = list($(id).value);
      if (names.length) to[key] = names;
    }
    return to;
  }
  return { [kind]: list($("#aud-list").value) };
}

let estimateTimer = null;
function estimateSoon() {
  clearTimeout(estimateTimer);
  estimateTimer = setTimeout(estimate, 300);
}

async function estimate() {
  const output = $("#estimate");
  const to = audience();
  if (to !== "all" && Object.keys(to).length === 0) { output.textContent = "0"; return; }
  try {
    const reply = await api("POST", "/v4/audience/estimate", { to });
    output.textContent = String(reply.count);
  } catch (error) { output.textContent = "?"; showError(error); }
}

/** The push as `POST /v4/push` takes it. */
function pushBody() {
  const kind = $("#compose-form input[name=kind]:checked").value;
  const title = $("#msg-title").value.trim();
  const text = $("#msg-body").value;
  let extras;
  const extrasText = $("#msg-extras").value.trim();
  if (extrasText) {
    try { extras = JSON.parse(extrasText); } catch (_) { throw new Error("extras is not a JSON object"); }
    if (typeof extras !== "object" || Array.isArray(extras) || extras === null) throw new Error("extras is not a JSON object");
  }
  const body = { platform: "ios" };
  if (kind === "notification") {
    const ios = { alert: title ? { title, body: text } : text };
    const sound = $("#msg-sound").value.trim();
    const badge = $("#msg-badge").value.trim();
    if (sound) ios.sound = sound;
    if (badge) ios.badge = /^[+-]/.test(badge) ? badge : Number(badge);
    if (extras) ios.extras = extras;
    body.notification = { ios };
  } else if (kind === "message") {
    body.message = { msg_content: text };
    if (title) body.message.title = title;
    if (extras) body.message.extras = extras;
  } else {
    body.inapp_message = { type: $("#msg-inapp-type").value, title, content: text, target: list($("#msg-pages").value) };
    if (extras) body.inapp_message.extras = extras;
  }
  body.options = { time_to_live: Number($("#msg-ttl").value || 0) };
  return { to: audience(), body };
}

async function preview() {
  try {
    const reply = await api("POST", "/v4/push/validate", pushBody());
    $("#preview").textContent = JSON.stringify(reply.preview, null, 2);
    showError(null);
  } catch (error) { showError(error); }
}

/** `yyyy-MM-dd HH:mm:ss` from a datetime-local value. */
function wallClock(value) {
  if (!value) throw new Error("choose a time");
  const [date, clock] = value.split("T");
  return `${date} ${clock.length === 5 ? clock + ":00" : clock}`;
}

async function send(event) {
  event.preventDefault();
  try {
    const push = pushBody();
    const when = $("#compose-form input[name=when]:checked").value;
    if (when === "now") {
      const reply = await api("POST", "/v4/push", push);
      notice("#sent", `Sent: msg_id ${reply.msg_id}`);
    } else {
      const start = wallClock($("#when-time").value);
      const trigger = when === "at" ? { single: { time: start } } : { periodical: {
        start, end: wallClock($("#when-end").value), time: start.slice(11), time_unit: $("#when-unit").value,
        point: list($("#when-points").value),
      } };
      const name = $("#when-name").value.trim() || `console ${start}`;
      const reply = await api("POST", "/v4/schedules", { name, enabled: true, trigger, timezone: "UTC", push });
      notice("#sent", `Scheduled: ${reply.schedule_id}`);
    }
    showError(null);
  } catch (error) { showError(error); }
}

// MARK: history

async function loadHistory(fresh) {
  try {
    if (fresh) { state.historyBefore = null; $("#history-table tbody").replaceChildren(); }
    const query = state.historyBefore ? `&before=${enc(state.historyBefore)}` : "";
    const reply = await api("GET", `/v4/messages?limit=20${query}`);
    const ids = reply.messages.map((message) => message.msg_id);
    const details = ids.length ? await api("GET", `/v4/status/detail?message_ids=${ids.map(enc).join(",")}`) : {};
    $("#history-table tbody").append(...reply.messages.map((message) => historyRow(message, details[message.msg_id] || {})));
    state.historyBefore = reply.next || null;
    $("#history-more").hidden = !reply.next;
    if (fresh) drawHistoryChart(reply.messages);
    await loadSchedules();
  } catch (error) { showError(error); }
}

function audienceText(to) {
  if (to === "all") return "everyone";
  return Object.entries(to || {}).map(([key, values]) => `${key}: ${[].concat(values).join(", ")}`).join("; ");
}

/** The text a push shows: its alert (or title and body), a message's content, an in-app message's title. */
function summary(message) {
  const payload = message.payload || {};
  const alert = payload.aps && payload.aps.alert;
  if (typeof alert === "string") return alert;
  if (alert) return [alert.title, alert.body].filter(Boolean).join(": ");
  return payload.msg_content || payload.title || payload.content || "";
}

function historyRow(message, detail) {
  const failed = detail.failed || {};
  const reasons = Object.entries(failed).map(([reason, count]) => `${reason} ${count}`).join(", ");
  const withdraw = el("button", { type: "button", class: "small" }, "Withdraw");
  withdraw.addEventListener("click", async () => {
    try { await api("DELETE", `/v4/push/withdraw/${enc(message.msg_id)}`); await loadHistory(true); } catch (error) { showError(error); }
  });
  const open = ["queued", "sending"].includes(message.state);
  return el("tr", { "data-msg-id": message.msg_id },
    el("td", {}, message.msg_id), el("td", {}, time(message.created_at)), el("td", {}, message.kind),
    el("td", { class: "summary" }, summary(message)), el("td", {}, audienceText(message.to)), el("td", { class: "state" }, detail.state || message.state),
    el("td", { class: "targets" }, detail.targets ?? message.targets), el("td", { class: "sent" }, detail.sent ?? message.sent),
    el("td", { class: "failed", title: reasons }, message.failed + (reasons ? ` (${reasons})` : "")),
    el("td", { class: "received" }, detail.received ?? 0), el("td", { class: "opened" }, detail.opened ?? 0),
    el("td", {}, open ? withdraw : ""));
}

function drawHistoryChart(messages) {
  const now = Date.now();
  const hours = Array.from({ length: 24 }, (_, index) => ({ start: now - (23 - index) * 3600e3, count: 0 }));
  for (const message of messages) {
    const age = Math.floor((now - Date.parse(message.created_at)) / 3600e3);
    if (age >= 0 && age < 24) hours[23 - age].count += message.sent;
  }
  $("#history-chart").replaceChildren(barChart(hours.map((hour) => ({ label: new Date(hour.start).getUTCHours() + "h", count: hour.count }))));
}

/** Bars with their counts: SVG drawn here, no library. */
function barChart(bars) {
  const width = 720, height = 180, pad = 24;
  const most = Math.max(1, ...bars.map((bar) => bar.count));
  const step = (width - pad) / Math.max(1, bars.length);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height + 20}`, class: "chart", role: "img" });
  bars.forEach((bar, index) => {
    const barHeight = Math.round((bar.count / most) * (height - pad));
    const x = pad + index * step;
    const rect = svg("rect", { x: x + 1, y: height - barHeight, width: Math.max(1, step - 2), height: barHeight, class: "bar" });
    rect.append(svg("title", {}, `${bar.label}: ${bar.count}`));
    chart.append(rect);
    if (bars.length <= 31 || index % Math.ceil(bars.length / 31) === 0) {
      chart.append(svg("text", { x: x + step / 2, y: height + 14, "text-anchor": "middle", class: "label" }, bar.label));
    }
  });
  chart.append(svg("text", { x: 2, y: 12, class: "label" }, String(most)));
  return chart;
}

async function loadSchedules() {
  const reply = await api("GET", "/v4/schedules");
  $("#schedules-table tbody").replaceChildren(...(reply.schedules || []).map((schedule) => {
    const toggle = el("button", { type: "button", class: "small" }, schedule.enabled ? "Pause" : "Resume");
    toggle.addEventListener("click", async () => {
      try { await api("PUT", `/v4/schedules/${enc(schedule.schedule_id)}`, { enabled: !schedule.enabled }); await loadSchedules(); } catch (error) { showError(error); }
    });
    const remove = el("button", { type: "button", class: "small" }, "Delete");
    remove.addEventListener("click", async () => {
      try { await api("DELETE", `/v4/schedules/${enc(schedule.schedule_id)}`); await loadSchedules(); } catch (error) { showError(error); }
    });
    const sent = el("td", { class: "schedule-sent" }, "…");
    api("GET", `/v4/schedules/${enc(schedule.schedule_id)}/msg-ids`).then((ids) => { sent.textContent = String(ids.count); }, () => { sent.textContent = "?"; });
    return el("tr", { "data-schedule-id": schedule.schedule_id }, el("td", {}, schedule.name), el("td", {}, JSON.stringify(schedule.trigger)),
      el("td", {}, schedule.enabled ? "yes" : "no"), sent, el("td", {}, toggle, remove));
  }));
}

// MARK: devices

async function lookUpDevice(event) {
  event.preventDefault();
  const query = $("#device-query").value.trim();
  const by = $("#device-form input[name=by]:checked").value;
  const results = $("#device-results");
  results.replaceChildren();
  try {
    const ids = by === "alias" ? (await api("GET", `/v4/aliases/${enc(query)}`)).registration_ids : [query];
    if (!ids.length) { results.append(el("p", {}, "No device has this alias.")); return; }
    for (const id of ids.slice(0, 20)) results.append(deviceCard(await api("GET", `/v4/devices/${enc(id)}/detail`)));
    showError(null);
  } catch (error) { showError(error); }
}

function deviceCard(detail) {
  const device = detail.device;
  const rows = [
    ["Registration ID", device.registration_id], ["Platform", device.platform], ["SDK", device.sdk_version || ""],
    ["APNs token", device.apns_token || "none"],
    ["Environment", device.apns_production ? "production" : "sandbox"], ["VoIP token", device.voip_token || "none"],
    ["Language", device.language || ""], ["Notifications", device.notification_authorization || "not reported"],
    ["Alias", detail.alias || "none"], ["Badge", detail.badge ?? ""],
    ["Online", detail.online ? "yes" : "no"], ["Last seen", time(detail.last_online_time || device.updated_at)],
  ];
  const tags = el("ul", { class: "tags" }, (detail.tags || []).map((tag) => el("li", {}, tag)));
  const messages = el("table", { class: "device-messages" },
    el("thead", {}, el("tr", {}, el("th", {}, "msg_id"), el("th", {}, "Created"), el("th", {}, "Result"), el("th", {}, "Answered"))),
    el("tbody", {}, (detail.messages || []).map((message) => el("tr", { "data-msg-id": message.msg_id },
      el("td", {}, message.msg_id), el("td", {}, time(message.created_at)),
      el("td", {}, message.status + (message.reason ? ` (${message.reason})` : "")),
      el("td", {}, message.answered_at ? time(message.answered_at) : "")))));
  return el("article", { class: "device", "data-registration-id": device.registration_id },
    el("dl", {}, rows.map(([name, value]) => [el("dt", {}, name), el("dd", {}, value)])),
    el("h3", {}, "Tags"), tags, el("h3", {}, "Last messages"), messages);
}

// MARK: statistics

async function showStats(event) {
  event.preventDefault();
  const span = $("#stats-span").value;
  const days = { day: 1, week: 7, month: 30 }[span];
  const bucket = span === "day" ? "hour" : "day";
  const to = new Date();
  const from = new Date(to.getTime() - days * 86400e3);
  const name = $("#stats-name").value.trim();
  const query = `from=${enc(from.toISOString().replace(/\.\d+Z$/, "Z"))}&to=${enc(to.toISOString().replace(/\.\d+Z$/, "Z"))}&bucket=${bucket}`
    + (name ? `&name=${enc(name)}` : "");
  try {
    const reply = await api("GET", `/v4/ma/events?${query}`);
    const bars = reply.buckets.map((item) => ({
      label: bucket === "hour" ? `${new Date(item.start).getUTCHours()}h` : item.start.slice(5, 10), count: item.count,
    }));
    const total = bars.reduce((sum, bar) => sum + bar.count, 0);
    $("#stats-chart").replaceChildren(el("p", { id: "stats-total" }, `${total} in all`), barChart(bars));
    showError(null);
  } catch (error) { showError(error); }
}

document.addEventListener("DOMContentLoaded", start);
