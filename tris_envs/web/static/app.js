// tris-envs serve: the page. The server knows the rules: it sends the picture, the legal
// moves in the game's notation and the move list; this script only shows them and sends
// what was clicked. No build step, no library, nothing from the network.
"use strict";

const $ = (id) => document.getElementById(id);
let catalogue = null;   // /api/games
let view = null;        // the session's latest view
let selected = null;    // the first part of a two-part move (a piece, a die, a cell)
let hints = {};         // action -> hint text
let loop = 0;           // bumped to stop a pending agent move (new game, undo, pause)
let paused = false;

async function call(method, url, body) {
  const options = { method, headers: {} };
  if (method === "POST") {        // the server refuses a POST that is not JSON
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body === undefined ? {} : body);
  }
  const response = await fetch(url, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function showError(error) {
  $("error").textContent = error ? String(error.message || error) : "";
  $("error").hidden = !error;
}

async function act(method, url, body) {
  try {
    showError(null);
    return await call(method, url, body);
  } catch (error) {
    showError(error);
    return null;
  }
}

// ----- setup ---------------------------------------------------------------------
function fillOptions() {
  const game = catalogue.games.find((g) => g.name === $("game").value);
  const box = $("options");
  box.textContent = "";
  for (const [name, value] of Object.entries(game.options)) {
    const label = document.createElement("label");
    label.textContent = name + " ";
    const input = document.createElement("input");
    input.dataset.option = name;
    input.dataset.default = value;
    input.value = value;
    label.appendChild(input);
    box.appendChild(label);
  }
}

function chosenOptions() {
  return [...document.querySelectorAll("#options input")]
    .filter((input) => input.value !== input.dataset.default)
    .map((input) => `${input.dataset.option}=${input.value}`);
}

async function newGame(event) {
  if (event) event.preventDefault();
  const body = { game: $("game").value, options: chosenOptions(),
                 seats: [$("seat0").value, $("seat1").value] };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  $("new").disabled = true;
  const data = await act("POST", "/api/new", body);
  $("new").disabled = false;
  if (data) show(data);
}

async function openRecord() {
  const file = $("open").files[0];
  if (!file) return;
  const data = await act("POST", "/api/open", { text: await file.text() });
  $("open").value = "";
  if (data) show(data);
}

// ----- the game --------------------------------------------------------------------
function show(data) {
  view = data;
  selected = null;
  hints = {};
  loop += 1;
  $("thinking").hidden = true;
  $("play").hidden = false;
  $("board").innerHTML = data.svg;
  $("status").textContent = data.status;
  $("result").textContent = data.result;
  $("evaluation").textContent = data.evaluation ? "evaluation: " + data.evaluation : "";
  $("position").textContent = data.position;
  $("players").textContent = `${data.title}: seat 0 ${data.players[0]} · seat 1 ` +
    `${data.players[1]}`;
  $("download").href = `/api/session/${data.id}/record`;
  $("download").setAttribute("download", `${data.game}.jsonl`);
  $("undo").disabled = !data.can_undo;
  const over = data.to_move < 0;
  $("hint").disabled = over || !data.human_to_move;
  $("resign").disabled = over;
  $("hints").textContent = "";
  const agents = data.seats.filter((seat) => seat !== catalogue.human).length;
  $("watch").hidden = agents < 2;
  drawMoves();
  drawChoices();
  if (!over && !data.human_to_move && !paused) agentMove(loop);
}

function drawMoves() {
  const list = $("moves");
  list.textContent = "";
  for (const move of view.moves) {
    const item = document.createElement("li");
    item.textContent = move.actor < 0 ? move.name : `${view.players[move.actor]}: ${move.name}`;
    if (move.actor < 0) item.className = "chance";
    list.appendChild(item);
  }
  list.scrollTop = list.scrollHeight;
}

// A move's name in two parts: what is moved (a piece, a die, a cell) and how (where to,
// which direction, which orientation or colour): "b1-b2", "2,0 S", "0,1 XO/", "3,4 Y".
function parts(name) {
  const match = /^(\S+?)[- ](.+)$/.exec(name);
  return match ? [match[1], match[2]] : [name, null];
}

function drawChoices() {
  const box = $("choices");
  box.textContent = "";
  if (!view.human_to_move) return;
  const firsts = new Map();
  for (const move of view.legal) {
    const [first, second] = parts(move.name);
    if (!firsts.has(first)) firsts.set(first, []);
    firsts.get(first).push({ ...move, second });
  }
  const step = document.createElement("div");
  step.className = "step";
  step.id = "first-step";
  for (const [first, moves] of firsts) {
    const single = moves.length === 1 && moves[0].second === null;
    const button = choiceButton(first, single ? moves[0].action : null);
    if (first === selected) button.classList.add("selected");
    button.dataset.part = first;
    button.onclick = () => {
      if (single) play(moves[0].action);
      else { selected = first; drawChoices(); }
    };
    step.appendChild(button);
  }
  box.appendChild(step);
  if (selected !== null && firsts.has(selected)) {
    const second = document.createElement("div");
    second.className = "step";
    second.id = "second-step";
    for (const move of firsts.get(selected)) {
      const button = choiceButton(move.second, move.action);
      button.onclick = () => play(move.action);
      second.appendChild(button);
    }
    box.appendChild(second);
  }
}

function choiceButton(label, action) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  if (action !== null) {
    button.dataset.action = action;
    if (hints[action] !== undefined) {
      button.title = hints[action];
      button.classList.add("hinted");
    }
  }
  return button;
}

async function play(action) {
  const data = await act("POST", `/api/session/${view.id}/move`, { action });
  if (data) show(data);
}

async function agentMove(token) {
  $("thinking").hidden = false;
  const agents = view.seats.filter((seat) => seat !== catalogue.human).length;
  if (agents === 2) await new Promise((done) => setTimeout(done, Number($("speed").value)));
  if (token !== loop || paused) { $("thinking").hidden = true; return; }
  let data = null;
  try {
    data = await call("POST", `/api/session/${view.id}/agent`);
  } catch (error) {
    if (token === loop) showError(error);   // else: undone or restarted meanwhile
  }
  if (token !== loop) return;
  $("thinking").hidden = true;
  if (data) show(data);
}

async function control(verb, body) {
  loop += 1;
  const data = await act("POST", `/api/session/${view.id}/${verb}`, body);
  if (data) show(data);
}

async function hint() {
  $("hint").disabled = true;
  $("hints").textContent = "thinking …";
  const data = await act("POST", `/api/session/${view.id}/hint`);
  $("hint").disabled = false;
  $("hints").textContent = "";
  if (!data) return;
  const lines = data.moves.map((move) => {
    const text = data.source === "solver" ? move.text : `${(move.share * 100).toFixed(1)}%`;
    hints[move.action] = `${data.source}: ${text}`;
    return { name: move.name, text, order: data.source === "solver" ? move.value : move.share };
  });
  lines.sort((a, b) => b.order - a.order);
  const title = document.createElement("p");
  title.textContent = data.source === "solver" ? "Hint (solver, perfect play):"
    : `Hint (share of ${data.source} visits):`;
  const list = document.createElement("ul");
  list.id = "hint-list";
  for (const line of lines) {
    const item = document.createElement("li");
    item.textContent = `${line.name}: ${line.text}`;
    list.appendChild(item);
  }
  $("hints").append(title, list);
  drawChoices();
}

// ----- start -----------------------------------------------------------------------
async function start() {
  catalogue = await call("GET", "/api/games");
  for (const game of catalogue.games) {
    const option = document.createElement("option");
    option.value = game.name;
    option.textContent = game.title;
    $("game").appendChild(option);
  }
  const params = new URLSearchParams(location.search);
  if (params.has("game")) $("game").value = params.get("game");
  fillOptions();
  for (const pair of params.getAll("option")) {        // ?option=setup=placement
    const [name, ...value] = pair.split("=");
    const input = document.querySelector(`#options input[data-option="${name}"]`);
    if (input) input.value = value.join("=");
  }
  for (const name of ["seat0", "seat1", "seed"]) {
    if (params.has(name)) $(name).value = params.get(name);
  }
  $("game").onchange = fillOptions;
  $("setup").onsubmit = newGame;
  $("open").onchange = openRecord;
  $("hint").onclick = hint;
  $("undo").onclick = () => control("undo");
  $("swap").onclick = () => control("swap");
  $("resign").onclick = () => {
    const human = view.seats.indexOf(catalogue.human);
    control("resign", { seat: view.human_to_move || human < 0 ? view.to_move : human });
  };
  $("pause").onclick = () => {
    paused = !paused;
    $("pause").textContent = paused ? "Play" : "Pause";
    if (!paused) show(view);
  };
  $("speed").oninput = () => { $("speed-value").textContent = `${$("speed").value} ms`; };
  if (params.has("game")) newGame();
}

start().catch(showError);
