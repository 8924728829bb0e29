// Peggle Studio: the page. Every rule lives on the server (the same Swift code as the CLI): the
// page sends the level text and an operation, and draws what comes back. No framework, no build.
"use strict";

const COLORS = { blue: "#3a7bfd", orange: "#ff7a1a", green: "#2ecc55", purple: "#9b4dff", zombie: "#b7bdc8", confusement: "#ff3fa4" };
const LIT = "#fff3a0";

const $ = (sel) => document.querySelector(sel);
const canvas = $("#board");
const ctx = canvas.getContext("2d");

const studio = {
  config: null,
  mode: "design",
  file: "",            // the open file ("" for a level never saved)
  readOnly: false,
  text: "",            // the level's canonical text, as the server wrote it
  level: null,         // JSON.parse(text)
  issues: [],
  undo: [], redo: [],
  dirty: false,
  tool: { kind: "select" },
  selected: null,      // object id
  drag: null,          // {id, dx, dy, x, y, moved}
  pointer: null,       // board coordinates
  game: null,          // {seed, angles, state, shot, frame, animating, recorded}
  recorded: null,      // the reply of the last game stored (POST /api/games)
  rating: null,        // last rating result
  estimate: null,      // the instant estimate of the level as it is now (null: none yet, or not valid)
  estimateAsked: 0,    // requests sent; a reply is shown only if it answers the latest
  estimateLevel: "",   // the level text the shown estimate (or its refusal) is of
};
window.studio = studio;  // for the browser tests and the curious

// MARK: server

// Every write is JSON: the studio refuses any other POST (docs/studio.md, Security).
async function api(method, path, body) {
  const writes = method !== "GET";
  const res = await fetch(path, {
    method, headers: writes ? { "Content-Type": "application/json" } : {},
    body: writes ? JSON.stringify(body ?? {}) : undefined,
  });
  const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

function say(text, kind) {
  const m = $("#message");
  m.textContent = text || "";
  m.className = kind || "";
}

// MARK: levels

// The list is a page of the server's index (GET /api/levels): the server filters, sorts and
// pages, so a folder of ten thousand levels sends the page no more than LIST_PAGE of them.
const LIST_PAGE = 200;
const list = { offset: 0, asked: 0, timer: null };

function listQuery() {
  const q = new URLSearchParams({ offset: list.offset, limit: LIST_PAGE, sort: $("#list-sort").value,
                                  order: $("#list-order").dataset.desc ? "desc" : "asc" });
  const text = $("#list-search").value.trim();
  if (text) q.set("q", text);
  if ($("#list-mode").value) q.set("mode", $("#list-mode").value);
  if ($("#list-tier").value) q.set("tier", $("#list-tier").value);
  if ($("#list-rated").value) q.set("rated", $("#list-rated").value);
  // URLSearchParams writes a space as '+', which the server keeps: write it as %20.
  return q.toString().replace(/\+/g, "%20");
}

async function refreshList() {
  const asked = ++list.asked;
  const page = await api("GET", "/api/levels?" + listQuery());
  if (asked !== list.asked) return;  // a newer request (typing, paging) answers instead
  if (page.items.length === 0 && page.matched > 0 && list.offset > 0) {
    // The page was past the end (levels removed meanwhile): show the last one.
    list.offset = Math.max(0, Math.floor((page.matched - 1) / LIST_PAGE) * LIST_PAGE);
    return refreshList();
  }
  const ul = $("#level-list");
  ul.innerHTML = "";
  for (const item of page.items) {
    const li = document.createElement("li");
    li.dataset.file = item.file;
    if (item.file === studio.file) li.className = "open";
    const name = document.createElement("span");
    name.textContent = item.name;
    li.appendChild(name);
    for (const [shown, cls] of [[item.tier, "tier"], [item.read_only && "read-only", "ro"]]) {
      if (!shown) continue;
      const tag = document.createElement("span");
      tag.className = cls;
      tag.textContent = shown;
      li.appendChild(tag);
    }
    const estimate = item.sigma50 === undefined ? "" : `; estimate: sigma50 about ${item.sigma50.toPrecision(2)} rad, ${item.tier}`;
    li.title = item.error || `${item.file}: ${item.mode}, ${item.pegs} pegs (${item.orange} orange), ${item.blocks} blocks${estimate}`;
    li.onclick = () => openLevel(item.file);
    ul.appendChild(li);
  }
  const first = page.items.length ? page.offset + 1 : 0, last = page.offset + page.items.length;
  const of = page.matched === page.total ? `${page.total}` : `${page.matched} of ${page.total}`;
  $("#list-count").textContent = page.complete ? `${first}–${last} of ${of}`
    : `${first}–${last} of ${of} (indexing ${page.total} of ${page.expected})`;
  $("#list-estimating").textContent = page.complete && page.estimated < page.total
    ? `estimating: ${page.estimated} of ${page.total} levels have their tier` : "";
  $("#list-prev").disabled = page.offset === 0;
  $("#list-next").disabled = last >= page.matched;
  clearTimeout(list.timer);
  // Until the index is built and every level estimated: estimates show as they arrive.
  if (!page.complete || page.estimated < page.total) list.timer = setTimeout(refreshList, 500);
}

function listChanged(resetOffset) {
  if (resetOffset) list.offset = 0;
  refreshList().catch((e) => say(e.message, "error"));
}

function confirmDiscard() {
  return !studio.dirty || window.confirm("Discard the unsaved changes to this level?");
}

async function openLevel(file) {
  if (!confirmDiscard()) return;
  try {
    const r = await api("GET", "/api/levels/" + encodeURIComponent(file));
    load(r.level, r.file, r.read_only, r.issues);
    say(r.read_only ? `${file} is read-only: Save keeps your changes in a copy.` : `opened ${file}`);
  } catch (e) { say(e.message, "error"); }
}

async function newLevel() {
  if (!confirmDiscard()) return;
  const r = await api("GET", "/api/new");
  load(r.level, "", false, r.issues);
  say("a new level: pick a peg kind and click the board");
}

function load(text, file, readOnly, issues) {
  studio.text = text;
  studio.level = JSON.parse(text);
  studio.file = file;
  studio.readOnly = readOnly;
  studio.issues = issues || [];
  studio.undo = []; studio.redo = [];
  studio.dirty = false;
  studio.selected = null;
  studio.game = null;
  studio.rating = null;
  $("#rating").innerHTML = "";
  showLevel();
  refreshEstimate();
  refreshList();
  if (studio.mode === "play") resetGame();
}

function showLevel() {
  const l = studio.level;
  $("#title").textContent = `${l.name}${studio.file ? " — " + studio.file : " — not saved"}${studio.readOnly ? " (read-only)" : ""}${studio.dirty ? " *" : ""}`;
  $("#issues").textContent = studio.issues.length ? "Not playable yet: " + studio.issues.join("; ") : "";
  fillSettings();
  fillInspector();
  $("#undo").disabled = studio.undo.length === 0;
  $("#redo").disabled = studio.redo.length === 0;
  $("#delete").disabled = studio.selected === null;
  draw();
}

async function save(options) {
  try {
    const body = { level: studio.text };
    if (options.copy) body.copy = true;
    else if (studio.file && !options.as) body.file = studio.file;
    const r = await api("POST", "/api/levels", body);
    const undo = studio.undo, redo = studio.redo;
    load(r.level, r.file, false, studio.issues);
    if (!options.copy) { studio.undo = undo; studio.redo = redo; }
    showLevel();
    say(`saved ${r.file}${r.note ? " (" + r.note + ")" : ""}`, "ok");
  } catch (e) { say(e.message, "error"); }
}

async function saveAs() {
  const name = window.prompt("Save as: the level's new name", studio.level.name);
  if (name === null) return;
  if (name !== studio.level.name && !(await edit({ type: "settings", name }))) return;
  await save({ as: true });
}

// MARK: edits

async function edit(op) {
  try {
    const r = await api("POST", "/api/edit", { level: studio.text, op });
    studio.undo.push(studio.text);
    studio.redo = [];
    studio.text = r.level;
    studio.level = JSON.parse(r.level);
    studio.issues = r.issues;
    studio.dirty = true;
    if (op.type === "remove") studio.selected = null;
    else if (r.id !== undefined && r.id !== null) studio.selected = r.id;
    showLevel();
    refreshEstimate();
    say("");
    return true;
  } catch (e) {
    say(e.message, "error");
    draw();
    return false;
  }
}

function restore(from, to) {
  if (!from.length) return;
  to.push(studio.text);
  studio.text = from.pop();
  studio.level = JSON.parse(studio.text);
  studio.dirty = true;
  if (studio.selected !== null && !findObject(studio.selected)) studio.selected = null;
  api("POST", "/api/edit", { level: studio.text, op: { type: "settings" } })
    .then((r) => { studio.issues = r.issues; showLevel(); })
    .catch(() => showLevel());
  showLevel();
  refreshEstimate();
}

// MARK: estimate

// Two significant digits, as `peggle estimate` prints them; three, as `peggle level tune` does.
function sig2(v) { return String(Number(v.toPrecision(2))); }
function sig3(v) { return String(Number(v.toPrecision(3))); }

// The instant estimate (the model of `peggle estimate`), asked after every accepted change of the
// level. Replies can arrive out of order while the designer drags and edits quickly: only the
// reply to the latest request is shown.
async function refreshEstimate() {
  if (studio.config.role === "playtester") return;  // a playtester's page plays only (docs/sharing.md)
  const asked = ++studio.estimateAsked;
  const out = $("#estimate"), text = studio.text;
  out.classList.add("pending");
  let shown;
  try {
    const r = await api("POST", "/api/estimate", { level: text });
    if (asked !== studio.estimateAsked) return;
    studio.estimate = r;
    studio.estimateLevel = text;
    shown = `Estimate: <b id="estimate-tier"></b> — sigma50 about <b id="estimate-sigma"></b> rad `
      + `<span class="hint">(95% predictive interval ${sig2(r.low)} to ${sig2(r.high)}; Rate plays the level)</span>`
      + (r.note ? ` <b class="guess" id="estimate-note"></b>` : "");
    out.innerHTML = shown;
    if (r.note) $("#estimate-note").textContent = r.note;  // the level is unlike those the model learnt from
    $("#estimate-tier").textContent = r.tier;
    $("#estimate-sigma").textContent = sig2(r.sigma50);
  } catch (e) {
    if (asked !== studio.estimateAsked) return;
    studio.estimate = null;
    studio.estimateLevel = text;
    out.textContent = e.message;  // "the level cannot be estimated yet: ..." names the first problem
  }
  out.classList.remove("pending");
}

function findObject(id) {
  const l = studio.level;
  const peg = l.pegs.find((p) => p.id === id);
  if (peg) return { type: "peg", o: peg };
  const block = l.blocks.find((b) => b.id === id);
  return block ? { type: "block", o: block } : null;
}

// MARK: geometry (for picking and drawing only; the server decides what is allowed)

function corners(o, isPeg) {
  const w = o.width, h = o.height, r = o.rotation || 0;
  const pts = (!isPeg && o.shape === "triangle")
    ? [[0, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]
    : [[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]];
  const c = Math.cos(r), s = Math.sin(r);
  return pts.map(([x, y]) => [o.x + x * c - y * s, o.y + x * s + y * c]);
}

function inside(pts, x, y) {
  let ok = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [xi, yi] = pts[i], [xj, yj] = pts[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) ok = !ok;
  }
  return ok;
}

function objectAt(x, y) {
  const l = studio.level;
  for (let k = l.pegs.length - 1; k >= 0; k--) {
    const p = l.pegs[k];
    if (p.shape === "brick" ? inside(corners(p, true), x, y) : Math.hypot(p.x - x, p.y - y) <= p.radius) return p.id;
  }
  for (let k = l.blocks.length - 1; k >= 0; k--) {
    if (inside(corners(l.blocks[k], false), x, y)) return l.blocks[k].id;
  }
  return null;
}

function boardPoint(ev) {
  const r = canvas.getBoundingClientRect();
  const b = studio.config.board;
  return { x: ((ev.clientX - r.left) / r.width) * b.width, y: ((ev.clientY - r.top) / r.height) * b.height };
}

function aimAngle(p) {
  const c = studio.config.cannon;
  const a = Math.atan2(p.x - c.x, Math.max(p.y - c.y, 1e-9));
  return Math.max(-studio.config.max_aim, Math.min(studio.config.max_aim, a));
}

// MARK: drawing

function setupCanvas() {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || 800;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(w * 0.75 * dpr);
  draw();
}

function draw() {
  if (!studio.config || !studio.level) return;
  const b = studio.config.board;
  const scale = canvas.width / b.width;
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  ctx.fillStyle = "#0e1626";
  ctx.fillRect(0, 0, b.width, b.height);
  // The bucket's lane and the cannon's clearance: where nothing may be placed.
  ctx.fillStyle = "#16223a";
  ctx.fillRect(0, studio.config.lane_top, b.width, b.height - studio.config.lane_top);
  const g = studio.game;
  const view = g ? gameView(g) : null;
  ctx.save();
  if (view && view.angle) {
    ctx.translate(b.width / 2, b.height / 2);
    ctx.rotate(view.angle);
    ctx.translate(-b.width / 2, -b.height / 2);
  }
  for (const block of studio.level.blocks) drawBlock(block);
  if (studio.mode === "rate" && studio.rating && studio.rating.text === studio.text) drawHeat(studio.rating.pegs);
  for (const peg of studio.level.pegs) {
    const st = view ? view.pegs.get(peg.id) : null;
    if (st && st.removed) continue;
    drawPeg(peg, st);
  }
  ctx.restore();
  drawCannon(view);
  drawBucket(view ? view.bucketX : b.width / 2);
  if (view) drawShot(view);
  if (studio.mode === "rate" && studio.rating) drawOverlay(studio.rating.first_shot);
  if (studio.mode === "design" && studio.drag && studio.drag.moved) drawGhost();
}

function drawPeg(p, st) {
  const kind = st ? st.kind : p.kind;
  ctx.fillStyle = st && st.lit ? LIT : COLORS[kind];
  ctx.strokeStyle = st && st.lit ? COLORS[kind] : "#070b14";
  ctx.lineWidth = st && st.lit ? 3 : 1.5;
  ctx.beginPath();
  if (p.shape === "brick") polygon(corners(p, true));
  else ctx.arc(p.x, p.y, p.radius, 0, 2 * Math.PI);
  ctx.fill();
  ctx.stroke();
  if (studio.mode === "design" && p.id === studio.selected) outline(p, true);
}

function drawBlock(bl) {
  ctx.fillStyle = "#465164";
  const s = bl.springiness || 0;
  ctx.strokeStyle = s > 0 ? `rgb(${Math.round(156 + (46 - 156) * s)}, ${Math.round(163 + (242 - 163) * s)}, ${Math.round(175 + (176 - 175) * s)})` : "#9ca3af";
  ctx.lineWidth = 2;
  ctx.beginPath();
  polygon(corners(bl, false));
  ctx.fill();
  ctx.stroke();
  if (studio.mode === "design" && bl.id === studio.selected) outline(bl, false);
}

function outline(o, isPeg) {
  ctx.save();
  ctx.strokeStyle = "#ffd166";
  ctx.lineWidth = 2;
  ctx.setLineDash([5, 4]);
  ctx.beginPath();
  if (isPeg && o.shape !== "brick") ctx.arc(o.x, o.y, o.radius + 5, 0, 2 * Math.PI);
  else polygon(corners({ ...o, width: o.width + 10, height: o.height + 10 }, isPeg));
  ctx.stroke();
  ctx.restore();
}

function polygon(pts) {
  ctx.moveTo(pts[0][0], pts[0][1]);
  for (const [x, y] of pts.slice(1)) ctx.lineTo(x, y);
  ctx.closePath();
}

function drawCannon(view) {
  const c = studio.config.cannon;
  let angle = 0;
  if (view && view.aim !== null) angle = view.aim;
  else if (studio.mode === "play" && studio.pointer) angle = aimAngle(studio.pointer);
  ctx.save();
  ctx.translate(c.x, c.y);
  ctx.rotate(-angle);
  ctx.fillStyle = "#8d96a5";
  ctx.fillRect(-6, 0, 12, 34);
  ctx.restore();
  ctx.fillStyle = "#c9ced6";
  ctx.beginPath();
  ctx.arc(c.x, c.y, 16, 0, 2 * Math.PI);
  ctx.fill();
  if (studio.mode === "play" && studio.pointer && !(studio.game && studio.game.animating)) {
    ctx.save();
    ctx.strokeStyle = "#ffffff55";
    ctx.setLineDash([4, 6]);
    ctx.beginPath();
    ctx.moveTo(c.x, c.y);
    ctx.lineTo(c.x + Math.sin(angle) * 160, c.y + Math.cos(angle) * 160);
    ctx.stroke();
    ctx.restore();
  }
}

function drawBucket(x) {
  const bk = studio.config.bucket;
  ctx.strokeStyle = "#d9dee7";
  ctx.lineWidth = bk.rim_radius * 2;
  ctx.lineCap = "round";
  for (const side of [-1, 1]) {
    ctx.beginPath();
    ctx.moveTo(x + side * bk.width / 2, bk.top);
    ctx.lineTo(x + side * bk.width / 2, bk.top + bk.depth);
    ctx.stroke();
  }
  ctx.lineCap = "butt";
}

function drawGhost() {
  const d = studio.drag, found = findObject(d.id);
  if (!found) return;
  const o = { ...found.o, x: d.x - d.dx, y: d.y - d.dy };
  ctx.save();
  ctx.globalAlpha = 0.55;
  if (found.type === "peg") drawPeg(o, null); else drawBlock(o);
  ctx.restore();
}

// MARK: play

// What the board shows at the animation's current frame: pegs lit so far, the bucket, the turn.
function gameView(g) {
  const before = g.animating ? g.before : g.state;
  const pegs = new Map(before.pegs.map((p) => [p.id, { ...p }]));
  const v = { pegs, bucketX: before.bucket_x, angle: before.board_angle, aim: g.shot ? g.shot.angle : null, frame: 0 };
  if (g.shot && g.animating) {
    const s = g.shot, f = Math.min(g.frame, s.frames - 1);
    v.frame = f;
    for (const l of s.lit) if (l.frame <= f) pegs.get(l.id).lit = true;
    v.bucketX = s.bucket_x[f];
    if (s.board_angles.length) v.angle = s.board_angles[f];
  }
  return v;
}

function drawShot(view) {
  const g = studio.game, s = g.shot;
  if (!s) return;
  const last = g.animating ? view.frame : s.frames;
  ctx.lineWidth = 2;
  for (const p of s.paths) {
    const n = Math.min(p.xy.length / 2, last - p.start + 1);
    if (n <= 0) continue;
    ctx.strokeStyle = "#ffffffaa";
    ctx.beginPath();
    ctx.moveTo(p.xy[0], p.xy[1]);
    for (let k = 1; k < n; k++) ctx.lineTo(p.xy[2 * k], p.xy[2 * k + 1]);
    ctx.stroke();
    if (g.animating && n <= p.xy.length / 2 && last - p.start < p.xy.length / 2) {
      ctx.fillStyle = "#ffffff";
      ctx.beginPath();
      ctx.arc(p.xy[2 * (n - 1)], p.xy[2 * (n - 1) + 1], studio.config.ball_radius, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
}

// The report's heatmap: a ring under each orange peg in the colour the server gave its
// lost-with rate (drawn only for the level as rated: an edit since then hides it).
function drawHeat(heat) {
  const byId = new Map(studio.level.pegs.map((p) => [p.id, p]));
  ctx.save();
  for (const h of heat.pegs) {
    const p = byId.get(h.id);
    if (!p || !h.colour) continue;
    ctx.strokeStyle = h.colour;
    ctx.beginPath();
    if (p.shape === "brick") {
      ctx.lineWidth = 10;
      ctx.lineJoin = "round";
      polygon(corners(p, true));
    } else {
      ctx.lineWidth = 5;
      ctx.arc(p.x, p.y, p.radius + 4.5, 0, 2 * Math.PI);
    }
    ctx.stroke();
  }
  ctx.restore();
}

// The heatmap's legend and what it counted, under the rating.
function heatLegend(heat) {
  const p = document.createElement("p");
  p.id = "heat-legend";
  if (!heat.games_lost) {
    p.textContent = heat.sigma_low === undefined ? "No heatmap: sigma50 is unknown."
      : `No heatmap: no greedy game at sigma ${heat.sigma_low.toPrecision(3)}–${heat.sigma_high.toPrecision(3)} rad was lost.`;
    return p;
  }
  const bar = document.createElement("span");
  bar.className = "heat-scale";
  bar.style.background = `linear-gradient(to right, ${heat.scale.join(", ")})`;
  p.appendChild(bar);
  p.appendChild(document.createTextNode(
    ` 0% to 100%: ring colour, how often the orange peg was still on the board when a game was lost `
    + `(${heat.games_lost} lost of ${heat.games} greedy games at sigma ${heat.sigma_low.toPrecision(3)}–`
    + `${heat.sigma_high.toPrecision(3)} rad, within a factor 2 of sigma50).`));
  return p;
}

function drawOverlay(shot) {
  ctx.save();
  ctx.strokeStyle = "#5ee38a";
  ctx.lineWidth = 2.5;
  ctx.setLineDash([8, 5]);
  for (const p of shot.paths) {
    ctx.beginPath();
    ctx.moveTo(p.xy[0], p.xy[1]);
    for (let k = 1; k < p.xy.length / 2; k++) ctx.lineTo(p.xy[2 * k], p.xy[2 * k + 1]);
    ctx.stroke();
  }
  ctx.restore();
  ctx.fillStyle = "#5ee38a";
  ctx.font = "16px system-ui, sans-serif";
  ctx.fillText(`greedy first shot: ${shot.angle.toFixed(3)} rad`, 12, 24);
}

// A fresh episode seed below 2^53, so JavaScript's numbers hold it exactly.
function newSeed() {
  const a = new Uint32Array(2);
  crypto.getRandomValues(a);
  return (a[0] & 0x1fffff) * 4294967296 + a[1];
}

// A new game. After a recorded game whose seed is still in the field, a new seed is drawn: each
// stored game of a player on a level has its own seed (a seed and the shots fix a game).
async function resetGame(keepSeed) {
  const last = studio.game;
  if (keepSeed !== true && last && last.recorded && seed() === last.seed) $("#seed").value = newSeed();
  studio.game = null;
  showHud(null);
  try {
    const s = seed();
    const r = await api("POST", "/api/play", { level: studio.text, seed: s, angles: [] });
    studio.game = { seed: s, angles: [], state: r.state, before: r.state, shot: null, frame: 0, animating: false, recorded: false };
    showHud(r.state);
    $("#shot-info").textContent = "Aim with the pointer, click to fire.";
    say("");
  } catch (e) { say(e.message, "error"); }
  draw();
}

function seed() { return Math.max(0, parseInt($("#seed").value, 10) || 0); }

async function fire(angle, replaying) {
  const g = studio.game;
  if (!g || g.animating || g.state.status !== "playing") return;
  const angles = g.angles.concat([angle]);
  try {
    const r = await api("POST", "/api/play", { level: studio.text, seed: g.seed, angles });
    Object.assign(g, { angles, before: r.before, state: r.state, shot: r.shot });
    animate();
    if (r.state.status !== "playing" && !replaying) recordGame(g);
  } catch (e) { say(e.message, "error"); }
}

// A finished game goes to the studio's database (`peggle studio --db`) as a human game under the
// player's name; the server replays the shots, so it stores what the engine played.
async function recordGame(g) {
  const out = $("#record");
  if (!studio.config.recording) { out.textContent = "Not recorded: the studio runs without --db."; return; }
  const player = $("#player").value.trim();
  if (!player) { out.textContent = "Not recorded: type your name under Player to record your games."; return; }
  try {
    const r = await api("POST", "/api/games", { level: studio.text, seed: g.seed, angles: g.angles, player });
    g.recorded = true;
    studio.recorded = r;
    out.textContent = r.stored ? `Recorded: ${r.status} in ${r.shots} shot${r.shots === 1 ? "" : "s"} (seed ${r.seed}) for ${player}.`
      : "Already recorded: the same game.";
  } catch (e) { out.textContent = "Not recorded: " + e.message; }
}

async function replay() {
  const g = studio.game;
  if (!g || !g.angles.length) return;
  const angles = g.angles.slice();
  $("#seed").value = g.seed;
  await resetGame(true);
  studio.game.recorded = g.recorded;
  for (const a of angles) {
    await fire(a, true);
    while (studio.game && studio.game.animating) await new Promise((r) => setTimeout(r, 50));
  }
}

function animate() {
  const g = studio.game;
  g.animating = true;
  g.frame = 0;
  const start = performance.now();
  const speed = 120 * 1.5;  // frames per second of wall time: a little faster than the game
  function tick(now) {
    g.frame = Math.floor(((now - start) / 1000) * speed);
    if (g.frame >= g.shot.frames) {
      g.animating = false;
      showHud(g.state);
      const s = g.shot;
      $("#shot-info").textContent = `shot ${g.angles.length}: ${s.angle.toFixed(3)} rad, ${s.pegs_hit} pegs, +${s.points} points`
        + (s.free_balls ? `, ${s.free_balls} free ball${s.free_balls > 1 ? "s" : ""}` : "") + (s.caught ? ", caught!" : "");
      draw();
      return;
    }
    draw();
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
}

function showHud(st) {
  $("#score").textContent = st ? st.score.toLocaleString("en") : "0";
  $("#balls").textContent = st && st.balls_left !== undefined && st.balls_left !== null ? st.balls_left
    : st && st.time_left !== undefined && st.time_left !== null ? `${st.time_left.toFixed(1)} s left`
    : st && st.clean_shots !== undefined && st.clean_shots !== null ? `${st.clean_shots} clean` : "-";
  $("#multiplier").textContent = st ? "x" + st.multiplier : "x1";
  $("#orange").textContent = st ? `${st.orange_remaining} of ${st.orange_total}` : "-";
  $("#status").textContent = st ? st.status : "-";
  $("#status").className = st ? st.status : "";
}

// MARK: rate

// POSTs `body` to a streaming route (Rate, Tune) and hands each JSON line to `onEvent`; a refusal
// before the stream (4xx) and an error line both throw.
async function streamEvents(path, body, onEvent, signal) {
  const res = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal,
  });
  if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error || `HTTP ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const event = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      if (event.type === "error") throw new Error(event.message);
      onEvent(event);
    }
  }
}

// The Rate panel's budget and seed, which Tune's ratings use too.
function rateBudget() { return parseInt($("#budget").value, 10) || studio.config.rating_budget; }
function rateSeed() { return Math.max(0, parseInt($("#rate-seed").value, 10) || 0); }

// Runs a streaming route for a panel: its button disabled, its Stop button and progress bar shown
// meanwhile; a failure empties the panel's output and says why. Stop closes the connection, and
// the server stops the work at its next game when its reader goes away (docs/studio.md).
async function streamPanel(button, stop, bar, out, path, body, onEvent, stopped) {
  const abort = new AbortController();
  button.disabled = true;
  stop.hidden = false;
  stop.onclick = () => abort.abort();
  bar.hidden = false;
  bar.value = 0;
  try {
    await streamEvents(path, body, onEvent, abort.signal);
  } catch (e) {
    out.textContent = "";
    if (abort.signal.aborted) say(stopped, "");
    else say(e.message, "error");
  } finally {
    button.disabled = false;
    stop.hidden = true;
    bar.hidden = true;
  }
}

async function rate() {
  const bar = $("#rate-progress"), out = $("#rating");
  out.textContent = "rating…";
  studio.rating = null;
  draw();
  const rated = studio.text;
  const stopped = studio.config.recording
    ? "Rating stopped; its games so far are kept in the database, and rating again with the same seed resumes from them."
    : "Rating stopped (without --db its games are not kept).";
  await streamPanel($("#rate"), $("#rate-stop"), bar, out, "/api/rate", { level: studio.text, budget: rateBudget(), seed: rateSeed() }, (event) => {
    if (event.type === "progress") {
      bar.max = event.at_most;
      bar.value = event.played;
      out.textContent = `rating… ${event.played} games (at most ${event.at_most})`;
    } else if (event.type === "result") {
      event.result.text = rated;
      showRating(event.result);
    }
  }, stopped);
}

// MARK: tune

// Tune to tier: `peggle level tune` on the open file as saved (POST /api/levels/FILE/tune). A
// level that reaches the tier is written to a new file, which the list then shows.
async function tune() {
  if (!studio.file) return say("Save the level first: Tune works on a level file and writes the tuned level beside it.", "error");
  if (studio.dirty) return say("Save your changes first: Tune tunes the level as saved in " + studio.file + ".", "error");
  const bar = $("#tune-progress"), out = $("#tuning");
  out.textContent = "tuning…";
  const lines = [];
  const path = `/api/levels/${encodeURIComponent(studio.file)}/tune`;
  const stopped = "Tune stopped; nothing was written.";
  await streamPanel($("#tune"), $("#tune-stop"), bar, out, path, { tier: $("#tune-tier").value, budget: rateBudget(), seed: rateSeed() }, (event) => {
    if (event.type === "progress") {
      if (event.line) lines.push(event.line);
      if (event.at_most) { bar.max = event.at_most; bar.value = event.played; }
      const games = event.at_most ? `; rating ${event.ratings + 1}: ${event.played} games (at most ${event.at_most})` : "";
      out.textContent = `tuning… ${event.ratings} rating${event.ratings === 1 ? "" : "s"} done, ${event.edits} edit${event.edits === 1 ? "" : "s"}${games}`;
      const log = document.createElement("pre");
      log.className = "hint";
      log.textContent = lines.join("\n");
      out.appendChild(log);
    } else if (event.type === "result") {
      showTune(event.result, event.seconds);
    }
  }, stopped);
}

function showTune(r, seconds) {
  const out = $("#tuning");
  out.innerHTML = "";
  const tierLabel = studio.config.tiers.find((t) => t.name === r.tier).label;
  const head = document.createElement("p");
  head.className = "tune-" + r.status;
  // It stays shown when the new file is opened: it names the file it is of.
  head.textContent = `${r.file}: ` + (r.status === "reached" ? `reached ${tierLabel} with ${r.edits.length} edit${r.edits.length === 1 ? "" : "s"}`
    : r.status === "already_there" ? `already ${tierLabel}: nothing to do, nothing written`
    : `not reached: no rated level within ${r.max_edits} edits and ${r.max_ratings} ratings is ${tierLabel}; nothing written`);
  out.appendChild(head);
  const rated = (x) => `sigma50 ${sig3(x.sigma50)} rad (${sig3(x.low)} to ${sig3(x.high)}), ${x.tier}`;
  const table = document.createElement("table");
  table.innerHTML = "<tr><th></th><th>rated</th><th>estimate</th></tr>";
  // As the command's report: "nearest" only when an edited level was nearer than the original.
  const rows = [["before", r.before]].concat(r.edits.length === 0 ? [] : [[r.status === "reached" ? "after" : "nearest", r.after]]);
  for (const [what, x] of rows) {
    const tr = document.createElement("tr");
    for (const v of [what, rated(x), sig3(x.estimate)]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }
  out.appendChild(table);
  if (r.edits.length) {
    const ol = document.createElement("ol");
    for (const e of r.edits) {
      const li = document.createElement("li");
      li.textContent = `${e.description} (estimate ${sig3(e.estimate)})`;
      ol.appendChild(li);
    }
    out.appendChild(ol);
  }
  const foot = document.createElement("p");
  foot.className = "hint";
  foot.textContent = `${r.ratings.length} rating${r.ratings.length === 1 ? "" : "s"}, ${r.games_added} games played `
    + `(${r.games_stored} found stored) in ${seconds.toFixed(1)} s`;
  out.appendChild(foot);
  if (r.out) {
    const open = document.createElement("button");
    open.id = "tune-open";
    open.textContent = `Open ${r.out}`;
    open.onclick = () => openLevel(r.out);
    out.appendChild(open);
    refreshList();
  }
}

function showRating(r) {
  studio.rating = r;
  const out = $("#rating");
  out.innerHTML = "";
  const tier = document.createElement("div");
  tier.className = "tier";
  tier.id = "tier";
  tier.textContent = r.tier;
  out.appendChild(tier);
  const s = document.createElement("p");
  s.textContent = `sigma50 ${r.sigma50_text} rad` + (r.bound ? ` (a bound: probability ${r.probability.toFixed(2)})` : "")
    + ` · ${r.games} games in ${r.seconds.toFixed(1)} s` + (r.stop ? ` · stopped: ${r.stop}` : "");
  out.appendChild(s);
  // One row per agent: the adaptive games spread over many sigmas, which the chart shows one by one.
  const table = document.createElement("table");
  table.innerHTML = "<tr><th>agent</th><th>aim noise</th><th>games</th><th>won</th></tr>";
  const kinds = [...new Set(r.agents.map((a) => a.agent))];
  for (const kind of kinds) {
    const rows = r.agents.filter((a) => a.agent === kind);
    const games = rows.reduce((n, a) => n + a.games, 0);
    const won = rows.reduce((n, a) => n + Math.round(a.win_rate * a.games), 0);
    // Several rows: the adaptive rating's trial sigmas (how many, and their range), not levels.
    const sigmas = rows.map((a) => a.sigma);
    const noise = rows.length === 1 ? `${rows[0].sigma.toFixed(3)} rad`
      : `${rows.length} sigmas, ${Math.min(...sigmas).toFixed(3)} to ${Math.max(...sigmas).toFixed(3)} rad`;
    const tr = document.createElement("tr");
    for (const v of [kind, noise, games, `${won} (${Math.round((100 * won) / games)}%)`]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }
  out.appendChild(table);
  const chart = document.createElement("div");
  chart.innerHTML = r.chart;  // our own server's SVG; its texts are escaped there
  out.appendChild(chart);
  out.appendChild(heatLegend(r.pegs));
  draw();
}

// MARK: design panel

function buildPalette() {
  const pal = $("#palette");
  const tools = [{ kind: "select", label: "select" }]
    .concat(studio.config.peg_kinds.map((k) => ({ kind: "peg", peg: k, label: k })))
    .concat(studio.config.block_shapes.map((s) => ({ kind: "block", shape: s, label: s })));
  for (const t of tools) {
    const b = document.createElement("button");
    b.dataset.tool = t.kind === "peg" ? t.peg : t.kind === "block" ? t.shape : "select";
    if (t.kind !== "select") {
      const sw = document.createElement("span");
      sw.className = "swatch" + (t.kind === "block" ? " block" : "");
      sw.style.background = t.kind === "peg" ? COLORS[t.peg] : "#465164";
      b.appendChild(sw);
    }
    b.appendChild(document.createTextNode(t.label));
    b.onclick = () => {
      studio.tool = t;
      for (const o of pal.children) o.classList.toggle("on", o === b);
    };
    if (t.kind === "select") b.classList.add("on");
    pal.appendChild(b);
  }
  const power = field("power");
  for (const p of studio.config.powers) power.add(new Option(p, p));
}

// The mode form, built from /api/config's table of mode fields (ModeField.all on the server): the
// page writes no mode, label or range of its own. Each field's input shows only for its mode.
function buildModeForm() {
  const select = field("mode"), box = $("#mode-fields");
  for (const m of studio.config.modes) {
    select.add(new Option(m.label, m.name));
    for (const f of m.fields) {
      const label = document.createElement("label");
      label.dataset.for = m.name;
      label.title = `${f.help}: ${f.min} to ${f.max}, default ${f["default"]}`;
      const input = document.createElement("input");
      Object.assign(input, { type: "number", min: f.min, max: f.max, step: f.kind === "whole" ? 1 : "any" });
      input.dataset.modeField = f.name;
      label.append(`${f.label} `, input);
      box.appendChild(label);
    }
  }
}

function slider(label, value, min, max, step, onChange) {
  const l = document.createElement("label");
  l.textContent = label + " ";
  const input = document.createElement("input");
  Object.assign(input, { type: "range", min, max, step, value });
  const shown = document.createElement("span");
  shown.textContent = Number(value).toFixed(step < 1 ? 2 : 0);
  input.oninput = () => { shown.textContent = Number(input.value).toFixed(step < 1 ? 2 : 0); };
  input.onchange = () => onChange(Number(input.value));
  input.dataset.field = label;
  l.append(input, shown);
  return l;
}

function fillInspector() {
  const box = $("#inspector");
  box.innerHTML = "";
  const found = studio.selected === null ? null : findObject(studio.selected);
  if (!found) {
    box.innerHTML = '<p class="hint">Click an object to select it; drag to move it.</p>';
    return;
  }
  const o = found.o, id = o.id, c = studio.config;
  const head = document.createElement("p");
  head.textContent = found.type === "peg" ? `${o.kind} peg ${id}` : `${o.shape} block ${id}`;
  box.appendChild(head);
  if (found.type === "peg") {
    const kind = document.createElement("select");
    for (const k of c.peg_kinds) kind.add(new Option(k, k, false, k === o.kind));
    kind.onchange = () => edit({ type: "set_kind", id, peg: kind.value });
    const l = document.createElement("label");
    l.append("Kind ", kind);
    box.appendChild(l);
  }
  if (found.type === "peg" && o.shape !== "brick") {
    box.appendChild(slider("radius", o.radius, c.peg_radius.min, c.peg_radius.max, 1, (v) => edit({ type: "resize", id, radius: v })));
  } else {
    const lim = found.type === "peg" ? c.brick_side : c.block_side;
    box.appendChild(slider("width", o.width, lim.min, lim.max, 1, (v) => edit({ type: "resize", id, width: v, height: o.height })));
    box.appendChild(slider("height", o.height, lim.min, lim.max, 1, (v) => edit({ type: "resize", id, width: o.width, height: v })));
    box.appendChild(slider("rotation", o.rotation || 0, -3.14, 3.14, 0.01, (v) => edit({ type: "rotate", id, rotation: v })));
  }
  if (found.type === "block") {
    box.appendChild(slider("springiness", o.springiness || 0, 0, 1, 0.05, (v) => edit({ type: "set_springiness", id, springiness: v })));
  }
}

// The settings form's fields by name (not `form.name`: a form's own properties shadow them).
function field(name) { return $("#settings").elements.namedItem(name); }

function fillSettings() {
  const f = $("#settings"), l = studio.level, m = l.mode;
  field("name").value = l.name;
  field("author").value = l.author || "";
  field("mode").value = m.type;
  // Only the mode's own fields are shown, and the level always has them (the server fills a
  // new mode's defaults), so the page keeps no defaults of its own.
  for (const input of f.querySelectorAll("[data-mode-field]")) input.value = m[input.dataset.modeField] ?? "";
  field("power").value = l.power;
  field("purple_roams").checked = l.purple_roams !== false;
  for (const lab of f.querySelectorAll("[data-for]")) lab.hidden = lab.dataset.for !== m.type;
}

function settingsChanged(ev) {
  const name = ev.target.name, op = { type: "settings" };
  const modeField = ev.target.dataset.modeField;
  if (modeField) {
    // A mode field travels by its level-format name; the server checks it against the table.
    if (ev.target.value === "") { fillSettings(); return; }
    op.fields = { [modeField]: Number(ev.target.value) };
  } else if (name === "purple_roams") op.purple_roams = field(name).checked;
  else op[name] = field(name).value;
  edit(op).then((ok) => { if (!ok) fillSettings(); });
}

// MARK: pointer

function onDown(ev) {
  if (!studio.level) return;
  const p = boardPoint(ev);
  if (studio.mode === "play") { fire(aimAngle(p)); return; }
  if (studio.mode !== "design") return;
  const hit = objectAt(p.x, p.y);
  if (hit !== null) {
    studio.selected = hit;
    const o = findObject(hit).o;
    studio.drag = { id: hit, dx: p.x - o.x, dy: p.y - o.y, x: p.x, y: p.y, moved: false };
    showLevel();
    return;
  }
  const t = studio.tool;
  const x = Math.round(p.x), y = Math.round(p.y);
  if (t.kind === "peg") {
    const brick = document.querySelector("input[name=pegshape]:checked").value === "brick";
    edit(brick ? { type: "add_peg", peg: t.peg, x, y, width: 30, height: 12, rotation: 0 } : { type: "add_peg", peg: t.peg, x, y });
  } else if (t.kind === "block") {
    edit({ type: "add_block", shape: t.shape, x, y, width: 80, height: t.shape === "triangle" ? 50 : 20, rotation: 0, springiness: 0 });
  } else {
    studio.selected = null;
    showLevel();
  }
}

function onMove(ev) {
  if (!studio.level) return;
  const p = boardPoint(ev);
  studio.pointer = p;
  const d = studio.drag;
  if (d) {
    d.x = p.x; d.y = p.y;
    d.moved = d.moved || Math.hypot(p.x - d.dx - findObject(d.id).o.x, p.y - d.dy - findObject(d.id).o.y) > 2;
    draw();
  } else if (studio.mode === "play" && !(studio.game && studio.game.animating)) {
    draw();
  }
}

function onUp() {
  const d = studio.drag;
  studio.drag = null;
  if (d && d.moved) edit({ type: "move", id: d.id, x: Math.round((d.x - d.dx) * 100) / 100, y: Math.round((d.y - d.dy) * 100) / 100 });
  else draw();
}

function setMode(mode) {
  studio.mode = mode;
  for (const b of document.querySelectorAll("#modes button")) b.classList.toggle("on", b.dataset.mode === mode);
  for (const p of document.querySelectorAll("[data-panel]")) p.hidden = p.dataset.panel !== mode;
  canvas.style.cursor = mode === "play" ? "crosshair" : "default";
  if (mode === "play") resetGame(); else { studio.game = null; draw(); }
}

// MARK: start

async function start() {
  studio.config = await api("GET", "/api/config");
  buildPalette();
  buildModeForm();
  $("#budget").value = studio.config.rating_budget;
  for (const b of document.querySelectorAll("#modes button")) b.onclick = () => setMode(b.dataset.mode);
  $("#new").onclick = newLevel;
  for (const m of studio.config.modes) $("#list-mode").add(new Option(m.label, m.name));
  // The list filters on the estimate's tier by its label; a tune asks for a tier by its name.
  for (const t of studio.config.tiers) {
    $("#list-tier").add(new Option(t.label));
    $("#tune-tier").add(new Option(t.label, t.name));
  }
  let typing = null;
  $("#list-search").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => listChanged(true), 150); });
  $("#list-mode").onchange = () => listChanged(true);
  $("#list-tier").onchange = () => listChanged(true);
  // Ratings are kept only in a database: without one no level is rated, so no filter is offered.
  $("#list-rated").hidden = !studio.config.recording;
  $("#list-rated").onchange = () => listChanged(true);
  $("#list-sort").onchange = () => listChanged(true);
  $("#list-order").onclick = () => {
    const b = $("#list-order");
    if (b.dataset.desc) delete b.dataset.desc; else b.dataset.desc = "1";
    b.textContent = b.dataset.desc ? "↓" : "↑";
    listChanged(true);
  };
  $("#list-prev").onclick = () => { list.offset = Math.max(0, list.offset - LIST_PAGE); listChanged(false); };
  $("#list-next").onclick = () => { list.offset += LIST_PAGE; listChanged(false); };
  $("#save").onclick = () => save({});
  $("#saveas").onclick = saveAs;
  $("#duplicate").onclick = () => save({ copy: true });
  $("#undo").onclick = () => restore(studio.undo, studio.redo);
  $("#redo").onclick = () => restore(studio.redo, studio.undo);
  $("#delete").onclick = () => { if (studio.selected !== null) edit({ type: "remove", id: studio.selected }); };
  $("#reset").onclick = () => resetGame();
  $("#seed").value = newSeed();
  const player = $("#player");
  player.value = localStorage.getItem("peggle-studio-player") || "";
  player.addEventListener("change", () => localStorage.setItem("peggle-studio-player", player.value.trim()));
  $("#record").textContent = studio.config.recording ? "Finished games are recorded under the player's name."
    : "Games are not recorded (start the studio with --db FILE to record them).";
  $("#replay").onclick = replay;
  $("#rate").onclick = rate;
  $("#tune").onclick = tune;
  $("#settings").addEventListener("change", settingsChanged);
  $("#settings").addEventListener("submit", (e) => e.preventDefault());
  canvas.addEventListener("mousedown", onDown);
  window.addEventListener("mousemove", (e) => { if (e.target === canvas || studio.drag) onMove(e); });
  window.addEventListener("mouseup", onUp);
  window.addEventListener("resize", setupCanvas);
  window.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea")) return;
    if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); restore(studio.undo, studio.redo); }
    else if ((e.ctrlKey || e.metaKey) && (e.key === "y" || e.key === "Z")) { e.preventDefault(); restore(studio.redo, studio.undo); }
    else if ((e.key === "Delete" || e.key === "Backspace") && studio.selected !== null && studio.mode === "design") {
      edit({ type: "remove", id: studio.selected });
    }
  });
  window.addEventListener("beforeunload", (e) => { if (studio.dirty) e.preventDefault(); });
  const r = await api("GET", "/api/new");
  load(r.level, "", false, r.issues);
  setupCanvas();
  // A shared studio's playtester (`peggle studio --share`) may only play and record: the
  // designer's buttons are hidden (the server refuses them anyway) and Play is the only mode.
  if (studio.config.role === "playtester") {
    document.body.classList.add("playtester");
    const first = (await api("GET", "/api/levels?limit=1")).items[0];
    if (first) {
      const o = await api("GET", "/api/levels/" + encodeURIComponent(first.file));
      load(o.level, o.file, o.read_only, o.issues);
    }
    setMode("play");
    $("#record").textContent = "Type your name under Player, pick a level and play: finished games are recorded under your name.";
  }
  document.body.dataset.ready = "1";
}

start().catch((e) => say(e.message, "error"));
