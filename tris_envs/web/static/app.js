// tris-envs serve: the page. The server knows the rules: it sends the board (SVG whose
// click targets carry data-first / data-action attributes), the legal moves in the game's
// notation, the move list and the evaluations; this script shows them and sends what was
// clicked. No build step, no library, nothing from the network.
"use strict";

const $ = (id) => document.getElementById(id);
let catalogue = null;   // /api/catalogue: the games, their options and pictures
let rules = null;       // /static/rules.html, parsed
let agents = [[], []];  // per seat: /api/agents entries shown in its select
let agentsFor = "";     // the game and options the agent lists were made for
let view = null;        // the session's latest view
let selected = null;    // the first part of a two-part move (a piece, a die, a cell)
let hints = {};         // action -> {text, mark}: the evaluation's words, "won"/"lost"/""
let loop = 0;           // bumped to stop a pending agent move (new game, undo, pause)
let paused = false;
let browsing = null;    // the index of the position looked at, or null: the game itself
let asked = null;       // the index of the position asked for last (arrow keys run ahead)
let opened = null;      // the text of the record file opened last (a journal's games)

async function call(method, url, body) {
  const options = { method, headers: {} };
  if (method === "POST") {          // the server takes JSON only, from its own page
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

const gameOf = (name) => catalogue.games.find((g) => g.name === name);
const human = () => catalogue.human;

// ----- landing page and rules ------------------------------------------------------
function drawLanding() {
  const cards = $("cards");
  cards.textContent = "";
  for (const game of catalogue.games) {
    const card = document.createElement("article");
    card.className = "card";
    card.dataset.game = game.name;
    const picture = document.createElement("div");
    picture.className = "picture";
    picture.innerHTML = game.picture;
    const title = document.createElement("h2");
    title.textContent = game.title;
    const summary = document.createElement("p");
    summary.className = "summary";
    summary.textContent = rulesOf(game.name).querySelector(".summary").textContent;
    const buttons = document.createElement("div");
    buttons.className = "buttons";
    for (const [label, kind] of [["Play", "play"], ["Watch two agents", "watch"],
                                 ["Rules", "rules"]]) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      button.className = kind;
      button.onclick = () => (kind === "rules" ? openRules(game.name)
        : choose(game.name, kind === "watch"));
      buttons.appendChild(button);
    }
    card.append(picture, title, summary, buttons);
    cards.appendChild(card);
  }
}

function rulesOf(name) {
  return rules.getElementById(name);
}

// The game's rules, then each of its options explained (the catalogue's help texts).
function openRules(name) {
  const text = $("rules-text");
  text.textContent = "";
  text.appendChild(document.importNode(rulesOf(name), true));
  const heading = document.createElement("h3");
  heading.textContent = "Options";
  const list = document.createElement("dl");
  list.id = "rules-options";
  for (const option of gameOf(name).options) {
    const term = document.createElement("dt");
    const code = document.createElement("code");
    code.textContent = option.name;
    term.appendChild(code);
    const meaning = document.createElement("dd");
    meaning.textContent = option.help;
    list.append(term, meaning);
  }
  text.append(heading, list);
  $("rules-dialog").showModal();
}

const narrow = () => window.innerWidth < 600;

async function choose(name, watch) {
  history.pushState(null, "", `/?game=${name}`);     // Back returns to the games
  $("landing").hidden = true;
  $("setup-box").hidden = false;
  $("setup-box").open = !narrow();
  $("game").value = name;
  setFrom("");
  await fillOptions();
  setSeat(0, watch ? "az" : human());
  setSeat(1, "mcts");
  newGame();
}

// ----- setup: options and seats from the server's declarations --------------------
async function fillOptions() {
  const game = gameOf($("game").value);
  const box = $("options");
  box.textContent = "";
  for (const option of game.options) {
    const label = document.createElement("label");
    label.textContent = option.name.replaceAll("_", " ") + " ";
    label.title = option.help;
    let input;
    if (option.type === "choice") {
      input = document.createElement("select");
      for (const value of option.values) {
        const item = document.createElement("option");
        item.value = item.textContent = value;
        input.appendChild(item);
      }
    } else {
      input = document.createElement("input");
      if (option.type === "flag") input.type = "checkbox";
      if (option.type === "integer") {
        input.type = "number";
        input.min = option.minimum;
        if (option.maximum !== null) input.max = option.maximum;
        if (option.none) input.placeholder = option.none;
      }
      if (option.type === "text") input.placeholder = option.none;
    }
    input.title = option.type === "text" ? `${option.help} E.g. ${option.example}`
      : option.help;
    input.dataset.option = option.name;
    setOption(input, option, option.default);
    input.onchange = () => fillAgents();
    label.appendChild(input);
    box.appendChild(label);
  }
  await fillAgents();
}

function setOption(input, option, text) {
  if (option.type === "flag") input.checked = text === "True";
  else if (option.type === "choice") {
    if (![...input.options].some((item) => item.value === text)) {
      const item = document.createElement("option");   // a value the list lacks
      item.value = item.textContent = text;
      input.appendChild(item);
    }
    input.value = text;
  } else input.value = text === "None" ? "" : text;
}

function optionText(input, option) {
  if (option.type === "flag") return input.checked ? "True" : "False";
  if (option.type === "choice") return input.value;
  return input.value.trim() === "" ? "None" : input.value.trim();
}

function chosenOptions() {
  const game = gameOf($("game").value);
  const out = [];
  for (const option of game.options) {
    const input = document.querySelector(`#options [data-option="${option.name}"]`);
    const text = optionText(input, option);
    if (text !== option.default) out.push(`${option.name}=${text}`);
  }
  return out;
}

// A JSON option value as Python's literal (the text tris-envs play --option takes).
function pyText(value) {
  if (value === null) return "None";
  if (value === true || value === false) return value ? "True" : "False";
  if (Array.isArray(value)) return `(${value.map((v) => (typeof v === "string" ? `'${v}'`
    : pyText(v))).join(", ")},)`;
  return String(value);
}

async function fillAgents() {
  const game = $("game").value;
  const options = chosenOptions();
  const key = JSON.stringify([game, options]);
  if (key === agentsFor) return;
  const query = new URLSearchParams({ game });
  for (const option of options) query.append("option", option);
  const data = await act("GET", `/api/agents?${query}`);
  if (!data) return;
  agentsFor = key;
  for (const seat of [0, 1]) {
    const spec = $(`seat${seat}`).value;
    agents[seat] = data.agents.slice();
    const select = $(`seat${seat}-agent`);
    select.textContent = "";
    data.agents.forEach((entry, index) => {
      const item = document.createElement("option");
      item.value = index;
      item.textContent = entry.label;
      item.title = entry.help;
      select.appendChild(item);
    });
    setSeat(seat, spec);
  }
}

// Show ``spec`` in the seat's select (and its budget box, or its text box: an llm's model);
// a spec no entry makes (an old address, a typo) is kept as its own entry: the server then
// says what is wrong with it.
function setSeat(seat, spec) {
  const select = $(`seat${seat}-agent`);
  const budget = $(`seat${seat}-budget`);
  let index = agents[seat].findIndex((entry) => entry.spec === spec);
  let value = null;
  if (index < 0) {
    index = agents[seat].findIndex((entry) => {
      if (!entry.budget && !entry.text) return false;
      const [head, tail] = entry.spec.split("{}");
      if (!spec.startsWith(head) || !spec.endsWith(tail)) return false;
      value = spec.slice(head.length, spec.length - tail.length);
      return entry.text ? true : /^\d+(\.\d+)?$/.test(value);
    });
  }
  if (index < 0) {
    agents[seat].push({ spec, label: spec, help: "" });
    index = agents[seat].length - 1;
    const item = document.createElement("option");
    item.value = index;
    item.textContent = spec;
    select.appendChild(item);
  }
  select.value = index;
  const entry = agents[seat][index];
  budget.hidden = !entry.budget && !entry.text;
  budget.type = entry.text ? "text" : "number";
  if (entry.text) {
    budget.value = value !== null ? value : "";
    budget.placeholder = budget.title = entry.text.name;
  }
  if (entry.budget) {
    budget.min = entry.budget.minimum;
    budget.max = entry.budget.maximum;
    budget.step = entry.budget.step;
    budget.value = value !== null ? value : entry.budget.default;
    budget.title = entry.budget.name;
  }
  $(`seat${seat}`).value = spec;
}

function readSeat(seat) {
  const entry = agents[seat][Number($(`seat${seat}-agent`).value)];
  if (!entry) return $(`seat${seat}`).value;
  const spec = entry.budget || entry.text
    ? entry.spec.replace("{}", $(`seat${seat}-budget`).value.trim()) : entry.spec;
  $(`seat${seat}`).value = spec;
  return spec;
}

// The position a new game starts from (an address's): shown, and cleared by the person or
// by another game; "" (the game's start) hides it.
function setFrom(position) {
  $("from").value = position;
  $("from-row").hidden = position === "";
}

async function newGame(event) {
  if (event) event.preventDefault();
  await fillAgents();
  const body = { game: $("game").value, options: chosenOptions(),
                 seats: [readSeat(0), readSeat(1)] };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  if ($("from").value.trim() !== "") body.position = $("from").value.trim();
  $("new").disabled = true;
  const data = await act("POST", "/api/new", body);
  $("new").disabled = false;
  if (!data) return;
  if (narrow()) $("setup-box").open = false;      // a phone shows the board first
  show(data);
}

async function openRecord(index) {
  const file = $("open").files[0];
  if (file) opened = await file.text();
  $("open").value = "";
  if (opened === null) return;
  const data = await act("POST", "/api/open", { text: opened, index });
  if (!data) return;
  const journal = $("journal-game");
  journal.textContent = "";
  const count = data.opened ? data.opened[1] : 1;
  for (let k = 0; k < count; k++) {
    const item = document.createElement("option");
    item.value = k;
    item.textContent = `${k + 1} of ${count}`;
    journal.appendChild(item);
  }
  journal.value = data.opened ? data.opened[0] : 0;
  $("journal").hidden = count < 2;
  $("game").value = data.game;
  setFrom("");
  await fillOptions();
  for (const option of gameOf(data.game).options) {
    const input = document.querySelector(`#options [data-option="${option.name}"]`);
    setOption(input, option, pyText(data.options[option.name]));
  }
  show(data);
}

// ----- the game --------------------------------------------------------------------
function show(data) {
  view = data;
  hints = {};
  loop += 1;
  $("analysis").hidden = true;
  render();
  address();
  const over = data.to_move < 0;
  if (!over && $("auto").checked) analyse();
  if (!over && !data.human_to_move && !paused) agentMove(loop);
}

// The view on the page: board, status, controls, the move list and the move buttons.
function render() {
  const data = view;
  selected = null;
  browsing = asked = null;
  $("browse").hidden = true;
  $("thinking").hidden = true;
  $("landing").hidden = true;
  $("prefilled").hidden = true;
  $("setup-box").hidden = false;
  $("play").hidden = false;
  $("board").innerHTML = data.svg;
  $("status").textContent = data.status;
  $("result").textContent = data.result;
  $("evaluation").textContent = data.evaluation ? "the agent's evaluation: " + data.evaluation
    : "";
  $("position").textContent = data.position;
  $("players").textContent = `${data.title}: seat 0 ${data.players[0]} · seat 1 ` +
    `${data.players[1]}`;
  $("side").textContent = data.side;
  $("setup-summary").textContent = `Setup: ${data.title}, its options and players`;
  $("download").href = `/api/session/${data.id}/record`;
  $("download").setAttribute("download", `${data.game}.jsonl`);
  $("undo").disabled = !data.can_undo;
  const over = data.to_move < 0;
  $("hint").disabled = over;
  $("resign").disabled = over;
  const watching = data.seats.every((seat) => seat !== human());
  $("watch").hidden = !watching;
  $("step").disabled = !(watching && paused && !over);
  drawMoves();
  drawChoices();
}

// The game's address: game, options, seats, seed and the position, so that it can be
// shared and reopened (the page then fills in the setup with them; New game starts it).
function address() {
  const params = new URLSearchParams({ game: view.game });
  const game = gameOf(view.game);
  for (const option of game.options) {
    const text = pyText(view.options[option.name]);
    if (text !== option.default) params.append("option", `${option.name}=${text}`);
  }
  params.set("seat0", view.seats[0]);
  params.set("seat1", view.seats[1]);
  if ($("seed").value !== "") params.set("seed", $("seed").value);
  params.set("position", view.position);
  history.replaceState(null, "", `/?${params}`);
}

function drawMoves() {
  const list = $("moves");
  list.textContent = "";
  view.moves.forEach((move, index) => {
    const item = document.createElement("li");
    item.textContent = move.actor < 0 ? move.name : `${view.players[move.actor]}: ${move.name}`;
    if (move.actor < 0) item.className = "chance";
    item.dataset.index = index + 1;
    item.tabIndex = -1;
    item.onclick = () => browse(index + 1);
    list.appendChild(item);
  });
  list.scrollTop = list.scrollHeight;
}

// A move's name in two parts: what is moved (a piece, a die, a cell) and how (where to,
// which direction, which orientation or colour): "b1-b2", "2,0 S", "0,1 XO/", "3,4 Y".
function parts(name) {
  const match = /^(\S+?)[- ](.+)$/.exec(name);
  return match ? [match[1], match[2]] : [name, null];
}

// The legal moves as buttons (the keyboard's way to move), in one or two steps.
function drawChoices() {
  const box = $("choices");
  box.textContent = "";
  $("choices-title").hidden = !view.human_to_move || browsing !== null;
  if (!view.human_to_move || browsing !== null) return;
  const step = document.createElement("div");
  step.className = "step";
  step.id = "first-step";
  box.appendChild(step);
  if (view.roll) {
    const button = choiceButton("roll the dice", null);
    button.onclick = roll;
    step.appendChild(button);
    return;
  }
  const firsts = new Map();
  for (const move of view.legal) {
    const [first, second] = parts(move.name);
    if (!firsts.has(first)) firsts.set(first, []);
    firsts.get(first).push({ ...move, second });
  }
  for (const [first, moves] of firsts) {
    const single = moves.length === 1 && moves[0].second === null;
    const button = choiceButton(first, single ? moves[0].action : null);
    if (first === selected) button.classList.add("selected");
    button.dataset.part = first;
    button.onclick = () => {
      if (single) play(moves[0].action);
      else select(first);
    };
    step.appendChild(button);
  }
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
    const hint = hints[action];
    if (hint !== undefined) {
      button.title = hint.text;
      button.classList.add("hinted");
      if (hint.mark) button.classList.add(hint.mark);
    }
  }
  return button;
}

// The first part of a move chosen (on the board or in the list): its targets light up.
function select(key) {
  selected = key;
  const board = $("board");
  for (const target of board.querySelectorAll(".target.first")) {
    target.classList.toggle("selected", target.dataset.first === key);
  }
  let focus = null;
  for (const target of board.querySelectorAll(".target.second")) {
    const on = target.dataset.first === key;
    target.classList.toggle("on", on);
    target.setAttribute("tabindex", on ? "0" : "-1");
    if (on && focus === null) focus = target;
  }
  drawChoices();
  return focus;
}

function boardTarget(element) {
  const target = element.closest("#board .target");
  if (!target || browsing !== null) return false;
  if (target.dataset.roll) roll();
  else if (target.classList.contains("second")) play(Number(target.dataset.action));
  else if (target.dataset.action !== undefined) play(Number(target.dataset.action));
  else return select(target.dataset.first) || true;
  return true;
}

async function play(action) {
  if (!view.human_to_move) return;
  const data = await act("POST", `/api/session/${view.id}/move`, { action });
  if (data) show(data);
}

async function roll() {
  const data = await act("POST", `/api/session/${view.id}/roll`);
  if (data) show(data);
}

async function agentMove(token, step) {
  $("thinking").hidden = false;
  const watching = view.seats.every((seat) => seat !== human());
  if (watching && !step) {
    await new Promise((done) => setTimeout(done, Number($("speed").value)));
  }
  if (token !== loop || (paused && !step)) { $("thinking").hidden = true; return; }
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

// ----- evaluation ------------------------------------------------------------------
async function analyse() {
  if (!view || (browsing === null && view.to_move < 0)) return;
  const id = view.id;
  const position = view.position;
  const looking = browsing;
  $("hint").disabled = true;
  $("analysis").hidden = false;
  $("analysis-title").textContent = "thinking …";
  $("hint-list").textContent = "";
  const data = await act("POST", `/api/session/${id}/analyse`,
                         looking === null ? {} : { index: looking });
  if (view.id !== id || view.position !== position || browsing !== looking) return;
  $("hint").disabled = false;
  if (!data) { $("analysis").hidden = true; return; }
  const name = view.players[data.player];
  const white = data.player === 0 ? (data.value + 1) / 2 : (1 - data.value) / 2;
  $("bar-fill").style.width = `${(white * 100).toFixed(1)}%`;
  $("bar").setAttribute("aria-label", `seat 0 ${(white * 100).toFixed(0)}%`);
  $("analysis-title").textContent = `${data.label}. For seat ${data.player} (${name}): ` +
    `${data.text}`;
  const list = $("hint-list");
  for (const move of data.moves) {
    const item = document.createElement("li");
    item.textContent = `${move.name}: ${move.text}`;
    // an exact result (a win in one, a handover, a proof, the solver's) is marked
    const mark = move.plies === null ? "" : move.value > 0 ? "won" : move.value < 0 ? "lost" : "";
    if (mark) item.className = mark;
    if (move.action !== null) {
      hints[move.action] = { text: `${data.source}: ${move.text}`, mark };
      item.dataset.action = move.action;
    }
    list.appendChild(item);
  }
  for (const target of $("board").querySelectorAll(".target[data-action]")) {
    const hint = hints[target.dataset.action];
    if (hint === undefined) continue;
    target.querySelector("title")?.remove();
    const title = document.createElementNS(target.namespaceURI, "title");
    title.textContent = `${target.dataset.name}: ${hint.text}`;
    target.appendChild(title);
    target.classList.toggle("won", hint.mark === "won");
    target.classList.toggle("lost", hint.mark === "lost");
  }
  drawChoices();
}

// ----- the move list: look at any position, play on from it -------------------------
async function browse(index) {
  if (!view || index < 0 || index > view.moves.length) return;
  asked = index;
  if (index === view.moves.length) { live(); return; }
  const data = await act("GET", `/api/session/${view.id}/at/${index}`);
  if (!data || asked !== index) return;          // a later request took over
  browsing = index;
  selected = null;
  $("board").innerHTML = data.svg;
  $("status").textContent = data.status;
  $("position").textContent = data.position;
  $("browse").hidden = false;
  $("browse-text").textContent = index === 0 ? "The start position." :
    `The position after move ${index} of ${view.moves.length}.`;
  $("resume").hidden = !view.points.includes(index);
  for (const item of $("moves").children) {
    item.classList.toggle("current", Number(item.dataset.index) === index);
  }
  $("moves").querySelector(".current")?.scrollIntoView({ block: "nearest" });
  drawChoices();
  $("analysis").hidden = true;
  $("hint").disabled = false;
  if ($("auto").checked) analyse();
}

function live() {
  asked = null;
  if (browsing === null) return;
  render();
  $("analysis").hidden = true;
  if ($("auto").checked && view.to_move >= 0) analyse();
}

// The position the arrow keys and buttons step from: the one asked for last, else the game's.
const looked = () => asked ?? browsing ?? view.moves.length;

// ----- start -----------------------------------------------------------------------
async function start() {
  [catalogue, rules] = await Promise.all([
    call("GET", "/api/catalogue"),
    fetch("/static/rules.html").then((r) => r.text())
      .then((text) => new DOMParser().parseFromString(text, "text/html")),
  ]);
  for (const game of catalogue.games) {
    const option = document.createElement("option");
    option.value = game.name;
    option.textContent = game.title;
    $("game").appendChild(option);
  }
  drawLanding();
  const params = new URLSearchParams(location.search);
  $("game").onchange = () => { setFrom(""); fillOptions(); };
  $("setup").onsubmit = newGame;
  $("open").onchange = () => openRecord(0);
  $("journal-game").onchange = () => openRecord(Number($("journal-game").value));
  $("rules").onclick = () => openRules($("game").value);
  $("rules-close").onclick = () => $("rules-dialog").close();
  for (const seat of [0, 1]) {
    $(`seat${seat}-agent`).onchange = () => {
      const entry = agents[seat][Number($(`seat${seat}-agent`).value)];
      setSeat(seat, entry.budget ? entry.spec.replace("{}", entry.budget.default)
        : entry.text ? entry.spec.replace("{}", "") : entry.spec);
    };
  }
  $("hint").onclick = analyse;
  $("undo").onclick = () => control("undo");
  $("swap").onclick = () => control("swap");
  $("resign").onclick = () => {
    const person = view.seats.indexOf(human());
    control("resign", { seat: view.human_to_move || person < 0 ? view.to_move : person });
  };
  $("share").onclick = async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      $("share").textContent = "Link copied";
    } catch (error) {
      window.prompt("The link to this position:", location.href);
    }
  };
  $("pause").onclick = () => {
    paused = !paused;
    $("pause").textContent = paused ? "Play" : "Pause";
    if (!paused) show(view);
    else $("step").disabled = view.to_move < 0;
  };
  $("step").onclick = () => {
    if (view.to_move >= 0 && !view.human_to_move) agentMove(loop, true);
  };
  $("speed").oninput = () => { $("speed-value").textContent = `${$("speed").value} ms`; };
  $("prev").onclick = () => browse(looked() - 1);
  $("next").onclick = () => browse(looked() + 1);
  $("live").onclick = live;
  $("resume").onclick = () => control("back", { index: browsing });
  const board = $("board");
  board.onclick = (event) => {
    if (!boardTarget(event.target) && selected !== null) select(null);
  };
  board.onkeydown = (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    const next = boardTarget(event.target);
    if (next instanceof Element) next.focus();
  };
  document.onkeydown = keys;
  window.onpopstate = () => location.reload();
  if (!params.has("game")) {
    $("landing").hidden = false;
    return;
  }
  // An address only fills in the setup: the game starts, and agents play, when the person
  // presses New game (a page that opens this address starts nothing).
  $("setup-box").hidden = false;
  $("setup-box").open = true;
  $("game").value = params.get("game");
  await fillOptions();
  for (const pair of params.getAll("option")) {        // ?option=setup=placement
    const [name, ...value] = pair.split("=");
    const option = gameOf($("game").value)?.options.find((o) => o.name === name);
    const input = document.querySelector(`#options [data-option="${name}"]`);
    if (option && input) setOption(input, option, value.join("="));
  }
  await fillAgents();
  for (const seat of [0, 1]) {
    if (params.has(`seat${seat}`)) setSeat(seat, params.get(`seat${seat}`));
  }
  if (params.has("seed")) $("seed").value = params.get("seed");
  setFrom(params.get("position") ?? "");
  $("prefilled").hidden = false;
  $("new").focus();
}

function keys(event) {
  if (event.target.closest("input, select, textarea, dialog") || !view) return;
  if (event.key === "ArrowLeft") browse(looked() - 1);
  else if (event.key === "ArrowRight" && browsing !== null) browse(looked() + 1);
  else if (event.key === "Escape") {
    if (selected !== null) select(null);
    else live();
  } else if (event.key === "u" && !$("undo").disabled) control("undo");
  else if (event.key === "e" && !$("hint").disabled) analyse();
  else return;
  event.preventDefault();
}

start().catch(showError);
