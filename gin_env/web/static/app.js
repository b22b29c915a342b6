// The page of gin-env serve: four screens (Play, Watch, Replays, Rooms) over one websocket that speaks the JSON frames
// documented in gin_env/web/app.py. The server is the authority: this page only draws what it is sent and sends
// back names from the catalog and action ids. Every text from the server is inserted with textContent, never as HTML.
"use strict";

const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const RANKS = { T: "10" };

const state = {
  socket: null,
  catalog: null,
  watch: { timer: null, paused: false, waiting: false, over: true },
  replay: null,
  step: 0,
  // The room this page is in: {room, invite, token}, kept in sessionStorage so that a reload reconnects.
  room: null,
  roomFrame: null,
  rejoining: false,
  deadline: null,
};
const ROOM_KEY = "gin-env-room";

// --- small helpers -----------------------------------------------------------------------------------------------

function $(id) { return document.getElementById(id); }

// An element with text (set as text) and attributes; children appended in order.
function el(tag, text, attrs, children) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children || []) node.appendChild(child);
  return node;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

function fill(select, values, labels) {
  clear(select);
  values.forEach((v, k) => select.appendChild(el("option", labels ? labels[k] : v, { value: v })));
}

function send(frame) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify(frame));
}

function status(text) { $("status").textContent = text; }

function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
}

// --- cards -------------------------------------------------------------------------------------------------------

// One card from its text: "7S", "TD", "JK", or a run joker "JK=7S" (it shows the card it stands for).
function card(text, attrs) {
  const node = el("span", null, Object.assign({ class: "card", "data-card": text }, attrs || {}));
  if (text.startsWith("JK")) {
    node.classList.add("joker");
    node.appendChild(el("span", "JK", { class: "rank" }));
    if (text.includes("=")) node.appendChild(el("span", "=" + text.split("=")[1], { class: "stands" }));
    return node;
  }
  const rank = text.slice(0, -1), suit = text.slice(-1);
  node.classList.add("suit-" + suit);
  node.appendChild(el("span", RANKS[rank] || rank, { class: "rank" }));
  node.appendChild(el("span", SUITS[suit] || suit, { class: "suit" }));
  return node;
}

function cardRow(texts, empty) {
  const row = el("span", null, { class: "cards" });
  if (!texts || !texts.length) row.appendChild(el("span", empty || "none", { class: "empty" }));
  else texts.forEach((t) => row.appendChild(card(t)));
  return row;
}

// A hand sorted into its melds and its deadwood; cards of `clickable` (card text -> action id) are buttons.
function handGroups(arrangement, clickable) {
  const box = el("div", null, { class: "groups" });
  const group = (texts, cls, caption) => {
    const g = el("div", null, { class: "group " + cls }, [el("span", caption, { class: "caption" })]);
    texts.forEach((t) => {
      const action = clickable ? clickable[t.split("=")[0]] : undefined;
      const c = card(t, action === undefined ? {} : { "data-action": action, role: "button", tabindex: 0 });
      if (action !== undefined) {
        c.classList.add("playable");
        c.addEventListener("click", () => send({ type: "act", action: Number(action) }));
      }
      g.appendChild(c);
    });
    box.appendChild(g);
  };
  arrangement.melds.forEach((m) => group(m, "meld", "meld"));
  group(arrangement.deadwood_cards, "deadwood-group", "deadwood " + arrangement.deadwood);
  return box;
}

// --- tables, showdowns, scores ---------------------------------------------------------------------------------

function scores(node, frame) {
  clear(node);
  frame.scores.forEach((s) => node.appendChild(el("span", s.name + ": " + s.score, { class: "score" })));
  const parts = [frame.format, frame.rules, frame.episode === "match" ? "to " + frame.target : "one hand",
    "hand " + frame.hand_number];
  node.appendChild(el("span", parts.join(" · "), { class: "caption" }));
}

// A table everyone may see (public) or every hand of it (open): names, pile, stock, what is known.
function tableView(table) {
  const box = el("div", null, { class: "table" });
  box.appendChild(el("p", table.names.join(" vs ") + " · dealer " + table.dealer + " · " + table.phase_text));
  box.appendChild(el("p", null, {}, [el("span", "Discard pile: "), cardRow(table.top_discard ? [table.top_discard] : [],
    "empty"), el("span", " (" + table.pile_size + ") · stock " + table.stock_size + " · knock limit " +
    table.knock_limit)]));
  table.names.forEach((name, p) => {
    const row = el("div", null, { class: "player" }, [el("strong", name + (table.turn === name ? " (to act)" : ""))]);
    if (table.hands) row.appendChild(handGroups(table.hands[p]));
    else row.appendChild(el("p", table.hand_sizes[p] + " cards; known: ", {}, [cardRow(table.known[p])]));
    row.appendChild(el("p", "Discards: ", {}, [cardRow(table.discards[p])]));
    box.appendChild(row);
  });
  return box;
}

function showdown(s) {
  const box = el("div", null, { class: "showdown" });
  box.appendChild(el("h3", s.kind === "dead" ? "Dead hand" : s.kind.replace("_", " ") + " by " + s.knocker +
    (s.knock_card ? " (knock card " + s.knock_card + ")" : "")));
  s.hands.forEach((h) => {
    const row = el("div", null, { class: "player" }, [el("strong", h.name + ": deadwood " + h.deadwood)]);
    h.melds.forEach((m) => {
      const meld = el("span", null, { class: "group meld" }, [cardRow(m.cards)]);
      if (m.laid_off.length) meld.appendChild(el("span", " + laid off ", { class: "caption" }, [cardRow(m.laid_off)]));
      row.appendChild(meld);
    });
    row.appendChild(el("span", null, { class: "group deadwood-group" }, [cardRow(h.deadwood_cards, "no deadwood")]));
    box.appendChild(row);
  });
  const layoffs = el("ul", null, { class: "layoffs" });
  s.layoffs.forEach((l) => layoffs.appendChild(el("li", "laid off " + l.card + " on " + l.meld.join(" "))));
  box.appendChild(layoffs);
  box.appendChild(el("p", s.reason, { class: "reason" }));
  return box;
}

function showdowns(node, frame) {
  clear(node);
  frame.showdowns.forEach((s) => node.appendChild(showdown(s)));
  frame.results.forEach((r) => node.appendChild(el("p", r.names.join(" vs ") + ": " + r.kind +
    (r.winner ? ", " + r.winner + " scores " + r.points : ""))));
}

// The game's end; a seat's frame names its own player (frame.you): that winner reads "you win".
function result(node, frame) {
  if (!frame.result) { node.textContent = ""; return; }
  const totals = frame.result.final_totals.map((t) => t.name + " " + t.score).join(", ");
  const winner = frame.result.winner;
  node.textContent = "Game over: " + (!winner ? "no winner" : winner === frame.you ? "you win" : winner + " wins") +
    " (" + totals + ")";
}

function log(node, lines) {
  clear(node);
  lines.forEach((line) => node.appendChild(el("li", line)));
}

// --- Play --------------------------------------------------------------------------------------------------------

// The table of a seat's frame, into the elements of the Play screen (prefix "") or of the Rooms one ("room-").
function drawSeat(frame, prefix) {
  const $ = (id) => document.getElementById((prefix || "") + id);
  $(prefix ? "table" : "play-table").hidden = false;
  scores($("scores"), frame);
  const view = frame.view;
  clear($("pile")); clear($("stock")); clear($("opponent")); clear($("hand")); clear($("moves"));
  clear($("others"));
  frame.tables.forEach((t) => $("others").appendChild(tableView(t)));
  // A spectator's frame (or a seat sitting the hand out) has no hand: its tables show what is public instead.
  $("seat-row").hidden = !view;
  $("deadwood-line").hidden = !view;
  $("deadwood").textContent = view ? view.arrangement.deadwood : "";
  $("deadwood-after").textContent = view && view.arrangement.deadwood_after_discard !== null
    ? "(" + view.arrangement.deadwood_after_discard + " after your best discard)" : "";
  if (view) {
    $("pile").appendChild(cardRow(view.top_discard ? [view.top_discard] : [], "empty"));
    $("pile").appendChild(el("span", " " + view.pile_size + " cards", { class: "caption" }));
    $("stock").textContent = view.stock_size + " cards";
    $("opponent").appendChild(cardRow(view.opponent_known));
    const clickable = {};
    view.moves.forEach((m) => {
      const word = m.label.split(" ")[0];
      if (word === "discard") clickable[m.label.slice("discard ".length)] = m.action;
    });
    $("hand").appendChild(handGroups(view.arrangement, clickable));
    view.moves.forEach((m) => {
      const b = el("button", m.label, { type: "button", "data-action": m.action });
      b.addEventListener("click", () => send({ type: "act", action: m.action }));
      $("moves").appendChild(b);
    });
    // In a room the seat's turn is one member's (R58): the others of the seat see whose it is.
    const member = frame.room && frame.room.to_act;
    $("phase").textContent = view.turn === "you" && member && member !== frame.room.you ? member + " to act: "
      + view.phase_text : view.turn === "you" ? "Your turn: " + view.phase_text
      : view.turn ? frame.actor + " to act" : view.phase_text;
  } else {
    $("phase").textContent = frame.waiting || frame.over ? "The hand is over."
      : frame.tables.length && prefix ? "Watching: public cards only." : "You sit this hand out.";
  }
  if (!prefix) { $("hint").disabled = !(view && view.moves.length); clear($("hints")); }
  showdowns($("showdown"), frame);
  $("next").hidden = !frame.waiting;
  result($("result"), frame);
  log($("log"), frame.log);
  if (!prefix) status(frame.over ? "Game over." : frame.waiting ? "Hand over: see the showdown, then Next hand."
    : view && view.moves.length ? "Your turn." : "Waiting.");
}

function drawHint(frame) {
  const box = clear($("hints"));
  const list = el("ul");
  frame.agents.forEach((h) => list.appendChild(el("li", h.agent + ": " + h.label, { "data-action": h.action })));
  box.appendChild(list);
  if (frame.values) {
    const values = el("table", null, { class: "values" }, [el("tr", null, {}, [el("th", "action"),
      el("th", "search's value"), el("th", "\u00b1")])]);
    frame.values.forEach((v) => values.appendChild(el("tr", null, { "data-action": v.action },
      [el("td", v.label), el("td", v.value.toFixed(1)), el("td", v.stderr.toFixed(1))])));
    box.appendChild(values);
  }
}

// --- Watch -------------------------------------------------------------------------------------------------------

function watchAgents() {
  const box = clear($("watch-agents"));
  const n = Number($("watch-players").value);
  for (let k = 0; k < n; k++) {
    const select = el("select", null, { id: "watch-agent-" + k, class: "watch-agent" });
    fill(select, state.catalog.agents);
    select.selectedIndex = Math.min(k, state.catalog.agents.length - 1);
    box.appendChild(el("label", "Seat " + (k + 1) + " ", {}, [select]));
  }
}

function drawWatch(frame) {
  state.watch.waiting = false;
  state.watch.over = frame.over;
  scores($("watch-scores"), frame);
  const tables = clear($("watch-tables"));
  frame.tables.forEach((t) => tables.appendChild(tableView(t)));
  showdowns($("watch-showdown"), frame);
  result($("watch-result"), frame);
  log($("watch-log"), frame.log);
  status(frame.over ? "The watched game is over." : state.watch.paused ? "Paused." : "Watching.");
}

function watchTick() {
  if (state.watch.paused || state.watch.waiting || state.watch.over || $("screen-watch").hidden) return;
  state.watch.waiting = true;
  send({ type: "advance" });
}

function watchTimer() {
  clearInterval(state.watch.timer);
  const delay = Number($("watch-speed").value);
  $("watch-delay").textContent = (delay / 1000).toFixed(1) + " s a move";
  state.watch.timer = setInterval(watchTick, delay);
}

// --- Replays -----------------------------------------------------------------------------------------------------

function drawReplayList(frame) {
  const list = clear($("replay-list"));
  frame.replays.forEach((r) => {
    const outcome = r.outcome.kind + (r.outcome.winner ? ", " + r.outcome.winner + " +" + r.outcome.points : "");
    const b = el("button", r.players.join(" vs ") + " · " + r.rules + " · hand " + r.hand_number + " · " + outcome,
      { type: "button", "data-name": r.name });
    b.addEventListener("click", () => send({ type: "replay", name: r.name }));
    list.appendChild(el("li", null, {}, [b, el("span", " " + r.name, { class: "caption" })]));
  });
  const n = frame.replays.length;
  status(n ? "Pick a replay." : "No replays in the served folder yet.");
  $("replay-count").textContent = n + (n === 1 ? " replay" : " replays") +
    (frame.left_out ? ", " + frame.left_out + " older ones not listed" : "") +
    (frame.skipped ? ", " + frame.skipped + " files that are no replay left out" : "");
}

function drawReplayStep() {
  const steps = state.replay.steps, k = state.step, point = steps[k];
  $("replay-slider").value = k;
  $("replay-step").textContent = "point " + k + " of " + (steps.length - 1);
  $("replay-played").textContent = point.played ? "Next: " + point.table.names[point.actor] + " plays " +
    point.played.label : "The hand is over.";
  $("replay-deadwood").textContent = "Deadwood: " + point.table.names.map((n, p) => n + " " + point.deadwood[p])
    .join(", ");
  clear($("replay-table")).appendChild(tableView(point.table));
  const moves = clear($("replay-moves"));
  point.moves.forEach((m) => moves.appendChild(el("span", m.label, { class: "move", "data-action": m.action })));
  clear($("replay-advice"));
  $("replay-advice-button").disabled = point.actor === null;
  const shown = clear($("replay-showdown"));
  if (point.showdown) shown.appendChild(showdown(point.showdown));
}

function drawReplay(frame) {
  state.replay = frame;
  state.step = 0;
  $("replay-view").hidden = false;
  $("replay-title").textContent = frame.summary.players.join(" vs ") + " · " + frame.summary.rules + " · hand " +
    frame.summary.hand_number;
  $("replay-slider").max = frame.steps.length - 1;
  status("Replay: step through it.");
  drawReplayStep();
}

function replayGo(k) {
  if (!state.replay) return;
  state.step = Math.max(0, Math.min(state.replay.steps.length - 1, k));
  drawReplayStep();
}

function drawAdvice(frame) {
  if (!state.replay || frame.step !== state.step) return;
  const list = clear($("replay-advice")).appendChild(el("ul"));
  frame.advice.forEach((a) => list.appendChild(el("li", a.agent + ": " + a.label, { "data-action": a.action })));
}

// --- Rooms ------------------------------------------------------------------------------------------------------

function roomLink(room) {
  return location.origin + "/#room=" + encodeURIComponent(room.room) + "&invite=" + encodeURIComponent(room.invite);
}

function roomJoined(frame) {
  state.room = { room: frame.room, invite: frame.invite, token: frame.token };
  sessionStorage.setItem(ROOM_KEY, JSON.stringify(state.room));
  history.replaceState(null, "", location.pathname);
  $("room-link").value = roomLink(state.room);
  $("room-create").hidden = true;
  $("room-join").hidden = true;
  $("room-panel").hidden = false;
  if (frame.notice) showError(frame.notice);
  screen("rooms");
}

function roomLeft() {
  state.room = null;
  state.deadline = null;
  sessionStorage.removeItem(ROOM_KEY);
  $("room-panel").hidden = true;
  $("room-table").hidden = true;
  $("room-create").hidden = false;
  status("You left the room.");
}

function drawMembers(info) {
  const list = clear($("room-members"));
  info.seats.forEach((seat) => {
    const who = seat.bot ? "the bot" : seat.order.map((m) => m.name + (m.left ? " (left)" : m.away ? " (away)" : ""))
      .join(" → ") || "nobody yet";
    const item = el("li", "Seat " + (seat.seat + 1) + ": " + who);
    if (seat.joining.length) item.appendChild(el("span", " · from the next hand: " + seat.joining.join(", "),
      { class: "caption" }));
    list.appendChild(item);
  });
  list.appendChild(el("li", info.spectators + " watching", { class: "caption" }));
}

function roomClock() {
  const frame = state.roomFrame;
  if (!frame) return;
  const info = frame.room;
  const left = state.deadline === null ? "" : " · " + Math.max(0, Math.ceil((state.deadline - Date.now()) / 1000)) +
    (info.state === "between" ? " s until the next hand" : " s until the bot plays the turn");
  // info.you is null in a spectator's frame, so only a member's own turn reads "your turn".
  const acting = !info.to_act ? "" : info.to_act === info.you ? " · your turn" : " · " + info.to_act + " to act";
  $("room-state").textContent = "Room " + info.rules + ", " + info.players + " players, " + info.state + acting +
    left;
}

function drawRoom(frame) {
  const info = frame.room;
  state.roomFrame = frame;
  state.deadline = info.seconds_left === null ? null : Date.now() + info.seconds_left * 1000;
  drawMembers(info);
  roomClock();
  $("room-start").hidden = info.seat === null || !(info.state === "open" || info.state === "over");
  if (frame.type === "game") {
    drawSeat(frame, "room-");
    $("room-next").hidden = !(frame.waiting && info.seat !== null);
  }
  status(info.seat === null ? "You watch the room." : "You play seat " + (info.seat + 1) + " in the room.");
}

// The room and invite of a link's fragment (#room=ID&invite=INVITE): never sent to the server as a request.
function linkedRoom() {
  const params = new URLSearchParams(location.hash.slice(1));
  return params.get("room") && params.get("invite") ? { room: params.get("room"), invite: params.get("invite") }
    : null;
}

function roomOnConnect() {
  const saved = JSON.parse(sessionStorage.getItem(ROOM_KEY) || "null");
  const linked = linkedRoom();
  if (saved && (!linked || linked.room === saved.room)) {
    state.rejoining = true;
    send({ type: "rejoin", room: saved.room, token: saved.token });
  } else if (linked) {
    $("room-join").hidden = false;
    $("room-create").hidden = true;
    screen("rooms");
  }
}

// --- the socket and the controls -------------------------------------------------------------------------------

function drawCatalog(frame) {
  state.catalog = frame;
  for (const screen of ["play", "watch"]) {
    fill($(screen + "-rules"), frame.presets);
    fill($(screen + "-players"), frame.formats.map(String), frame.formats.map((n) => n + " players"));
    fill($(screen + "-episode"), frame.episodes, frame.episodes.map((e) => e === "hand" ? "one hand" : "a match"));
  }
  fill($("play-agent"), frame.agents);
  fill($("room-bot"), frame.agents);
  fill($("room-rules"), frame.presets);
  fill($("room-players"), frame.formats.map(String), frame.formats.map((n) => n + " players"));
  fill($("room-episode"), frame.episodes, frame.episodes.map((e) => e === "hand" ? "one hand" : "a match"));
  for (let k = 0; k < Math.max(...frame.formats); k++) {
    $("room-join-seat").appendChild(el("option", "seat " + (k + 1), { value: k }));
  }
  watchAgents();
  $("tab-replays").disabled = !frame.replays;
  status("Ready: pick a game.");
  roomOnConnect();
}

const HANDLERS = {
  catalog: drawCatalog,
  game: (frame) => (frame.screen === "room" ? drawRoom : frame.screen === "play" ? drawSeat : drawWatch)(frame),
  room: drawRoom,
  room_created: roomJoined,
  room_joined: (frame) => { state.rejoining = false; roomJoined(frame); },
  left: roomLeft,
  hint: drawHint,
  replays: drawReplayList,
  replay: drawReplay,
  advice: drawAdvice,
  error: (frame) => {
    state.watch.waiting = false;
    if (state.rejoining) { state.rejoining = false; sessionStorage.removeItem(ROOM_KEY); }
    showError(frame.message);
  },
};

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  state.socket = new WebSocket(scheme + location.host + "/ws");
  state.socket.addEventListener("open", () => send({ type: "catalog" }));
  state.socket.addEventListener("close", () => status("Disconnected from the server: reload the page."));
  state.socket.addEventListener("message", (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type !== "error") showError("");
    const handle = HANDLERS[frame.type];
    if (handle) handle(frame);
  });
}

function screen(name) {
  document.querySelectorAll(".screen").forEach((s) => { s.hidden = s.id !== "screen-" + name; });
  document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b.dataset.screen === name));
  if (name === "replays") send({ type: "replays" });
}

function wire() {
  document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => screen(b.dataset.screen)));
  $("play-form").addEventListener("submit", (event) => {
    event.preventDefault();
    send({ type: "play", agent: $("play-agent").value, rules: $("play-rules").value,
      players: Number($("play-players").value), episode: $("play-episode").value, name: $("play-name").value });
  });
  $("next").addEventListener("click", () => send({ type: "next" }));
  $("hint").addEventListener("click", () => send({ type: "hint", search: $("hint-search").checked }));
  $("watch-players").addEventListener("change", watchAgents);
  $("watch-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const agents = Array.from(document.querySelectorAll(".watch-agent")).map((s) => s.value);
    state.watch.over = false;
    send({ type: "watch", agents: agents, rules: $("watch-rules").value, players: Number($("watch-players").value),
      episode: $("watch-episode").value });
  });
  $("watch-speed").addEventListener("input", watchTimer);
  $("watch-pause").addEventListener("click", () => {
    state.watch.paused = !state.watch.paused;
    $("watch-pause").textContent = state.watch.paused ? "Resume" : "Pause";
  });
  $("watch-step").addEventListener("click", () => {
    if (!state.watch.over && !state.watch.waiting) { state.watch.waiting = true; send({ type: "advance" }); }
  });
  $("replay-refresh").addEventListener("click", () => send({ type: "replays" }));
  $("replay-prev").addEventListener("click", () => replayGo(state.step - 1));
  $("replay-next").addEventListener("click", () => replayGo(state.step + 1));
  $("replay-slider").addEventListener("input", () => replayGo(Number($("replay-slider").value)));
  $("replay-advice-button").addEventListener("click", () => send({ type: "advice", step: state.step }));
  $("room-create").addEventListener("submit", (event) => {
    event.preventDefault();
    send({ type: "create_room", bot: $("room-bot").value, rules: $("room-rules").value,
      players: Number($("room-players").value), episode: $("room-episode").value, name: $("room-name").value });
  });
  $("room-join").addEventListener("submit", (event) => {
    event.preventDefault();
    const linked = linkedRoom();
    if (!linked) { showError("Open the invite link to join a room."); return; }
    const frame = { type: "join_room", room: linked.room, invite: linked.invite, name: $("room-join-name").value,
      role: $("room-join-role").value };
    if ($("room-join-role").value === "player" && $("room-join-seat").value !== "") {
      frame.seat = Number($("room-join-seat").value);
    }
    send(frame);
  });
  $("room-copy").addEventListener("click", () => {
    $("room-link").select();
    if (navigator.clipboard) navigator.clipboard.writeText($("room-link").value);
  });
  $("room-start").addEventListener("click", () => send({ type: "start" }));
  $("room-next").addEventListener("click", () => send({ type: "next" }));
  $("room-leave").addEventListener("click", () => send({ type: "leave" }));
  setInterval(roomClock, 1000);
  watchTimer();
  connect();
}

document.addEventListener("DOMContentLoaded", wire);
