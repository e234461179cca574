"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
const ROW = 24, PAGE = 200, KEEP = 3000;
const $ = (id) => document.getElementById(id);
// Over a collector's store (the Reports view), the report opened: every call names it.
const openedReport = new URLSearchParams(location.hash.slice(1)).get("report");
const view = {
  overview: null, rows: [], top: 0, moreBefore: false, moreAfter: false, loading: false,
  selected: null, filter: {}, skipped: new Set(), hits: new Map(), last: 0, sessions: 0,
  // seq → "reproduced" | "diverging" | "unchecked" (after verify); seq → recorded gap.
  snapshots: new Map(), gaps: new Map(),
  tab: "event", stateCache: new Map(), formatted: {},
  // Gestures (root seqs) whose descendants the timeline leaves out.
  collapsed: new Set(),
};

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Replaces a node's children; like el(), takes arrays and skips null, undefined and false.
function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))));
}

async function api(endpoint, params) {
  const query = new URLSearchParams();
  if (openedReport && endpoint !== "reports") query.append("report", openedReport);
  for (const [k, v] of Object.entries(params || {})) {
    if (v === undefined || v === null || v === "") continue;
    for (const item of Array.isArray(v) ? v : [v]) query.append(k, item);
  }
  const headers = { "X-Rewind-Token": token };
  let response = await fetch(`/api/${endpoint}?${query}`, { headers });
  // A long call is a job (202): ask about it until its answer is there. The server holds each
  // ask for up to a second, and cancels the job once the page stops asking.
  while (response.status === 202) {
    const job = await response.json();
    showProgress(job);
    const asked = performance.now();
    response = await fetch(`/api/job?id=${encodeURIComponent(job.job)}`, { headers });
    if (response.status === 202 && performance.now() - asked < 200) await new Promise((r) => setTimeout(r, 250));
  }
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

// A job's progress in the status line: `verify: replaying seq 40000 of 1000000 (4%) · 3 s`.
function showProgress(job) {
  const p = job.progress;
  const where = !p ? job.state : p.total ? `${p.what} seq ${p.done} of ${p.total} (${Math.floor((100 * p.done) / p.total)}%)` : `${p.what} ${p.done}`;
  status(`${job.call}: ${where} · ${Math.round(job.seconds)} s`);
}

function banner(message) {
  $("banner").hidden = !message;
  $("banner").textContent = message || "";
}

function status(text) { $("status").textContent = text || ""; }

async function busy(label, work) {
  status(label + "…");
  const started = performance.now();
  try {
    const result = await work();
    status(`${label}: ${Math.round(performance.now() - started)} ms`);
    return result;
  } catch (error) {
    status("");
    throw error;
  }
}

// ---- timeline -------------------------------------------------------------------

function filterParams() {
  const f = view.filter;
  return { session: f.session, case: f.case, file: f.file, since: f.since, until: f.until,
    collapse: view.collapsed.size ? [...view.collapsed].join(",") : undefined };
}

// Collapses or expands what a gesture led to, keeping the timeline where it was.
async function toggleCollapsed(root) {
  if (view.collapsed.has(root)) view.collapsed.delete(root); else view.collapsed.add(root);
  const at = view.rows[Math.floor(view.top)]?.seq ?? root;
  await busy("timeline", () => loadAround(Math.min(at, root)));
  if (view.selected !== null) showEvent().catch((e) => banner(e.message));
}

async function loadAround(seq) {
  const [before, after] = await Promise.all([
    api("events", { ...filterParams(), before: seq, limit: 60 }),
    api("events", { ...filterParams(), after: Math.max(0, seq - 1), limit: PAGE }),
  ]);
  view.rows = before.events.concat(after.events);
  view.moreBefore = before.more;
  view.moreAfter = after.more;
  const index = view.rows.findIndex((e) => e.seq >= seq);
  view.top = Math.max(0, (index < 0 ? view.rows.length : index) - 3);
  render();
  return index < 0 ? null : view.rows[index];
}

async function extend(direction) {
  if (view.loading || view.rows.length === 0) return;
  view.loading = true;
  try {
    if (direction < 0 && view.moreBefore) {
      const page = await api("events", { ...filterParams(), before: view.rows[0].seq, limit: PAGE });
      view.rows = page.events.concat(view.rows);
      view.top += page.events.length;
      view.moreBefore = page.more;
      if (view.rows.length > KEEP) { view.rows.length = KEEP; view.moreAfter = true; }
    } else if (direction > 0 && view.moreAfter) {
      const page = await api("events", { ...filterParams(), after: view.rows[view.rows.length - 1].seq, limit: PAGE });
      view.rows = view.rows.concat(page.events);
      view.moreAfter = page.more;
      if (view.rows.length > KEEP) {
        const cut = view.rows.length - KEEP;
        view.rows.splice(0, cut);
        view.top = Math.max(0, view.top - cut);
        view.moreBefore = true;
      }
    }
  } catch (error) {
    banner(error.message);
  } finally {
    view.loading = false;
  }
  render();
}

function visibleCount() { return Math.ceil($("rows").clientHeight / ROW) + 1; }

function render() {
  const box = $("rows");
  const count = visibleCount();
  view.top = Math.max(0, Math.min(view.top, Math.max(0, view.rows.length - count + 1)));
  const start = Math.floor(view.top);
  box.replaceChildren();
  // Gestures with what they led to among the rows loaded: each can be collapsed.
  const leading = new Set(view.rows.filter((r) => r.root !== undefined && r.root !== r.seq).map((r) => r.root));
  for (let i = start; i < Math.min(view.rows.length, start + count); i++) {
    const e = view.rows[i];
    const row = el("div", {
      class: "row" + (e.seq === view.selected ? " selected" : "") + (view.skipped.has(e.seq) ? " skipped" : "") + (view.hits.has(e.seq) ? " hit" : ""),
      "data-seq": e.seq, onclick: () => select(e.seq),
    },
      el("input", { type: "checkbox", title: "Leave out in what-if", checked: view.skipped.has(e.seq),
        onclick: (event) => { event.stopPropagation(); toggleSkip(e.seq); } }),
      el("span", { class: "seq" }, e.seq),
      el("span", { class: "time" }, e.time.slice(11, 23)),
      el("span", { class: "case", title: e.action },
        // A gesture with what it led to folds like a tree node; other rows keep the room.
        view.collapsed.has(e.seq) || leading.has(e.seq) ? el("button", {
          class: "fold", "data-root": e.seq,
          "aria-label": `${view.collapsed.has(e.seq) ? "show" : "collapse"} what seq ${e.seq} led to`,
          title: view.collapsed.has(e.seq) ? "Show what this gesture led to" : "Collapse what this gesture led to",
          onclick: (event) => { event.stopPropagation(); toggleCollapsed(e.seq).catch((error) => banner(error.message)); },
        }, view.collapsed.has(e.seq) ? "\u25b8" : "\u25be") : el("span", { class: "fold" }),
        e.action,
        e.redaction ? el("span", { class: "tag", title: e.redaction }, "redacted") : null,
        view.hits.has(e.seq) ? el("span", { class: "tag bad" }, view.hits.get(e.seq)) : null,
        view.snapshots.has(e.seq) ? el("span", { class: "tag " + view.snapshots.get(e.seq), title: snapshotTitle(view.snapshots.get(e.seq)) }, "snapshot") : null,
        view.gaps.has(e.seq) ? el("span", { class: "tag bad", title: view.gaps.get(e.seq).reason },
          `gap: ${view.gaps.get(e.seq).lost} lost after this`) : null,
        ),
      el("span", { class: "src", title: `${e.file}:${e.line} in ${e.function}` }, `${e.file.split("/").pop()}:${e.line}`),
      el("span", { class: "origin" }, e.origin));
    row.style.top = `${(i - start) * ROW}px`;
    box.append(row);
  }
  const first = view.rows[start];
  if (first) $("scrubber").value = first.seq;
  const shown = view.rows.length === 0 ? "no events match" :
    `seq ${view.rows[start]?.seq ?? ""}–${view.rows[Math.min(view.rows.length, start + count) - 1]?.seq ?? ""}` +
    (view.moreBefore || view.moreAfter ? " (scroll or drag for more)" : "");
  $("rows-footer").textContent = shown;
  if (view.top < 40 && view.moreBefore) extend(-1);
  if (view.top + count > view.rows.length - 40 && view.moreAfter) extend(1);
}

function snapshotTitle(status) {
  return { reproduced: "recorded snapshot, reproduced by replay", diverging: "recorded snapshot: replay diverges here",
    unchecked: "recorded snapshot, after the first divergence (not compared)" }[status] || "recorded snapshot";
}

// The strip above the timeline: snapshots verify compared (at most one mark a pixel
// column), gaps, and where invariants and conditions first held, over the whole log.
function renderMarks() {
  const marks = $("marks");
  marks.replaceChildren();
  const [low, high] = view.overview?.seqs || [1, 1];
  const at = (seq) => `${high > low ? ((seq - low) / (high - low)) * 100 : 0}%`;
  const columns = new Set();
  const width = Math.max(1, marks.clientWidth);
  const mark = (seq, kind, title) => {
    const column = `${kind}:${Math.round(((seq - low) / Math.max(1, high - low)) * width)}`;
    if (columns.has(column)) return;
    columns.add(column);
    const node = el("i", { class: kind, title });
    node.style.left = at(seq);
    marks.append(node);
  };
  for (const [seq, status] of view.snapshots) if (status !== "diverging") mark(seq, status, `seq ${seq}: ${snapshotTitle(status)}`);
  for (const [seq, status] of view.snapshots) if (status === "diverging") mark(seq, "bad", `seq ${seq}: ${snapshotTitle(status)}`);
  for (const [seq, gap] of view.gaps) mark(seq, "bad", `seq ${seq}: ${gap.lost} actions lost after it`);
  for (const [seq, label] of view.hits) mark(seq, "bad", `${label} at seq ${seq}`);
}

async function select(seq, { scroll = true } = {}) {
  view.selected = seq;
  let index = view.rows.findIndex((e) => e.seq === seq);
  if (index < 0) {
    await loadAround(seq);
    index = view.rows.findIndex((e) => e.seq === seq);
  }
  if (scroll && index >= 0) {
    const count = visibleCount();
    if (index < view.top || index >= view.top + count - 1) view.top = Math.max(0, index - Math.floor(count / 3));
  }
  render();
  history.replaceState(null, "", `?token=${encodeURIComponent(token)}#seq=${seq}`);
  await showTab(view.tab);
}

function step(delta) {
  if (view.rows.length === 0) return;
  const index = view.rows.findIndex((e) => e.seq === view.selected);
  const next = index < 0 ? Math.floor(view.top) : Math.max(0, Math.min(view.rows.length - 1, index + delta));
  select(view.rows[next].seq);
}

function toggleSkip(seq) {
  if (view.skipped.has(seq)) view.skipped.delete(seq); else view.skipped.add(seq);
  render();
  renderSkipped();
}

// ---- detail panels --------------------------------------------------------------

async function showTab(tab) {
  view.tab = tab;
  for (const button of document.querySelectorAll("#tabs button")) button.classList.toggle("active", button.dataset.tab === tab);
  for (const panel of document.querySelectorAll(".panel")) panel.hidden = panel.id !== `panel-${tab}`;
  banner("");
  try {
    if (tab === "event") await showEvent();
    if (tab === "state") await showState();
    if (tab === "diff") await showDiff();
    if (tab === "sessions") await showSessions();
  } catch (error) {
    banner(error.message);
  }
}

function needsReplay(panel) {
  const app = (view.overview?.apps || [])[0];
  if (!app || app.replayable) return false;
  fill(panel, el("p", { class: "hint" },
    `This tool does not know the app '${app.id}': states, diffs, invariants, what-if and verify need its types. ` +
    "Serve the log with the app's own replay tool (see \u201cBuilding your own replay tool\u201d)."));
  return true;
}

async function showEvent() {
  const panel = $("panel-event");
  if (view.selected === null) return;
  const report = await busy("event", () => api("event", { at: view.selected }));
  const e = report.event || report;
  fill(panel,
    el("h2", {}, `seq ${e.seq} \u00b7 ${e.action}`),
    el("dl", { class: "fields" },
      el("dt", {}, "time"), el("dd", {}, e.time),
      el("dt", {}, "session"), el("dd", {}, e.session),
      el("dt", {}, "source"), el("dd", {}, `${e.file}:${e.line}:${e.column}`),
      el("dt", {}, "function"), el("dd", {}, e.function),
      el("dt", {}, "origin"), el("dd", {}, e.origin),
      e.info ? [el("dt", {}, "note"), el("dd", {}, e.info)] : null,
      e.redaction ? [el("dt", {}, "redaction"), el("dd", {}, e.redaction)] : null),
    el("h3", {}, "why"),
    el("div", { id: "why" }, el("span", { class: "hint" }, "\u2026")),
    el("h3", {}, "payload"),
    tree(e.payload === undefined ? null : e.payload, "", 8));
  const seq = e.seq;
  const why = await api("why", { at: seq }).catch(() => null);
  if (view.selected === seq && $("why")) fill($("why"), whyChain(why), collapseButton(why));
}

// Under the chain: hide (or show again) everything its gesture led to, in the timeline.
function collapseButton(report) {
  const root = report && report.start === "root" ? report.chain[0].seq : null;
  if (root === null || (report.chain.length === 1 && !view.collapsed.has(root) &&
      !view.rows.some((r) => r.root === root && r.seq !== root))) return null;
  return el("button", { id: "collapse-gesture", class: "below", onclick: () => toggleCollapsed(root).catch((e) => banner(e.message)) },
    view.collapsed.has(root) ? `Show what seq ${root} led to` : `Collapse what seq ${root} led to`);
}

// Why an event happened (`rewind why`): the chain of causes from the gesture that started it,
// each step one click from its seq.
function whyChain(report) {
  if (!report) return el("span", { class: "hint" }, "causes could not be read");
  const unknown = report.start === "unknown";
  if (report.chain.length === 1) {
    return el("span", { class: "hint" }, unknown
      ? "its cause is not known (recorded before causes were, or lost in a gap or another session)"
      : "nothing caused it: a gesture or outside event");
  }
  return el("ol", { class: "chain" },
    unknown ? el("li", { class: "hint" }, "\u2026 a cause not known") : null,
    report.chain.map((c, index) => el("li", { class: c.seq === report.seq ? "this" : "" },
      el("a", { href: "#", onclick: (event) => { event.preventDefault(); select(c.seq).catch((e) => banner(e.message)); } }, `seq ${c.seq}`),
      " ", c.action, " ", el("span", { class: "hint" }, `${c.file}:${c.line} [${c.origin}]${index === 0 && !unknown ? " \u2014 the gesture" : ""}`))));
}

async function showState() {
  const panel = $("panel-state");
  if (view.selected === null || needsReplay($("state-tree"))) return;
  const seq = view.selected;
  const report = view.stateCache.get(seq) || await busy("state", () => api("state", { at: seq }));
  view.stateCache.set(seq, report);
  if (view.stateCache.size > 50) view.stateCache.delete(view.stateCache.keys().next().value);
  if (view.selected !== seq) return;
  $("state-info").textContent = `after seq ${report.seq} (session ${report.session}): replayed ${report.eventsFolded} events from ` +
    (report.fromSnapshot ? `the snapshot at seq ${report.fromSnapshot}` : "the session's initial state") +
    (report.skipped?.length ? `; skipped ${report.skipped.length} undecodable` : "");
  view.formatted = report.formatted || {};
  renderState(report.state);
  panel.dataset.seq = seq;
}

function renderState(state) {
  const query = $("state-search").value.trim().toLowerCase();
  fill($("state-tree"), tree(state, query, 2, view.formatted || {}, showHistory));
}

// A value's history (`rewind blame`): every action of the session that changed it, each one
// click from its seq.
async function showHistory(path) {
  const session = view.stateCache.get(view.selected)?.session;
  const box = $("state-history");
  try {
    const report = await busy("history", () => api("blame", { path, session }));
    const shown = (v) => (v === undefined || v === null ? "\u2014" : JSON.stringify(v));
    fill(box, el("div", { class: "heading" }, `${report.path}: changed by ${report.changes.length} of ${report.eventsReplayed} actions`,
      " ", el("button", { onclick: () => fill(box) }, "close")),
      el("table", {}, report.changes.map((c) => el("tr", {},
        el("td", {}, el("a", { href: "#", onclick: (event) => { event.preventDefault(); select(c.seq).catch((e) => banner(e.message)); } }, `seq ${c.seq}`)),
        el("td", {}, c.action), el("td", { class: "hint" }, `${c.file}:${c.line}`),
        el("td", {}, `${shown(c.old)} \u2192 ${shown(c.new)}`)))));
  } catch (error) { banner(error.message); }
}

async function showDiff() {
  if (view.selected === null || needsReplay($("diff-text"))) return;
  const report = await busy("diff", () => api("diff", { at: view.selected }));
  $("diff-info").textContent = `what seq ${report.seq} (${report.event?.action}) changed:`;
  renderDiff($("diff-text"), report.diff, "(the action changed nothing)");
  if (!$("diff-from").value) $("diff-from").value = Math.max(1, view.selected - 1);
  if (!$("diff-to").value) $("diff-to").value = view.selected;
}

function renderDiff(node, diff, empty) {
  node.replaceChildren();
  if (!diff) { node.append(el("span", { class: "hint" }, empty)); return; }
  for (const line of diff.split("\n")) {
    const kind = line.startsWith("-") || line.startsWith("\u2212") ? "minus" : line.startsWith("+") ? "plus" : "";
    node.append(kind ? el("span", { class: kind }, line) : line + "\n");
  }
}

// How a session ended: its kind, and for a crash the signal, with where it struck as a tooltip;
// for a hang the action the store was stuck in, with where it was sent from.
function ended(ending) {
  if (!ending) return el("td", {}, "\u2014");
  const hang = ending.hang;
  if (hang) {
    const where = `${hang.source.file}:${hang.source.line} ${hang.source.function}`;
    return el("td", { class: "bad", title: `inside ${hang.actionCase} for over ${hang.limit} s, sent from ${where}` },
      `hung (${hang.actionCase})`);
  }
  const crash = ending.crash;
  if (!crash) return el("td", { class: ending.kind === "unclean" ? "bad" : "" }, ending.kind);
  const place = crash.image ? ` in ${crash.image.split("/").pop()}+0x${(crash.imageOffset || 0).toString(16)}` : "";
  const lost = crash.uncommitted > 0 ? `; ${crash.uncommitted} action(s) reduced, never committed` : "";
  return el("td", { class: "bad", title: `${crash.signalName} at 0x${crash.address.toString(16)}${place}${lost}` },
    `crashed (${crash.signalName})`);
}

async function showSessions() {
  const overview = view.overview;
  const rows = (overview.sessions || []).map((s) => el("tr", {},
    el("td", {}, s.id), el("td", {}, s.app), el("td", {}, s.appVersion), el("td", {}, `${s.actionSchemaVersion}/${s.stateSchemaVersion}`),
    el("td", { title: [s.actionFingerprint, s.stateFingerprint].filter(Boolean).join(" / ") },
      s.actionFingerprint || s.stateFingerprint ? `${(s.actionFingerprint || "\u2014").slice(0, 8)}/${(s.stateFingerprint || "\u2014").slice(0, 8)}` : "\u2014"),
    el("td", {}, s.codec + (s.keyID ? ` \u00b7 key ${s.keyID}` : "")), el("td", {}, s.startedAt), el("td", {}, s.events),
    el("td", {}, s.firstSeq ? `${s.firstSeq}\u2013${s.lastSeq}` : "\u2014"),
    ended(s.ending),
    el("td", { class: s.gap ? "bad" : "" }, s.gap ? `gap: ${s.gap.lost} actions lost after seq ${s.gap.afterSeq}` : "")));
  fill($("sessions"), el("h2", {}, "Sessions"), el("table", {},
    el("tr", {}, ["session", "app", "version", "schemas", "types", "codec", "started", "events", "seqs", "ended", ""].map((h) => el("th", {}, h))), rows));
  const stats = await busy("stats", () => api("stats", { top: 20, session: view.filter.session, buckets: 60 }));
  const cases = Object.entries(stats.actionCases).sort((a, b) => b[1] - a[1]).slice(0, 20);
  const max = Math.max(1, ...cases.map((c) => c[1]), ...stats.sources.map((s) => s.count));
  const bar = (count) => { const b = el("span", { class: "bar" }); b.style.width = `${Math.max(2, (count / max) * 220)}px`; return b; };
  fill($("stats"),
    el("h2", {}, "Stats"),
    el("p", { class: "info" }, `${stats.events} events in ${stats.sessions} sessions, ${stats.snapshots} snapshots, ` +
      `${(stats.bytesOnDisk / 1048576).toFixed(1)} MB on disk` + (stats.from ? `, ${stats.from} \u2013 ${stats.to}` : "")),
    stats.activity ? [el("h3", {}, `Over time (${stats.activity.total.length} stretches of ${duration(stats.activity.bucketSeconds)})`),
      el("div", { class: "activity" }, [{ name: "all events", counts: stats.activity.total }, ...stats.activity.cases.slice(0, 8)].map((s) => spark(s, "other cases"))),
      el("div", { class: "activity" }, stats.activity.sources.slice(0, 5).map((s) => spark(s, "other sources")))] : null,
    el("h3", {}, "Actions per case"),
    el("table", {}, cases.map(([name, count]) => el("tr", {}, el("td", {}, name), el("td", {}, count), el("td", {}, bar(count))))),
    el("h3", {}, "Actions per source"),
    el("table", {}, stats.sources.map((s) => el("tr", {}, el("td", {}, s.location), el("td", {}, s.count), el("td", {}, bar(s.count))))));
}

function duration(seconds) {
  if (seconds >= 3600) return `${(seconds / 3600).toFixed(1)} h`;
  if (seconds >= 60) return `${(seconds / 60).toFixed(1)} min`;
  if (seconds >= 1) return `${seconds.toFixed(1)} s`;
  return `${(seconds * 1000).toPrecision(2)} ms`;
}

// One series as a row of bars, each scaled to the series' largest stretch.
function spark(series, other) {
  const peak = Math.max(1, ...series.counts);
  const bars = el("span", { class: "spark", title: `${series.name}: ${series.counts.reduce((a, b) => a + b, 0)} events` },
    series.counts.map((count, i) => {
      const bar = el("i", { title: `stretch ${i + 1}: ${count}` });
      bar.style.height = `${count === 0 ? 0 : Math.max(2, (count / peak) * 22)}px`;
      return bar;
    }));
  return el("div", { class: "spark-row" }, el("span", { class: "name", title: series.name }, series.name === "other" ? other : series.name), bars);
}

// A JSON value as nested <details>, open `openDepth` levels deep (and wherever the
// search query matches); a closed level is built only when opened.
// `formatted`: the app's text for some whole numbers, by dotted path (see ValueFormat), shown
// in their place with the stored number beside it.
function tree(value, query, openDepth, formatted = {}, onHistory = null) {
  const matches = (text) => query && String(text).toLowerCase().includes(query);
  const contains = (v) => {
    if (!query) return false;
    if (v !== null && typeof v === "object") return Object.entries(v).some(([k, c]) => matches(k) || contains(c));
    return matches(JSON.stringify(v));
  };
  const leaf = (v, path) => {
    if (v === null) return el("span", { class: "lit" }, "nil");
    if (typeof v === "string") return el("span", { class: "str" }, JSON.stringify(v));
    if (typeof v === "number" && path in formatted) {
      return el("span", { class: "num formatted", title: `stored as ${v}` }, formatted[path], el("span", { class: "hint" }, ` (${v})`));
    }
    if (typeof v === "number") return el("span", { class: "num" }, String(v));
    return el("span", { class: "lit" }, String(v));
  };
  // `path`: dotted, as ValueFormat names values (`cart.lines.0.quantity`); `at`: as blame and
  // --where take it (`cart.lines[0].quantity`).
  const node = (key, v, depth, path, at) => {
    const label = key === null ? [] : [el("span", { class: "key" }, key), ": "];
    if (v === null || typeof v !== "object") {
      const text = formatted[path];
      const blame = at && onHistory ? el("button", { class: "history", title: `every action that changed ${at}`, "aria-label": `history of ${at}`, onclick: () => onHistory(at) }) : null;
      return el("div", { class: "leaf" + (matches(key) || matches(JSON.stringify(v)) || (text && matches(text)) ? " match" : "") }, label, leaf(v, path), blame);
    }
    const entries = Object.entries(v);
    const summary = Array.isArray(v) ? `[${entries.length}]` : `{${entries.length}}`;
    const open = depth < openDepth || contains(v);
    const details = el("details", { open, class: matches(key) ? "match" : "" }, el("summary", {}, label, el("span", { class: "hint" }, summary)));
    const fill = () => {
      if (details.dataset.filled) return;
      details.dataset.filled = "1";
      for (const [k, c] of entries) {
        details.append(node(k, c, depth + 1, path === "" ? k : `${path}.${k}`, Array.isArray(v) ? `${at}[${k}]` : at === "" ? k : `${at}.${k}`));
      }
    };
    if (open) fill(); else details.addEventListener("toggle", fill, { once: true });
    return details;
  };
  return el("div", { class: "tree" }, node(null, value, 0, "", ""));
}

// ---- invariants, bisect, shrink -------------------------------------------------

function renderInvariants() {
  const box = $("invariants");
  if (needsReplay(box)) return;
  const invariants = (view.overview?.apps || []).flatMap((a) => a.invariants);
  fill(box, el("h2", {}, "Invariants"), invariants.length === 0 ? el("p", { class: "hint" }, "The app registers no invariants.") : null,
    invariants.map((inv) => el("div", { class: "invariant" },
      el("span", { class: "name" }, inv.name), el("span", { class: "hint" }, inv.description),
      el("button", { "data-invariant": inv.name, onclick: () => bisect({ invariant: inv.name }, inv.name) }, "Find where it breaks"),
      el("button", { onclick: () => shrink({ invariant: inv.name }) }, "Shrink to a test"))));
}

async function bisect(params, label) {
  const box = $("bisect-result");
  fill(box, el("p", { class: "hint" }, "searching…"));
  try {
    const report = await busy("bisect", () => api("bisect", params));
    if (!report.found) {
      fill(box, el("p", { class: "ok" }, `${report.condition.replace(" breaks", "")}: never (folded ${report.eventsFolded} events)`));
      return;
    }
    if (report.atStart) {
      fill(box, el("p", { class: "bad" }, `${report.condition} already in session ${report.session}'s initial state`));
      return;
    }
    view.hits.set(report.seq, label);
    renderMarks();
    fill(box, el("div", { class: "card" },
      el("p", { class: "bad" }, `${report.condition}: first at seq ${report.seq} (${report.event.action}, ${report.event.file}:${report.event.line})`),
      el("pre", { class: "diff", id: "bisect-diff" }),
      el("p", { class: "hint" }, `checked ${report.snapshotsChecked} snapshots, folded ${report.eventsFolded} events`),
      params.invariant ? el("button", { onclick: () => shrink(params) }, "Shrink to a regression test") : null));
    renderDiff($("bisect-diff"), report.diff, "(no change)");
    await select(report.seq);
  } catch (error) {
    fill(box, el("p", { class: "bad" }, error.message));
  }
}

function download(name, bytes, type) {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  return el("a", { href: url, download: name, class: "seq-link" }, name);
}

async function shrink(params) {
  const box = $("bisect-result");
  showTab("bisect");
  fill(box, el("p", { class: "hint" }, "shrinking: replaying candidates…"));
  try {
    const result = await busy("shrink", () => api("shrink", params));
    const report = result.report;
    if (!report.found) { fill(box, el("p", { class: "ok" }, "nothing to shrink: the condition never holds")); return; }
    const bytes = Uint8Array.from(atob(result.fixture), (c) => c.charCodeAt(0));
    fill(box, el("div", { class: "card", id: "shrink-result" },
      el("p", {}, `Shrunk ${report.originalCount} actions to ${report.keptCount} after which ${report.condition} ` +
        `(replayed ${report.replays} candidates in ${report.seconds.toFixed(2)} s):`),
      el("ol", {}, report.kept.map((e) => el("li", {}, el("a", { class: "seq-link", onclick: () => select(e.seq) }, `seq ${e.seq}`), ` ${e.action} \u00b7 ${e.file}:${e.line}`))),
      el("p", {}, "Download the fixture ", download(result.fixtureName, bytes, "application/vnd.sqlite3"),
        " and the test ", download(result.testName, result.test, "text/x-swift"), ":"),
      el("pre", { class: "diff" }, result.test)));
  } catch (error) {
    fill(box, el("p", { class: "bad" }, error.message));
  }
}

// ---- what-if and verify ---------------------------------------------------------

function renderSkipped() {
  const seqs = [...view.skipped].sort((a, b) => a - b);
  fill($("whatif-skipped"), seqs.length === 0 ? el("p", { class: "hint" }, "Nothing left out yet.") :
    el("p", {}, "Leaving out: ", seqs.map((s, i) => [i ? ", " : "", el("a", { class: "seq-link", onclick: () => select(s) }, `seq ${s}`)])));
}

async function whatIf() {
  const box = $("whatif-result");
  if (view.skipped.size === 0) { fill(box, el("p", { class: "hint" }, "Tick at least one event.")); return; }
  fill(box, el("p", { class: "hint" }, "replaying…"));
  try {
    const report = await busy("what-if", () => api("replay", { without: [...view.skipped].sort((a, b) => a - b), at: $("whatif-through").value.trim() }));
    const diff = el("pre", { class: "diff", id: "whatif-diff" });
    fill(box, el("p", {}, `The state after seq ${report.at} without them (\u2212 as recorded, + without):`), diff);
    renderDiff(diff, report.diff, "(no difference: the final state would be the same)");
  } catch (error) {
    fill(box, el("p", { class: "bad" }, error.message));
  }
}

async function verify() {
  const box = $("verify-result");
  if (needsReplay(box)) return;
  fill(box, el("p", { class: "hint" }, "replaying against every snapshot…"));
  try {
    const report = await busy("verify", () => api("verify", { session: view.filter.session }));
    const index = await api("snapshots", { session: view.filter.session });
    view.snapshots.clear();
    // Verify replays the sessions in order and stops at the first divergence.
    const status = (snapshot) => {
      if (report.agrees) return "reproduced";
      if (snapshot.session !== report.session) return snapshot.session < report.session ? "reproduced" : "unchecked";
      return snapshot.seq < report.seq ? "reproduced" : snapshot.seq === report.seq ? "diverging" : "unchecked";
    };
    for (const snapshot of index.snapshots) {
      if (snapshot.kind !== "initial") view.snapshots.set(snapshot.seq, status(snapshot));
    }
    render();
    renderMarks();
    const gaps = (report.gaps || []).map((g) => el("p", { class: "hint" }, `recorded gap (not folded across): ${g.lost} actions lost after seq ${g.afterSeq} (${g.reason})`));
    if (report.scrubbedFields?.length) {
      gaps.push(el("p", { class: "hint" }, `scrubbed by redaction before comparing (not compared): ${report.scrubbedFields.join(", ")}`));
    }
    if (report.agrees) {
      fill(box, el("p", { class: "ok" }, `Reproduced: replaying ${report.eventsFolded} events of ${report.sessions} session(s) ` +
        `gives all ${report.snapshotsCompared} recorded snapshots (marked green on the timeline).`), gaps);
      return;
    }
    view.hits.set(report.seq, "diverges");
    renderMarks();
    const diff = el("pre", { class: "diff", id: "verify-diff" });
    fill(box, el("div", { class: "card" },
      el("p", { class: "bad" }, "Diverged: the recorded state after ",
        el("a", { class: "seq-link", onclick: () => select(report.seq) }, `seq ${report.seq}`),
        ` differs from the replayed one (they agreed at seq ${report.lastAgreeingSeq}).`),
      el("p", {}, "Recorded (\u2212) vs replayed (+):"), diff), gaps);
    renderDiff(diff, report.diff, "");
  } catch (error) {
    fill(box, el("p", { class: "bad" }, error.message));
  }
}

// ---- live -----------------------------------------------------------------------

async function poll() {
  try {
    const head = await api("head");
    const last = head.seqs ? head.seqs[1] : 0;
    if (head.sessions !== view.sessions) await refreshOverview();
    if (last !== view.last) {
      view.last = last;
      $("scrubber").max = last;
      if (view.overview) view.overview.seqs = head.seqs;
      summarize();
      if ($("follow").checked) {
        await loadAround(last);
        view.top = Math.max(0, view.rows.length - visibleCount() + 1);
        await select(view.rows[view.rows.length - 1]?.seq ?? last);
      } else if (!view.moreAfter) {
        view.moreAfter = true;
        await extend(1);
      }
    }
  } catch (error) {
    status(`live: ${error.message}`);
  }
  setTimeout(poll, 1000);
}

function summarize() {
  const o = view.overview;
  const events = o.sessions.reduce((n, s) => n + s.events, 0);
  $("summary").textContent = o.seqs ? `seq ${o.seqs[0]}\u2013${o.seqs[1]} \u00b7 ${o.sessions.length} session(s) \u00b7 ` +
    o.apps.map((a) => a.id + (a.replayable ? "" : " (no app types)")).join(", ") : "no events yet";
  void events;
}

// How the app's types changed since sessions were recorded, where the schema versions
// do not account for it: what `rewind schema --diff` and replaying warn of.
function renderDrift() {
  const drifts = view.overview.drifts || [];
  $("drift").hidden = drifts.length === 0;
  fill($("drift"), drifts.map((d) => el("div", { class: "drift" },
    el("strong", {}, `${d.label}: ${d.drift.typeName} changed since recorded at ${d.drift.part} schema version ${d.drift.recordedVersion}`),
    el("ul", {}, d.changes.map((c) => el("li", {}, c))),
    el("div", { class: "advice" }, d.drift.advice))));
}

async function refreshOverview() {
  view.overview = await api("overview");
  view.sessions = view.overview.sessions.length;
  view.gaps = new Map(view.overview.sessions.filter((s) => s.gap).map((s) => [s.gap.afterSeq, s.gap]));
  const select = $("f-session");
  const chosen = select.value;
  fill(select, el("option", { value: "" }, "All sessions"),
    view.overview.sessions.map((s) => el("option", { value: s.id }, `session ${s.id} \u00b7 ${s.app} ${s.appVersion}`)));
  select.value = chosen;
  const [low, high] = view.overview.seqs || [1, 1];
  $("scrubber").min = low;
  $("scrubber").max = high;
  view.last = high;
  summarize();
  renderDrift();
  renderInvariants();
  renderMarks();
}

// ---- reports (a collector's store) ----------------------------------------------

function when(seconds) {
  return Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19) : "";
}

// A report's id in the store, from the name the listing gives it (`STORE#ID`).
function reportID(name) { return name.slice(name.lastIndexOf("#") + 1); }

function reportLink(name, text) {
  return el("a", { href: `#report=${encodeURIComponent(reportID(name))}` }, text);
}

async function showReports() {
  $("reports").hidden = false;
  document.querySelector("main").hidden = true;
  $("follow").parentElement.hidden = true;
  let listing;
  try {
    listing = await busy("reading reports", () => api("reports"));
  } catch (error) {
    banner(error.message);
    return;
  }
  const reports = listing.groups.reduce((n, g) => n + g.count, 0);
  $("summary").textContent = `${reports} report(s) \u00b7 ${listing.groups.length} signature(s)`;
  fill($("report-groups"), listing.groups.length === 0 ? el("p", { class: "hint" }, "No reports yet.") :
    el("table", {},
      el("tr", {}, ["reports", "signature", "replays with", "first seen", "last seen", ""].map((h) => el("th", {}, h))),
      listing.groups.map((g) => el("tr", { class: "group" },
        el("td", { class: "count" }, g.count),
        el("td", {}, el("div", {}, g.summary),
          el("details", {}, el("summary", {}, `its ${g.reports.length} report(s)`),
            el("div", { class: "members" }, g.reports.slice(0, 500).map((name) => reportLink(name, `#${reportID(name)}`)),
              g.reports.length > 500 ? `and ${g.reports.length - 500} more` : null))),
        el("td", {}, g.builds.map((b) => el("div", {}, `${b.version || "\u2014"} (schemas ${b.actionSchemaVersion}/${b.stateSchemaVersion}) \u00d7${b.reports}`))),
        el("td", {}, when(g.firstSeen)), el("td", {}, when(g.lastSeen)),
        el("td", {}, reportLink(g.representative, "open the first"))))));
  fill($("report-unreadable"), listing.unreadable.length === 0 ? null : [
    el("p", {}, `${listing.unreadable.length} stored report(s) not read:`),
    el("ul", {}, listing.unreadable.map((u) => el("li", {}, `${u.file}: ${u.reason}`)))]);
}

// The report opened: its header and details in the title line; its trigger's seq, where the
// timeline opens.
async function openReport() {
  $("to-reports").hidden = false;
  const shown = await api("report");
  const h = shown.header, d = shown.details;
  const trigger = h.triggerAction ? ` \u00b7 trigger ${h.triggerAction}` + (h.triggerSource ? ` at ${h.triggerSource.file}:${h.triggerSource.line}` : "") : "";
  $("title").textContent = `${shown.file} \u00b7 ${h.app.id} ${h.app.version}${trigger}`;
  return d && d.triggerSeq ? d.triggerSeq : null;
}

// ---- start ----------------------------------------------------------------------

async function start() {
  let trigger = null;
  if (document.body.dataset.view === "reports") {
    if (!openedReport) return showReports();
    try { trigger = await openReport(); } catch (error) { $("to-reports").hidden = false; banner(error.message); return; }
  }
  try {
    await refreshOverview();
  } catch (error) {
    banner(error.message);
    return;
  }
  const hash = new URLSearchParams(location.hash.slice(1));
  const fromHash = Number(hash.get("seq")) || trigger;
  // `rewind serve --session N` opens the page on that session's events.
  if (hash.get("session")) {
    $("f-session").value = hash.get("session");
    view.filter = { ...view.filter, session: hash.get("session") };
  }
  const [low] = view.overview.seqs || [1];
  await loadAround(fromHash || low);
  if (view.rows.length) await select(fromHash || view.rows[0].seq);
  renderSkipped();
  setTimeout(poll, 1000);
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("#tabs button")) button.addEventListener("click", () => showTab(button.dataset.tab));
  $("rows").addEventListener("wheel", (event) => { event.preventDefault(); view.top += event.deltaY / ROW; render(); }, { passive: false });
  let scrubTimer = null;
  $("scrubber").addEventListener("input", () => {
    clearTimeout(scrubTimer);
    scrubTimer = setTimeout(() => loadAround(Number($("scrubber").value)).catch((e) => banner(e.message)), 120);
  });
  $("jump").addEventListener("submit", (event) => {
    event.preventDefault();
    const seq = Number($("jump-seq").value);
    if (Number.isInteger(seq) && seq > 0) select(seq).catch((e) => banner(e.message));
  });
  $("filters").addEventListener("submit", async (event) => {
    event.preventDefault();
    view.filter = { session: $("f-session").value, case: $("f-case").value, file: $("f-file").value, since: $("f-since").value, until: $("f-until").value };
    banner("");
    try { await loadAround(Number(view.selected || 1)); } catch (error) { banner(error.message); }
  });
  $("state-search").addEventListener("input", () => {
    const report = view.stateCache.get(view.selected);
    if (report) renderState(report.state);
  });
  $("diff-between").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const report = await busy("diff", () => api("diff", { from: $("diff-from").value, to: $("diff-to").value }));
      $("diff-info").textContent = `the state after seq ${report.from} (\u2212) and after seq ${report.to} (+):`;
      renderDiff($("diff-text"), report.diff, "(no difference)");
    } catch (error) { banner(error.message); }
  });
  $("where-form").addEventListener("submit", (event) => { event.preventDefault(); bisect({ where: $("where").value }, "condition"); });
  $("whatif-run").addEventListener("click", whatIf);
  $("whatif-clear").addEventListener("click", () => { view.skipped.clear(); render(); renderSkipped(); });
  $("verify-run").addEventListener("click", verify);
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.key === "ArrowRight" || event.key === "j") { event.preventDefault(); step(1); }
    if (event.key === "ArrowLeft" || event.key === "k") { event.preventDefault(); step(-1); }
    if (event.key === "g") { event.preventDefault(); $("jump-seq").focus(); }
  });
  window.addEventListener("resize", render);
  // The Reports view and each report's timeline are one page each: a new fragment loads anew.
  if (document.body.dataset.view === "reports") window.addEventListener("hashchange", () => location.reload());
  start();
});
