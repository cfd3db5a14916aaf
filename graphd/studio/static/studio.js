// novagraph studio: plain JavaScript against graphd's HTTP/JSON API
// (docs/http-api.md). One page, three parts: sign-in, the editor, and the
// answer as a table, as JSON or as a graph. Nothing here is trusted more
// than a script would be: the session is a bearer token kept in this tab's
// sessionStorage, and every value from graphd is written as text, never as
// HTML.
"use strict";

const API = "/api/v1";
const MAX_VERTICES = 500; // the graph view draws at most this many
const HISTORY_KEY = "novagraph.history";
const SVG_NS = "http://www.w3.org/2000/svg";

const $ = (id) => document.getElementById(id);

// Integers past 2^53 (session ids, large vertex ids) lose digits as
// JavaScript numbers: parse them as BigInt from their source text, and
// write them back as the same digits.
function exactInts(key, value, context) {
  if (typeof value === "number" && !Number.isSafeInteger(value) && context && /^-?\d+$/.test(context.source)) return BigInt(context.source);
  return value;
}
// exactIntsWork: this browser gives a reviver the source text of a number
// (JSON.parse source access); without it large integers lose digits, and
// the page says so.
const exactIntsWork = JSON.parse("1", (k, v, context) => Boolean(context && "source" in context));
function toJSON(value, indent) {
  return JSON.stringify(value, (k, v) => (typeof v === "bigint" ? JSON.rawJSON(v.toString()) : v), indent);
}

// ---- the API ----

async function call(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  const session = sessionStorage.getItem("novagraph.session");
  if (session) headers["Authorization"] = "Bearer " + session;
  const resp = await fetch(API + path, { method, headers, body: body === undefined ? undefined : toJSON(body) });
  const text = await resp.text();
  try {
    return { status: resp.status, body: text ? JSON.parse(text, exactInts) : {} };
  } catch {
    // Not graphd's answer (a proxy's error page, say): show what came.
    return { status: resp.status, body: { code: "E_HTTP", error: `HTTP ${resp.status}: ${text.slice(0, 200)}` } };
  }
}

// execute runs a statement; a call refused as unauthorized (the session
// expired or was killed) returns to the sign-in form.
async function execute(stmt, params) {
  const r = await call("POST", "/execute", { stmt, params: params || {} });
  if (r.status === 401) {
    showSignIn("The session ended: " + r.body.error);
    throw new Error(r.body.error);
  }
  if (r.status !== 200) throw new Error(r.body.error || "HTTP " + r.status);
  return r.body;
}

// ---- sign-in ----

function showSignIn(message) {
  sessionStorage.removeItem("novagraph.session");
  $("main-view").hidden = true;
  $("schema-view").hidden = true;
  $("cluster-view").hidden = true;
  $("pages").hidden = true;
  $("signout").hidden = true;
  $("whoami").textContent = "";
  $("signin-view").hidden = false;
  $("signin-error").textContent = message || "";
}

async function showMain(user) {
  $("signin-view").hidden = true;
  $("pages").hidden = false;
  selectPage("console");
  $("signout").hidden = false;
  $("whoami").textContent = user ? "signed in as " + user : "";
  renderHistory();
  await loadSpaces();
  if (!exactIntsWork) $("error").textContent = "This browser cannot read integers past 2^53 exactly (it lacks JSON.parse source access): session ids and large vertex ids may lose digits. Use a current Chromium or Firefox.";
}

async function signIn(ev) {
  ev.preventDefault();
  const user = $("signin-user").value;
  $("signin-error").textContent = "";
  let r;
  try {
    r = await call("POST", "/sessions", { username: user, password: $("signin-password").value });
  } catch (e) {
    $("signin-error").textContent = "graphd did not answer: " + e.message;
    return;
  }
  $("signin-password").value = "";
  if (r.status !== 200) {
    $("signin-error").textContent = r.body.error || "HTTP " + r.status;
    return;
  }
  sessionStorage.setItem("novagraph.session", r.body.session);
  sessionStorage.setItem("novagraph.user", user);
  await showMain(user);
}

async function signOut() {
  try { await call("DELETE", "/sessions"); } catch { /* the session ends with graphd's idle timeout */ }
  clearAnswer();
  showSignIn("Signed out.");
}

// ---- the editor ----

async function loadSpaces(current) {
  const select = $("space");
  try {
    const r = await execute("SHOW SPACES");
    select.replaceChildren(new Option("(none)", ""));
    for (const row of r.rows || []) select.append(new Option(String(row[0]), String(row[0])));
    if (current) select.value = current;
  } catch (e) {
    $("error").textContent = e.message;
  }
}

async function chooseSpace() {
  const space = $("space").value;
  if (!space) return;
  try {
    const r = await execute("USE `" + space.replaceAll("`", "``") + "`");
    $("status").textContent = r.code === "OK" ? "using " + space : "";
    if (r.code !== "OK") showError(r, "USE");
  } catch (e) {
    $("error").textContent = e.message;
  }
}

function history() {
  try { return JSON.parse(localStorage.getItem(HISTORY_KEY)) || []; } catch { return []; }
}

// remember keeps a statement in this browser's history, except one that
// names a password (CREATE USER … WITH PASSWORD): graphd keeps those out
// of its logs and query list, and so does the page.
function remember(stmt, params) {
  if (/password/i.test(stmt)) return;
  const h = history().filter((e) => e.stmt !== stmt || e.params !== params);
  h.unshift({ stmt, params });
  localStorage.setItem(HISTORY_KEY, JSON.stringify(h.slice(0, 50)));
  renderHistory();
}

function renderHistory() {
  const list = $("history");
  list.replaceChildren();
  for (const e of history()) {
    const li = document.createElement("li");
    li.textContent = e.stmt;
    li.title = e.params ? "parameters: " + e.params : "";
    li.addEventListener("click", () => { $("stmt").value = e.stmt; $("params").value = e.params; });
    list.append(li);
  }
}

// showError shows a failed statement; a syntax error's "line L, column C"
// puts the cursor there.
function showError(r, stmt) {
  $("error").textContent = r.code + ": " + r.error;
  const m = /line (\d+), column (\d+)/.exec(r.error || "");
  if (!m || stmt === undefined) return;
  const lines = stmt.split("\n");
  let offset = 0;
  for (let i = 0; i < Number(m[1]) - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  offset += Number(m[2]) - 1;
  const area = $("stmt");
  area.focus();
  area.setSelectionRange(offset, offset + 1);
  $("error").dataset.line = m[1];
  $("error").dataset.column = m[2];
}

async function run() {
  // The statement as typed: graphd's line and column count from its start.
  const stmt = $("stmt").value;
  if (!stmt.trim()) return;
  const paramsText = $("params").value.trim();
  let params = {};
  $("error").textContent = "";
  delete $("error").dataset.line;
  delete $("error").dataset.column;
  if (paramsText) {
    try {
      params = JSON.parse(paramsText, exactInts);
    } catch (e) {
      $("error").textContent = "Parameters are not a JSON object: " + e.message;
      return;
    }
    if (params === null || typeof params !== "object" || Array.isArray(params)) {
      $("error").textContent = 'Parameters must be a JSON object, {"name": value, …}';
      return;
    }
  }
  remember(stmt.trim(), paramsText);
  $("status").textContent = "running…";
  let r;
  try {
    r = await execute(stmt, params);
  } catch (e) {
    $("status").textContent = "";
    $("error").textContent = e.message;
    return;
  }
  $("status").textContent = r.code === "OK" ? `${(r.rows || []).length} rows, ${r.latency_us} µs` : "";
  if (r.space && $("space").value !== r.space) await loadSpaces(r.space);
  if (r.code !== "OK") {
    showError(r, stmt);
    return;
  }
  showAnswer(r);
}

// ---- the answer ----

let answer = null;

function clearAnswer() {
  answer = null;
  $("view-table").replaceChildren();
  $("view-json").textContent = "";
  graph.vertices.clear();
  graph.edges.clear();
  graph.leftOut.clear();
  drawGraph();
}

function showAnswer(r) {
  answer = r;
  renderTable(r);
  $("view-json").textContent = toJSON({ columns: r.columns || [], rows: r.rows || [] }, 2);
  graph.vertices.clear();
  graph.edges.clear();
  graph.leftOut.clear();
  for (const row of r.rows || []) for (const cell of row) collect(cell);
  layout();
  drawGraph();
  if (renderPlan(r)) selectView("plan");
}

// renderPlan draws an EXPLAIN or PROFILE answer (columns id, name,
// dependencies[, profiling data], operator info; the root first) as a
// tree, each node with its operator, its rows and time under PROFILE,
// and its details. False if the answer is not a plan.
function renderPlan(r) {
  const cols = r.columns || [];
  const view = $("view-plan");
  if (cols[0] !== "id" || cols[1] !== "name" || cols[2] !== "dependencies" || !(r.rows || []).length) {
    const hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = "EXPLAIN or PROFILE a statement to see its plan here.";
    view.replaceChildren(hint);
    return false;
  }
  const profiled = cols[3] === "profiling data";
  const nodes = new Map();
  for (const row of r.rows) {
    nodes.set(String(row[0]), {
      id: String(row[0]), name: row[1], deps: String(row[2] || "").split(",").filter((d) => d !== ""),
      stats: profiled ? row[3] : "", info: row[profiled ? 4 : 3],
    });
  }
  const drawn = new Set();
  const draw = (node) => {
    const li = document.createElement("li");
    const box = document.createElement("span");
    box.className = "plan-node";
    box.dataset.id = node.id;
    const op = document.createElement("span");
    op.className = "op";
    op.textContent = node.id + " " + node.name;
    box.append(op);
    if (node.stats) {
      const stats = document.createElement("span");
      stats.className = "stats";
      stats.textContent = node.stats;
      box.append(stats);
    }
    if (node.info) {
      const info = document.createElement("span");
      info.className = "info";
      info.textContent = node.info;
      box.append(info);
    }
    li.append(box);
    drawn.add(node.id);
    const children = node.deps.map((d) => nodes.get(d)).filter((n) => n);
    if (children.length) {
      const ul = document.createElement("ul");
      for (const c of children) {
        if (drawn.has(c.id)) {
          // A node two others read from (a set operation's input) is
          // drawn once; the second reader points at it.
          const ref = document.createElement("li");
          ref.className = "plan-ref";
          ref.textContent = `→ ${c.id} ${c.name} (drawn above)`;
          ul.append(ref);
        } else {
          ul.append(draw(c));
        }
      }
      li.append(ul);
    }
    return li;
  };
  const tree = document.createElement("ul");
  tree.className = "plan";
  tree.append(draw(nodes.get(String(r.rows[0][0]))));
  // Nodes the root does not reach are listed too, not dropped.
  for (const node of nodes.values()) if (!drawn.has(node.id)) tree.append(draw(node));
  view.replaceChildren(tree);
  return true;
}

function cellText(v) {
  if (v === null) return "NULL";
  if (typeof v === "object") return toJSON(v);
  return String(v);
}

function renderTable(r) {
  $("view-table").replaceChildren(table(r));
}

function selectView(name) {
  for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("active", b.dataset.view === name);
  for (const v of ["table", "json", "graph", "plan"]) $("view-" + v).hidden = v !== name;
  if (name === "graph") drawGraph();
}

// ---- the graph ----

// graph holds what the answer (and expansions) hold: vertices by the JSON
// of their id (1 and "1" are different vertices), edges by type, ends and
// rank. Positions stay with a vertex, so an expansion moves little.
const graph = { vertices: new Map(), edges: new Map(), leftOut: new Set() };
let seed = 1;
function random() { seed = (seed * 16807) % 2147483647; return (seed - 1) / 2147483646; }

function addVertex(vid, tags) {
  const key = toJSON(vid);
  let v = graph.vertices.get(key);
  if (!v) {
    if (graph.vertices.size >= MAX_VERTICES) { graph.leftOut.add(key); return null; }
    v = { vid, key, tags: {}, x: 300 + 200 * (random() - 0.5), y: 280 + 200 * (random() - 0.5), vx: 0, vy: 0 };
    graph.vertices.set(key, v);
  }
  if (tags) Object.assign(v.tags, tags);
  return v;
}

function addEdge(e) {
  const a = addVertex(e.src), b = addVertex(e.dst);
  if (!a || !b) return;
  const key = toJSON([e.type, e.src, e.dst, e.rank]);
  if (!graph.edges.has(key)) graph.edges.set(key, { key, type: e.type, src: a, dst: b, rank: e.rank, props: e.props || {} });
}

// collect finds the vertices, edges and paths in a cell, at any depth of
// its lists.
function collect(v) {
  if (Array.isArray(v)) { for (const item of v) collect(item); return; }
  if (v === null || typeof v !== "object") return;
  if ("vid" in v && "tags" in v) { addVertex(v.vid, v.tags); return; }
  if ("type" in v && "src" in v && "dst" in v && "rank" in v) { addEdge(v); return; }
  if ("nodes" in v && "relationships" in v) { collect(v.nodes); collect(v.relationships); }
}

// layout runs a force simulation to rest: every pair of vertices repels,
// every edge pulls its ends together, and a weak pull keeps the drawing
// centred. O(n²) per step, which MAX_VERTICES keeps small.
function layout() {
  const vs = [...graph.vertices.values()];
  const cx = 400, cy = 280;
  for (let step = 0; step < 300; step++) {
    const heat = 1 - step / 300;
    for (let i = 0; i < vs.length; i++) {
      for (let j = i + 1; j < vs.length; j++) {
        const a = vs[i], b = vs[j];
        let dx = a.x - b.x, dy = a.y - b.y;
        let d2 = dx * dx + dy * dy;
        if (d2 < 0.01) { dx = random() - 0.5; dy = random() - 0.5; d2 = 0.5; }
        const f = 2000 / d2;
        a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
      }
    }
    for (const e of graph.edges.values()) {
      const dx = e.dst.x - e.src.x, dy = e.dst.y - e.src.y;
      e.src.vx += dx * 0.02; e.src.vy += dy * 0.02; e.dst.vx -= dx * 0.02; e.dst.vy -= dy * 0.02;
    }
    for (const v of vs) {
      v.vx += (cx - v.x) * 0.005; v.vy += (cy - v.y) * 0.005;
      const speed = Math.hypot(v.vx, v.vy), limit = 20 * heat + 0.5;
      if (speed > limit) { v.vx *= limit / speed; v.vy *= limit / speed; }
      v.x += v.vx; v.y += v.vy; v.vx *= 0.5; v.vy *= 0.5;
    }
  }
}

function svg(name, attrs) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, val] of Object.entries(attrs)) el.setAttribute(k, val);
  return el;
}

function vertexLabel(v) {
  const prop = $("label-prop").value.trim();
  for (const [tag, props] of Object.entries(v.tags)) {
    if (prop && props && prop in props) return String(props[prop]);
  }
  const tags = Object.keys(v.tags);
  return (tags.length ? tags.join(":") + " " : "") + String(v.vid);
}

// arrowhead is the marker at the end of every edge line.
function arrowhead() {
  const defs = svg("defs", {});
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }));
  defs.append(marker);
  return defs;
}

function drawGraph() {
  const root = $("graph");
  root.replaceChildren(arrowhead());
  const vs = [...graph.vertices.values()];
  if (vs.length) {
    const xs = vs.map((v) => v.x), ys = vs.map((v) => v.y);
    const pad = 40;
    root.setAttribute("viewBox", `${Math.min(...xs) - pad} ${Math.min(...ys) - pad} ${Math.max(...xs) - Math.min(...xs) + 2 * pad} ${Math.max(...ys) - Math.min(...ys) + 2 * pad}`);
  }
  for (const e of graph.edges.values()) {
    // The line stops at the circle's rim, where its arrowhead shows.
    const dx = e.dst.x - e.src.x, dy = e.dst.y - e.src.y, len = Math.hypot(dx, dy) || 1;
    const line = svg("line", { x1: e.src.x, y1: e.src.y, x2: e.dst.x - dx / len * 9, y2: e.dst.y - dy / len * 9, class: "edge", "marker-end": "url(#arrow)" });
    line.dataset.type = e.type;
    line.dataset.src = toJSON(e.src.vid);
    line.dataset.dst = toJSON(e.dst.vid);
    line.dataset.rank = e.rank;
    const title = svg("title", {});
    title.textContent = `${e.type} ${cellText(e.src.vid)} → ${cellText(e.dst.vid)} @${e.rank} ${toJSON(e.props)}`;
    line.append(title);
    const label = svg("text", { x: (e.src.x + e.dst.x) / 2, y: (e.src.y + e.dst.y) / 2, class: "edge-label" });
    label.textContent = e.type;
    root.append(line, label);
  }
  for (const v of vs) {
    const g = svg("g", { class: "vertex", transform: `translate(${v.x},${v.y})` });
    g.dataset.vid = v.key;
    const circle = svg("circle", { r: 8 });
    const title = svg("title", {});
    title.textContent = cellText(v.vid) + " " + toJSON(v.tags);
    circle.append(title);
    const text = svg("text", { x: 11, y: 4 });
    text.textContent = vertexLabel(v);
    g.append(circle, text);
    g.addEventListener("click", () => expand(v));
    root.append(g);
  }
  const more = graph.leftOut.size ? ` (drawn: the first ${MAX_VERTICES}; ${graph.leftOut.size} more left out)` : "";
  $("graph-count").textContent = `${vs.length} vertices, ${graph.edges.size} edges${more}`;
}

// expand adds the edges of one step from a vertex: a GO 1 STEP with the
// vertex as a parameter, so no id is ever pasted into a statement.
async function expand(v) {
  const over = $("expand-edge").value.trim() || "*";
  if (!/^(\*|[A-Za-z_][A-Za-z0-9_]*(\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)$/.test(over)) {
    $("error").textContent = "Expand over: edge type names separated by commas, or *";
    return;
  }
  const stmt = `GO 1 STEP FROM $vid OVER ${over} ${$("expand-dir").value} YIELD edge AS e`;
  try {
    const r = await execute(stmt, { vid: v.vid });
    if (r.code !== "OK") { showError(r); return; }
    for (const row of r.rows || []) collect(row);
    layout();
    drawGraph();
    $("status").textContent = `expanded ${cellText(v.vid)}: ${(r.rows || []).length} edges`;
  } catch (e) {
    $("error").textContent = e.message;
  }
}

// ---- schema and cluster ----

function selectPage(name) {
  for (const b of document.querySelectorAll("#pages button")) b.classList.toggle("active", b.dataset.page === name);
  $("main-view").hidden = name !== "console";
  $("schema-view").hidden = name !== "schema";
  $("cluster-view").hidden = name !== "cluster";
  if (name === "schema") loadSchema();
  if (name === "cluster") loadCluster();
}

const quoteName = (name) => "`" + String(name).replaceAll("`", "``") + "`";

// loadSchema lists the current space's tags, edge types and indexes; a
// click on one shows its SHOW CREATE.
async function loadSchema() {
  const space = $("space").value;
  $("schema-space").textContent = space || "(none: choose one on the console)";
  $("schema-create").textContent = "";
  const lists = [["schema-tags", "TAGS", "TAG"], ["schema-edges", "EDGES", "EDGE"], ["schema-tag-indexes", "TAG INDEXES", "TAG INDEX"], ["schema-edge-indexes", "EDGE INDEXES", "EDGE INDEX"]];
  for (const [id, show, create] of lists) {
    const ul = $(id);
    ul.replaceChildren();
    if (!space) continue;
    try {
      const r = await execute("SHOW " + show);
      if (r.code !== "OK") { $("schema-create").textContent = r.code + ": " + r.error; continue; }
      for (const row of r.rows || []) {
        const li = document.createElement("li");
        li.textContent = String(row[0]);
        li.dataset.name = String(row[0]);
        li.addEventListener("click", async () => {
          const c = await execute(`SHOW CREATE ${create} ${quoteName(row[0])}`);
          $("schema-create").textContent = c.code === "OK" ? String(c.rows[0][1]) : c.code + ": " + c.error;
        });
        ul.append(li);
      }
    } catch (e) {
      $("schema-create").textContent = e.message;
    }
  }
}

// table builds a table of an answer; extra adds a last cell to each row.
function table(r, extra) {
  const t = document.createElement("table");
  const head = t.createTHead().insertRow();
  for (const c of r.columns || []) {
    const th = document.createElement("th");
    th.textContent = c;
    head.append(th);
  }
  const body = t.createTBody();
  for (const row of r.rows || []) {
    const tr = body.insertRow();
    for (const cell of row) tr.insertCell().textContent = cellText(cell);
    if (extra) tr.insertCell().append(extra(row, r.columns));
  }
  return t;
}

async function showInto(id, stmt, extra) {
  try {
    const r = await execute(stmt);
    if (r.code !== "OK") { $(id).textContent = r.code + ": " + r.error; return; }
    $(id).replaceChildren(table(r, extra));
  } catch (e) {
    $(id).textContent = e.message;
  }
}

// loadCluster shows the hosts with their leaders, the current space's
// partitions, and the running queries, each with a KILL button.
async function loadCluster() {
  await showInto("cluster-hosts", "SHOW HOSTS");
  const space = $("space").value;
  $("cluster-space").textContent = space || "the current space (none chosen)";
  if (space) await showInto("cluster-parts", "SHOW PARTS");
  else $("cluster-parts").replaceChildren();
  await showInto("cluster-queries", "SHOW QUERIES", (row, cols) => {
    const b = document.createElement("button");
    b.textContent = "KILL";
    b.className = "kill";
    const session = row[cols.indexOf("SessionID")], plan = row[cols.indexOf("ExecutionPlanID")];
    b.addEventListener("click", async () => {
      const r = await execute(`KILL QUERY (session=${session}, plan=${plan})`);
      $("status").textContent = r.code === "OK" ? `killed plan ${plan} of session ${session}` : "";
      $("cluster-message").textContent = r.code === "OK" ? `killed plan ${plan} of session ${session}` : r.code + ": " + r.error;
      await loadCluster();
    });
    return b;
  });
}

// ---- wiring ----

document.addEventListener("DOMContentLoaded", () => {
  $("signin-form").addEventListener("submit", signIn);
  $("signout").addEventListener("click", signOut);
  $("run").addEventListener("click", run);
  $("space").addEventListener("change", chooseSpace);
  $("label-prop").addEventListener("change", drawGraph);
  $("stmt").addEventListener("keydown", (ev) => { if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); run(); } });
  for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => selectView(b.dataset.view));
  for (const b of document.querySelectorAll("#pages button")) b.addEventListener("click", () => selectPage(b.dataset.page));
  $("schema-refresh").addEventListener("click", loadSchema);
  $("cluster-refresh").addEventListener("click", loadCluster);
  if (sessionStorage.getItem("novagraph.session")) showMain(sessionStorage.getItem("novagraph.user"));
  else showSignIn();
});
