// The page of `atoll serve --web`: the same atoll.v1.Atoll service as any gRPC client, over the Connect protocol,
// with the client generated from proto/atoll/v1/atoll.proto. A seat's screen shows only what its token may read:
// its View, the SVG board the server drew from its observation, its Suggest.
import { createClient, ConnectError } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { Atoll } from "./gen/atoll/v1/atoll_pb.js";

const client = createClient(Atoll, createConnectTransport({ baseUrl: location.origin }));
const BOARD_GAMES = ["survive", "islet", "islet_solo", "small_islands"];
const CELL = /\(-?\d+,-?\d+\)|\b(?:NW|NE|SW|SE)\b/g;
const $ = (id) => document.getElementById(id);

const state = { games: {}, game: null, humans: [], seat: null, view: null, watching: null, points: [], logged: new Set() };

function fail(err) {
  const box = $("error");
  box.textContent = err instanceof ConnectError ? `${err.code ? err.rawMessage : err.message}` : String(err);
  box.hidden = false;
}

function clearError() {
  $("error").hidden = true;
}

function auth(seat) {
  const token = state.humans.find((h) => h.seat === seat)?.token;
  return { headers: { authorization: `Bearer ${token}` } };
}

async function init() {
  const { games } = await client.listGames({});
  for (const info of games.filter((g) => BOARD_GAMES.includes(g.name))) {
    state.games[info.name] = info;
    $("game").append(new Option(info.title, info.name));
  }
  $("game").addEventListener("change", fillPlayers);
  $("players").addEventListener("change", fillSeats);
  fillPlayers();
  $("setup").addEventListener("submit", (e) => { e.preventDefault(); create().catch(fail); });
  $("watch").addEventListener("click", () => watchBots().catch(fail));
  $("hint").addEventListener("click", () => hint().catch(fail));
}

function fillPlayers() {
  const info = state.games[$("game").value];
  $("players").replaceChildren();
  for (let n = info.minPlayers; n <= info.maxPlayers; n++) $("players").append(new Option(String(n), String(n)));
  fillSeats();
}

function fillSeats() {
  const n = Number($("players").value);
  $("seats").replaceChildren();
  for (let seat = 0; seat < n; seat++) {
    const pick = document.createElement("select");
    pick.id = `seat-${seat}`;
    pick.append(new Option("you", "human"));
    for (let level = 1; level <= 5; level++) pick.append(new Option(`bot level ${level}`, String(level)));
    pick.value = seat === 0 ? "human" : "2";
    const label = document.createElement("label");
    label.className = "seat";
    label.append(`seat ${seat}`, pick);
    $("seats").append(label);
  }
}

function seatChoices() {
  const n = Number($("players").value);
  return Array.from({ length: n }, (_, seat) => $(`seat-${seat}`).value);
}

async function create() {
  clearError();
  stopWatching();
  const game = $("game").value;
  const choices = seatChoices();
  if (!choices.includes("human")) throw new Error("choose at least one seat for you, or watch the bots play");
  const seats = choices.map((c) => (c === "human" ? { isBot: false } : { isBot: true, bot: { level: Number(c) } }));
  const reply = await client.createGame({ game, players: choices.length, seats }, { timeoutMs: 60000 });
  state.game = reply.gameId;
  state.humans = reply.seats.filter((s) => !s.isBot).map((s) => ({ seat: s.seat, token: s.token }));
  state.points = [];
  state.logged = new Set();
  $("log").replaceChildren();
  state.seat = state.humans[0].seat;
  $("play").hidden = false;
  $("side").hidden = false;
  await show();
  follow();
}

async function show() {
  const view = await client.getView({ gameId: state.game, seat: state.seat, svg: true }, auth(state.seat));
  state.view = view;
  $("board").innerHTML = view.boardSvg; // drawn by the server from this seat's observation only
  $("board").querySelector("svg")?.addEventListener("click", pickCell);
  const others = state.humans.length > 1 ? " (switch seats with the buttons below)" : "";
  $("status").textContent = view.gameOver
    ? `Game over. Returns: ${view.returns.map((r) => r.toFixed(2)).join(", ")}; scores: ${view.scores.join(", ")}`
    : view.currentPlayer === state.seat
      ? `Move ${view.moveNumber}: your turn (seat ${state.seat})${others}`
      : `Move ${view.moveNumber}: seat ${view.currentPlayer} to act${view.currentPlayer < 0 ? " (chance)" : ""}`;
  listMoves(view);
  if (view.legalActions.length && !view.gameOver) await track();
}

function listMoves(view) {
  const box = $("moves");
  box.replaceChildren();
  $("picked").replaceChildren();
  const legal = new Set();
  const groups = new Map();
  for (const action of view.legalActions) {
    for (const cell of action.text.match(CELL) ?? []) legal.add(cell);
    const kind = action.text.split(" ")[0];
    if (!groups.has(kind)) groups.set(kind, []);
    groups.get(kind).push(action);
  }
  for (const el of $("board").querySelectorAll("[data-cell]")) {
    el.classList.toggle("legal", legal.has(el.dataset.cell));
  }
  for (const [kind, actions] of groups) {
    const group = document.createElement("details");
    group.open = groups.size === 1 || actions.length <= 6;
    const summary = document.createElement("summary");
    summary.textContent = `${kind} (${actions.length})`;
    group.append(summary, ...actions.map(moveButton));
    box.append(group);
  }
  if (state.humans.length > 1) {
    for (const h of state.humans) {
      const b = document.createElement("button");
      b.textContent = `show seat ${h.seat}`;
      b.addEventListener("click", () => { state.seat = h.seat; show().catch(fail); follow(); });
      box.append(b);
    }
  }
}

function moveButton(action) {
  const b = document.createElement("button");
  b.textContent = action.text;
  b.className = "move";
  b.addEventListener("click", () => act(action).catch(fail));
  return b;
}

function pickCell(event) {
  const cell = event.target.closest("[data-cell]")?.dataset.cell;
  if (!cell || !state.view) return;
  const matching = state.view.legalActions.filter((a) => (a.text.match(CELL) ?? []).includes(cell));
  for (const el of $("board").querySelectorAll("[data-cell]")) el.classList.toggle("chosen", el.dataset.cell === cell);
  if (matching.length === 1) {
    act(matching[0]).catch(fail);
    return;
  }
  const box = $("picked");
  box.replaceChildren(`${cell}: ${matching.length ? "" : "no move names this cell"}`, ...matching.map(moveButton));
}

async function act(action) {
  clearError();
  const reply = await client.act(
    { gameId: state.game, seat: state.seat, move: { case: "actionId", value: action.id },
      expectedMoveNumber: state.view.moveNumber },
    { ...auth(state.seat), timeoutMs: 60000 },
  );
  logMove(reply.played);
  for (const m of reply.followed) logMove(m);
  await show();
}

function logMove(record) {
  const number = String(record.moveNumber);
  if (state.logged.has(number)) return; // the Act reply and the watch stream both bring a move
  state.logged.add(number);
  const item = document.createElement("li");
  const who = record.actor < 0 ? "chance" : `seat ${record.actor}`;
  item.textContent = `${record.moveNumber}. ${who}: ${record.action?.text ?? ""}`;
  $("log").append(item);
  item.scrollIntoView({ block: "nearest" });
}

function stopWatching() {
  state.watching?.abort();
  state.watching = null;
}

// The game's moves as this seat sees them, as they come (the bots' replies while the page waits).
function follow() {
  stopWatching();
  const stop = new AbortController();
  state.watching = stop;
  const from = state.view ? state.view.moveNumber : 0n;
  (async () => {
    for await (const event of client.watchGame(
      { gameId: state.game, seat: state.seat, fromMove: from }, { ...auth(state.seat), signal: stop.signal })) {
      logMove(event.move);
      if (event.view && event.view.moveNumber > (state.view?.moveNumber ?? -1n)) await show();
      if (event.final) break;
    }
  })().catch((err) => { if (!stop.signal.aborted) fail(err); });
}

// The seat's win probability by the search at each of its turns, and on every hint.
async function track(iterations = 300) {
  const reply = await client.suggest(
    { position: { case: "hosted", value: { gameId: state.game, seat: state.seat } }, settings: { iterations } },
    { ...auth(state.seat), timeoutMs: 30000 },
  );
  if (reply.moves.length) state.points.push([Number(state.view.moveNumber), reply.moves[0].winProb]);
  drawGraph();
  return reply;
}

async function hint() {
  clearError();
  const reply = await track(3000);
  const rows = reply.moves.slice(0, 5).map((m) =>
    `<tr><td>${escape(m.action.text)}</td><td>${m.visits}</td><td>${(100 * m.winProb).toFixed(1)} %</td></tr>`);
  const belief = beliefRows(reply.belief ?? {});
  const best = reply.moves[0];
  $("advice").innerHTML =
    `<table><tr><th>move</th><th>visits</th><th>win</th></tr>${rows.join("")}</table>` +
    `<p>Expected line: ${escape(best ? lineText(best) : "")}</p>` +
    (belief.length ? `<table><tr><th colspan="3">what you believe of the others</th></tr>${belief.join("")}</table>` : "");
  if (best) drawLine(best.pv);
}

// The expected line, each step by whom: a chance step is one sampled world's draw, not a forecast.
function lineText(move) {
  return move.pv.map((step, k) => {
    const actor = move.pvActors[k];
    const who = actor === undefined || actor === state.seat ? "" : actor < 0 ? "sampled draw: " : `seat ${actor}: `;
    return who + step;
  }).join(" → ");
}

// The belief summary as rows: each hidden fact (a seat's tile, a colour's treasure at a cell) with its chances,
// the likeliest first, at most a few per fact.
function beliefRows(belief, path = [], rows = []) {
  for (const [key, value] of Object.entries(belief)) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const numbers = Object.values(value).every((v) => typeof v === "number");
      if (numbers && Object.keys(value).length) {
        const top = Object.entries(value).sort((a, b) => b[1] - a[1]).slice(0, 4)
          .map(([k, v]) => `${escape(k)} ${v.toFixed(2)}`).join(", "); // chances, or expected counts (Islet hands)
        rows.push(`<tr><td>${escape([...path, key].join(" · "))}</td><td colspan="2">${top}</td></tr>`);
      } else {
        beliefRows(value, [...path, key], rows);
      }
    } else if (key !== "worlds") {
      rows.push(`<tr><td>${escape([...path, key].join(" · "))}</td><td colspan="2">${escape(String(value))}</td></tr>`);
    }
  }
  return rows.slice(0, 24);
}

function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Arrows along the principal line, from each cell a move names to the next.
function drawLine(moves) {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  svg.querySelectorAll(".pv").forEach((el) => el.remove());
  const centre = (cell) => {
    const el = svg.querySelector(`[data-cell="${cell}"]`);
    if (!el) return null;
    const box = el.getBBox();
    return [box.x + box.width / 2, box.y + box.height / 2];
  };
  for (const text of moves) {
    const cells = text.match(CELL) ?? [];
    for (let k = 1; k < cells.length; k++) {
      const [a, b] = [centre(cells[k - 1]), centre(cells[k])];
      if (!a || !b) continue;
      const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      for (const [name, value] of [["x1", a[0]], ["y1", a[1]], ["x2", b[0]], ["y2", b[1]], ["stroke", "#ff006e"],
        ["stroke-width", "3"], ["marker-end", "url(#head)"], ["class", "pv"]]) line.setAttribute(name, value);
      svg.append(line);
    }
  }
}

function drawGraph() {
  const svg = $("graph");
  const [w, h] = [300, 120];
  const points = state.points;
  const last = Math.max(1, ...points.map((p) => p[0]));
  const path = points.map(([x, y]) => `${(x / last) * (w - 10) + 5},${h - 5 - y * (h - 10)}`).join(" ");
  svg.innerHTML = `<rect width="${w}" height="${h}" fill="#fff" stroke="#ccd"/>` +
    `<line x1="0" x2="${w}" y1="${h / 2}" y2="${h / 2}" stroke="#ddd"/>` +
    `<polyline points="${path}" fill="none" stroke="#1d4ed8" stroke-width="2"/>` +
    points.map(([x, y]) => `<circle cx="${(x / last) * (w - 10) + 5}" cy="${h - 5 - y * (h - 10)}" r="2.5" fill="#1d4ed8"/>`).join("");
}

// A game between bots, streamed move by move; the board as seat 0 sees it (nobody else's secrets are drawn).
async function watchBots() {
  clearError();
  stopWatching();
  const game = $("game").value;
  const choices = seatChoices();
  const bots = choices.map((c) => ({ level: c === "human" ? 2 : Number(c) }));
  const stop = new AbortController();
  state.watching = stop;
  state.game = null;
  state.humans = [];
  $("play").hidden = false;
  $("side").hidden = false;
  $("moves").replaceChildren();
  $("log").replaceChildren();
  state.logged = new Set();
  for await (const event of client.playGame({ game, players: choices.length, bots, svgSeat: 0 }, { signal: stop.signal })) {
    $("board").innerHTML = event.view.boardSvg;
    logMove(event.move);
    $("status").textContent = event.final
      ? `Game over after ${event.view.moveNumber} moves. Returns: ${event.returns.map((r) => r.toFixed(2)).join(", ")}`
      : `Bots playing: move ${event.view.moveNumber} (the board as seat 0 sees it)`;
  }
}

init().catch(fail);
