// The playground: one game at a time, played through the public REST API only.
// State: the start position and the moves played from it; undo replays one move fewer (ApplyMoves).
import { analyze, call, listGames, renderBoard, setApiKey } from "./api.js";
import { clearReview, startReview } from "./review.js";

const $ = (id) => document.getElementById(id);
const games = new Map();
const state = {
  game: null, // the Game description
  start: "", // notation of the start position
  moves: [], // notations of the moves played since
  position: "", // notation of the current position
  toMove: 0, // 0 once the game is over
  lastMove: "",
  selected: [], // Strands: the cells picked for the next move
  generation: 0, // bumped by every new game, load and undo: answers for an older one are dropped
  thinking: null, // the AbortController of the analysis in flight
};

function seatKind(seat) {
  return $(`seat${seat}`).value;
}

function showError(error) {
  const box = $("error");
  if (!error) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = error.field ? `${error.message}` : String(error.message || error);
}

function fill(select, values, chosen) {
  select.replaceChildren(
    ...values.map(([value, text]) => {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = text;
      option.selected = value === chosen;
      return option;
    }),
  );
}

// --- the set-up form ---------------------------------------------------------------------------------

function showOptions(game) {
  const box = $("options");
  box.replaceChildren(Object.assign(document.createElement("legend"), { textContent: "Options" }));
  for (const spec of game.options || []) {
    const label = document.createElement("label");
    label.title = spec.description || "";
    let input;
    if (spec.type === "enum") {
      input = document.createElement("select");
      fill(input, spec.choices.map((c) => [c, c]), spec.defaultValue);
    } else {
      input = document.createElement("input");
      if (spec.type === "bool") {
        input.type = "checkbox";
        input.checked = Boolean(spec.defaultValue);
      } else if (spec.type === "int") {
        input.type = "number";
        if (spec.minimum !== undefined) input.min = spec.minimum;
        if (spec.maximum !== undefined) input.max = spec.maximum;
        input.value = spec.defaultValue;
      } else {
        input.value = Array.isArray(spec.defaultValue) ? spec.defaultValue.join(",") : spec.defaultValue ?? "";
      }
    }
    input.name = spec.name;
    input.dataset.type = spec.type;
    input.id = `option-${spec.name}`;
    label.append(spec.name.replaceAll("_", " "), input);
    box.append(label);
  }
  showLevels(game);
}

// The bot picker: the rungs of the game's rated ladder by rating, weakest first ("about 1350 (ladder-5)"), then the
// other levels by name. A rung's option carries its rating: the service is asked by `rating` and names the rung.
function showLevels(game) {
  const rated = (level) => level.rating !== undefined;
  const rungs = game.levels.filter((level) => level.rung).sort((a, b) =>
    rated(a) && rated(b) ? a.rating - b.rating || a.rung - b.rung : a.rung - b.rung);
  const others = game.levels.filter((level) => !level.rung);
  const option = (level, text) => {
    const item = document.createElement("option");
    item.value = level.name;
    item.textContent = text;
    item.title = level.description;
    item.selected = level.name === game.defaultLevel;
    // Asked by its rating where that whole number chooses this very rung (two rungs a fraction apart: by name).
    if (level.rung && rated(level) && nearestRung(rungs, Math.round(level.rating)) === level) {
      item.dataset.rating = String(Math.round(level.rating));
    }
    if (level.rung) item.dataset.rung = String(level.rung);
    return item;
  };
  const group = (label, items) => {
    const element = document.createElement("optgroup");
    element.label = label;
    element.append(...items);
    return element;
  };
  const groups = [];
  if (rungs.length) {
    groups.push(group("Rated ladder", rungs.map((level) =>
      option(level, rated(level) ? `about ${Math.round(level.rating)} (${level.name})` : `${level.name} (not rated yet)`))));
  }
  groups.push(group(rungs.length ? "Other levels" : "Levels", others.map((level) =>
    option(level, `${level.name}${rated(level) ? ` (about ${Math.round(level.rating)})` : ""}: ${level.description}`))));
  $("level").replaceChildren(...groups.filter((element) => element.children.length));
}

// The rung the service chooses for `rating`: the nearest measured one, the lower of two as near.
function nearestRung(rungs, rating) {
  let best = null;
  for (const level of rungs) {
    if (level.rating === undefined) continue;
    const distance = Math.abs(level.rating - rating);
    const bestDistance = best ? Math.abs(best.rating - rating) : Infinity;
    if (distance < bestDistance || (distance === bestDistance && level.rating < best.rating)) best = level;
  }
  return best;
}

// The request's choice of bot: a rated rung by its rating (the service answers with the rung it chose), any other
// level by its name.
function chosenBot() {
  const chosen = $("level").selectedOptions[0];
  if (chosen && chosen.dataset.rating !== undefined) return { rating: Number(chosen.dataset.rating) };
  return { level: $("level").value };
}

function chosenOptions() {
  const options = {};
  for (const input of $("options").querySelectorAll("[name]")) {
    const type = input.dataset.type;
    if (type === "bool") options[input.name] = input.checked;
    else if (type === "int") options[input.name] = Number(input.value);
    else if (type === "cells") {
      const cells = input.value.split(",").map((c) => c.trim()).filter(Boolean);
      if (cells.length) options[input.name] = cells;
    } else if (input.value !== "") options[input.name] = input.value;
  }
  return options;
}

// --- the board and the status ------------------------------------------------------------------------

function humanToMove() {
  return state.toMove !== 0 && seatKind(state.toMove) === "human";
}

async function drawBoard(generation) {
  const svgText = await renderBoard(state.game.id, state.position, {
    size: 560,
    showLegalMoves: humanToMove(),
    lastMove: state.lastMove,
    flip: $("flip").checked,
  });
  if (generation !== state.generation) return;
  const svg = new DOMParser().parseFromString(svgText, "image/svg+xml").documentElement;
  $("board").replaceChildren(document.importNode(svg, true));
  $("board").dataset.game = state.game.id;
  state.selected = [];
  showSelection();
}

async function showScore(generation) {
  const score = await call(state.game.id, "score", { position: { notation: state.position } });
  if (generation !== state.generation) return score;
  const names = state.game.seatNames || ["Seat 1", "Seat 2"];
  const scores = (score.scores || []).join(" – ");
  state.toMove = score.gameOver ? 0 : score.toMove || 0;
  if (score.gameOver) {
    const winner = score.winner ? `Seat ${score.winner} wins` : "A draw";
    $("status").textContent = `Game over. Score ${scores}.`;
    $("result").hidden = false;
    $("result").textContent = `${winner} (${score.reason}): ${score.detail}`;
    $("result").dataset.reason = score.reason;
    $("result").dataset.winner = String(score.winner || 0);
  } else {
    const who = seatKind(state.toMove) === "human" ? "your move" : "the service is thinking";
    $("status").textContent = `Score ${scores}. Seat ${state.toMove} to move (${who}).`;
    $("result").hidden = true;
    $("result").textContent = "";
  }
  $("status").dataset.toMove = String(state.toMove);
  void names;
  return score;
}

function showMoves() {
  $("moves").replaceChildren(
    ...state.moves.map((move) => Object.assign(document.createElement("li"), { textContent: move })),
  );
  $("notation").value = state.position;
  $("notation").dataset.start = state.start; // where the listed moves start from
}

function showEvents(events) {
  $("events").replaceChildren(
    ...events.map((event) => {
      const item = document.createElement("li");
      item.textContent = event.detail || event.type;
      item.dataset.type = event.type;
      return item;
    }),
  );
}

// --- the flow of a game --------------------------------------------------------------------------------

async function refresh() {
  const generation = state.generation;
  try {
    await showScore(generation);
    if (generation !== state.generation) return;
    showMoves();
    await drawBoard(generation);
    if (generation !== state.generation) return;
    $("board").dataset.ready = String(state.moves.length);
    if (state.toMove !== 0 && seatKind(state.toMove) === "service") {
      // Both seats the service: a pause between moves, so a person can watch.
      const pause = seatKind(3 - state.toMove) === "service" ? 400 : 0;
      setTimeout(() => think(generation), pause);
    }
  } catch (error) {
    showError(error);
  }
}

async function think(generation) {
  if (generation !== state.generation) return;
  const controller = new AbortController();
  state.thinking = controller;
  $("analysis").replaceChildren();
  $("lines").replaceChildren();
  $("thinking").textContent = "thinking…";
  // The service's seat plays (the level's seeded variety), while the stream shows its analysis as it thinks.
  const body = { position: { notation: state.position }, ...chosenBot(), topN: 3, purpose: "play" };
  const think = Number($("think").value);
  if (think > 0) body.limits = { maxTimeMs: think };
  try {
    const answer = await analyze(
      state.game.id,
      body,
      (analysis, final) => {
        if (generation !== state.generation) return;
        const item = document.createElement("li");
        const pv = line(analysis.pv);
        const value = Number(analysis.value || 0).toFixed(2);
        item.textContent =
          `depth ${analysis.depth || 0} · value ${value}${analysis.exact ? " (exact)" : ""}${chance(analysis)} · ` +
          `${analysis.nodes || 0} nodes · ${analysis.elapsedMs || 0} ms · ${pv}` +
          (final ? ` · stopped: ${analysis.stopReason}` : "");
        if (final) item.className = "final";
        $("analysis").append(item);
        $("thinking").textContent = final
          ? `played ${analysis.move.notation} (${analysis.level})`
          : `best so far: ${analysis.move.notation}`;
        $("thinking").dataset.level = analysis.level || "";
        showWinChance(analysis);
        showLines(analysis.alternatives || []);
      },
      controller.signal,
    );
    if (generation !== state.generation) return;
    await play(answer.move.notation, generation);
  } catch (error) {
    if (error.name !== "AbortError" && generation === state.generation) showError(error);
  } finally {
    if (state.thinking === controller) state.thinking = null;
  }
}

function line(moves) {
  return (moves || []).map((move) => move.notation).join(" ");
}

function chance(scored) {
  return scored.winChance === undefined ? "" : ` · win ${(100 * scored.winChance).toFixed(0)}%`;
}

// The bar of the mover's win chance: the light part is seat 1's share, whoever moves.
function showWinChance(analysis) {
  if (analysis.winChance === undefined) return;
  const seat = Number(state.toMove || 1);
  const first = seat === 1 ? analysis.winChance : 1 - analysis.winChance;
  $("win-bar").hidden = false;
  $("win-bar").dataset.chance = String(analysis.winChance);
  $("win-bar-fill").style.width = `${(100 * first).toFixed(1)}%`;
  $("win-bar-text").textContent = `seat 1 ${(100 * first).toFixed(0)}% · seat 2 ${(100 * (1 - first)).toFixed(0)}%`;
}

// Each scored move with its own line and its win chance for the mover.
function showLines(alternatives) {
  $("lines").replaceChildren(
    ...alternatives.map((scored) => {
      const item = document.createElement("li");
      item.textContent = `${scored.move.notation} ${Number(scored.value || 0).toFixed(2)}${chance(scored)}: ` +
        line(scored.pv);
      return item;
    }),
  );
}

function lastMoveOf(step) {
  // Kalah names the pit by its side (S3, N3) in the sow event; other games name the move itself.
  const sow = (step.events || []).find((event) => event.type === "sow");
  return sow ? sow.cells[0] : step.move.notation;
}

async function play(notation, generation = state.generation) {
  showError(null);
  try {
    const step = await call(state.game.id, "applyMove", {
      position: { notation: state.position },
      move: { notation },
    });
    if (generation !== state.generation) return;
    state.moves.push(step.move.notation);
    state.position = step.position.notation;
    state.lastMove = lastMoveOf(step);
    showEvents(step.events || []);
    await refresh();
  } catch (error) {
    showError(error);
  }
}

function restart() {
  state.generation += 1;
  if (state.thinking) state.thinking.abort(); // closing the stream stops the search on the server
  state.thinking = null;
  delete $("board").dataset.ready; // set again once the new position is drawn
  $("analysis").replaceChildren();
  $("thinking").textContent = "";
  delete $("thinking").dataset.level; // the level that played, set again by the new game's first answer
  clearReview();
  showError(null);
}

async function newGame() {
  restart();
  const generation = state.generation;
  try {
    const body = { options: chosenOptions() };
    if ($("seed").value) body.seed = $("seed").value;
    const answer = await call(state.game.id, "newGame", body);
    if (generation !== state.generation) return;
    state.start = state.position = answer.position.notation;
    state.moves = [];
    state.lastMove = "";
    showEvents([]);
    await refresh();
  } catch (error) {
    showError(error);
  }
}

async function loadPosition() {
  restart();
  const notation = $("notation").value.trim();
  try {
    await call(state.game.id, "score", { position: { notation } }); // refused with the reason if it is not one
    state.start = state.position = notation;
    state.moves = [];
    state.lastMove = "";
    showEvents([]);
    await refresh();
  } catch (error) {
    showError(error);
  }
}

// Undo: replay the moves from the start, one fewer (and, against the service, back to your own turn).
async function undo() {
  if (!state.moves.length) return;
  restart();
  const generation = state.generation;
  const moves = state.moves.slice();
  try {
    for (;;) {
      moves.pop();
      const answer = moves.length
        ? await call(state.game.id, "applyMoves", {
            position: { notation: state.start },
            moves: moves.map((notation) => ({ notation })),
          })
        : { position: { notation: state.start }, toMove: null, steps: [] };
      const toMove = moves.length ? answer.toMove || 0 : null;
      if (generation !== state.generation) return;
      const mine = toMove === null || (toMove !== 0 && seatKind(toMove) === "human");
      if (mine || !moves.length) {
        state.moves = moves;
        state.position = answer.position.notation;
        const last = answer.steps[answer.steps.length - 1];
        state.lastMove = last ? lastMoveOf(last) : "";
        showEvents(last ? last.events || [] : []);
        break;
      }
    }
    await refresh();
  } catch (error) {
    showError(error);
  }
}

// --- clicks on the board ------------------------------------------------------------------------------

function showSelection() {
  const strands = state.game && state.game.id === "strands";
  $("selection-bar").hidden = !strands || !humanToMove();
  $("selection").textContent = state.selected.join(", ") || "none";
  $("confirm").disabled = state.selected.length === 0;
  for (const cell of $("board").querySelectorAll("g.cell")) {
    cell.classList.toggle("selected", state.selected.includes(cell.dataset.cell));
  }
}

function onBoardClick(event) {
  if (!humanToMove() || state.thinking) return;
  const move = event.target.closest("[data-move]");
  if (move) {
    play(move.dataset.move);
    return;
  }
  const cell = event.target.closest("g.cell.legal");
  if (!cell) return;
  // Strands: the cells of one move share a label; picking a cell of another label starts over.
  const first = $("board").querySelector(`g.cell[data-cell="${state.selected[0]}"]`);
  if (first && first.dataset.label !== cell.dataset.label) state.selected = [];
  const at = state.selected.indexOf(cell.dataset.cell);
  if (at >= 0) state.selected.splice(at, 1);
  else {
    state.selected.push(cell.dataset.cell);
    // At most data-max cells of a label: one more lets go of the first picked.
    if (state.selected.length > Number(cell.dataset.max || 1)) state.selected.shift();
  }
  showSelection();
}

// --- start ------------------------------------------------------------------------------------------------

async function main() {
  $("api-key").addEventListener("change", (event) => {
    setApiKey(event.target.value);
    if (!games.size) boot(); // the games could not be listed without a key
  });
  $("board").addEventListener("click", onBoardClick);
  $("confirm").addEventListener("click", () => play(state.selected.join(",")));
  $("clear-selection").addEventListener("click", () => {
    state.selected = [];
    showSelection();
  });
  $("new-game").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("load").addEventListener("click", loadPosition);
  $("review").addEventListener("click", () => {
    // Pasted moves (Strands' cells are joined by commas: moves are separated by spaces) or the game played here.
    const pasted = $("review-moves").value.trim().split(/\s+/).filter(Boolean);
    const moves = pasted.length ? pasted : state.moves;
    showError(null);
    startReview(state.game.id, state.start, moves, Number($("think").value) || 0, showError);
  });
  $("flip").addEventListener("change", () => state.position && drawBoard(state.generation).catch(showError));
  for (const select of document.querySelectorAll("select.seat")) {
    select.addEventListener("change", () => state.position && (restart(), refresh()));
  }
  $("game").addEventListener("change", () => {
    state.game = games.get($("game").value);
    showOptions(state.game);
    newGame();
  });
  await boot();
}

// List the games and start the first one (again once an API key is given, if the service wants one).
async function boot() {
  try {
    for (const game of await listGames()) games.set(game.id, game);
  } catch (error) {
    showError(error);
    return;
  }
  showError(null);
  fill($("game"), [...games.values()].map((game) => [game.id, game.title]), "reversi");
  state.game = games.get($("game").value);
  showOptions(state.game);
  document.body.dataset.ready = "true";
  await newGame();
}

main();
