// The review panel: every move of the game just played (or of moves pasted) judged by the service
// (POST :review), listed as they arrive, charted (seat 1's win chance after each move), and each ply
// clickable to show the board before it with the best line, its judgement, the values and the win chances.
import { call, renderBoard, review } from "./api.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const CHART = { width: 300, height: 120, pad: 8 };

const panel = {
  game: "", // the game id of the review shown
  positions: [], // notation before each ply, then the end
  plies: [], // the PlyReview messages so far
  controller: null, // the AbortController of the review in flight
  plan: null, // the review's plan: who searches, and whether the deadline leaves it time
};

// Reset the panel (a new game, a load, an undo): a review in flight stops (its stream closes).
export function clearReview() {
  if (panel.controller) panel.controller.abort();
  panel.controller = null;
  panel.plies = [];
  panel.plan = null;
  $("review-plies").replaceChildren();
  $("review-chart").replaceChildren();
  $("review-summary").replaceChildren();
  $("review-detail").hidden = true;
  $("review-status").textContent = "";
  delete $("review-status").dataset.done;
}

// Review `moves` (notations) played from `start` in `game`; `maxTimeMs` (0: the level's own) per ply.
export async function startReview(game, start, moves, maxTimeMs, showError) {
  clearReview();
  if (!moves.length) {
    $("review-status").textContent = "no moves to review: play some, or paste them above";
    return;
  }
  const controller = new AbortController();
  panel.controller = controller;
  panel.game = game;
  $("review-status").textContent = "reviewing…";
  try {
    // Every position of the game, for the boards of the plies (and the moves checked before the review).
    const replay = await call(game, "applyMoves", {
      position: { notation: start },
      moves: moves.map((notation) => ({ notation })),
    });
    panel.positions = [start, ...replay.steps.map((step) => step.position.notation)];
    const body = { position: { notation: start }, moves: moves.map((notation) => ({ notation })) };
    if (maxTimeMs > 0) body.limits = { maxTimeMs };
    const onPlan = (plan) => {
      if (panel.controller !== controller) return;
      panel.plan = plan;
      $("review-status").textContent = plan.enoughTime ? "reviewing…" : `reviewing, but ${plan.detail}`;
    };
    const onPly = (ply) => {
      if (panel.controller !== controller) return;
      panel.plies.push(ply);
      $("review-plies").append(plyItem(ply));
      drawChart();
      const warning = panel.plan && !panel.plan.enoughTime ? " (the deadline is too short for them all)" : "";
      $("review-status").textContent = `reviewed ${panel.plies.length} of ${moves.length} moves…${warning}`;
    };
    const summary = await review(game, body, onPlan, onPly, controller.signal);
    if (panel.controller !== controller) return;
    showSummary(summary);
  } catch (error) {
    if (error.name !== "AbortError" && panel.controller === controller) {
      $("review-status").textContent = "";
      showError(error);
    }
  } finally {
    if (panel.controller === controller) panel.controller = null;
  }
}

function plyItem(ply) {
  const item = document.createElement("li");
  item.dataset.ply = String(ply.ply || 0);
  item.dataset.judgement = ply.judgement || "UNREVIEWED";
  item.className = `judged ${(ply.judgement || "unreviewed").toLowerCase()}`;
  // The win chance lost, as a player feels it; where it rounds to nothing (a won game won by less), the value.
  const lost = (ply.winChanceLoss || 0) >= 0.005 ? `${percent(ply.winChanceLoss)} win chance` : Number(ply.loss).toFixed(2);
  const loss = ply.loss ? ` (−${lost}, best ${ply.bestMove.notation})` : "";
  item.textContent = `${ply.move.notation} ${ply.judgement || "unreviewed"}${ply.forced ? " (forced)" : ""}${loss}`;
  item.addEventListener("click", () => showPly(ply.ply || 0));
  return item;
}

function percent(chance) {
  return `${(100 * Number(chance)).toFixed(0)}%`;
}

// Seat 1's win chance after each reviewed move, less ½ (above the line: seat 1 ahead): the chart's points.
function points() {
  return panel.plies
    .filter((ply) => ply.reviewed && ply.winChanceAfter !== undefined)
    .map((ply) => {
      const chance = Number(ply.winChanceAfter);
      return { ply: ply.ply || 0, value: (ply.seat === 1 ? chance : 1 - chance) - 0.5, ply_: ply };
    });
}

function node(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

function drawChart() {
  const { width, height, pad } = CHART;
  const shown = points();
  const plies = Math.max(panel.positions.length - 1, 1);
  const top = 0.5;
  const x = (ply) => pad + ((width - 2 * pad) * ply) / Math.max(plies - 1, 1);
  const y = (value) => height / 2 - ((height / 2 - pad) * value) / top;
  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img" });
  svg.append(node("title", {}));
  svg.firstChild.textContent = "Seat 1's win chance after each move (above the line: seat 1 ahead)";
  svg.append(node("line", { x1: pad, x2: width - pad, y1: height / 2, y2: height / 2, class: "axis" }));
  if (shown.length > 1) {
    const line = shown.map((point) => `${x(point.ply).toFixed(1)},${y(point.value).toFixed(1)}`).join(" ");
    svg.append(node("polyline", { points: line, class: "evaluation" }));
  }
  for (const point of shown) {
    const judgement = point.ply_.judgement.toLowerCase();
    const dot = node("circle", { cx: x(point.ply), cy: y(point.value), r: 4, class: `point ${judgement}` });
    dot.dataset.ply = String(point.ply);
    dot.append(node("title", {}));
    dot.firstChild.textContent = `${point.ply + 1}. ${point.ply_.move.notation}: ${point.ply_.judgement}`;
    dot.addEventListener("click", () => showPly(point.ply));
    svg.append(dot);
  }
  $("review-chart").replaceChildren(svg);
}

async function showPly(index) {
  const ply = panel.plies.find((item) => (item.ply || 0) === index);
  if (!ply) return;
  for (const item of $("review-plies").children) item.classList.toggle("chosen", item.dataset.ply === String(index));
  const line = (ply.pv || []).map((move) => move.notation);
  const text = !ply.reviewed
    ? `${index + 1}. ${ply.move.notation}: not reviewed (the deadline came first)`
    : `${index + 1}. ${ply.move.notation}: ${ply.judgement}${ply.forced ? " (the only move)" : ""}` +
      (ply.bestMove ? `; best ${ply.bestMove.notation}` : "") +
      (ply.bestValue !== undefined ? ` (${Number(ply.bestValue).toFixed(2)})` : "") +
      (ply.playedValue !== undefined ? `, played ${Number(ply.playedValue).toFixed(2)}` : "") +
      (ply.loss ? `, loss ${Number(ply.loss).toFixed(2)}` : "") +
      (ply.winChanceAfter !== undefined
        ? `; win chance ${percent(ply.winChanceBefore)} with the best move, ${percent(ply.winChanceAfter)} as played`
        : "") +
      (ply.exact ? ", proved" : "") +
      (line.length ? `; best line: ${line.join(" ")}` : "");
  $("review-text").textContent = text;
  $("review-detail").dataset.ply = String(index);
  $("review-detail").hidden = false;
  const svg = await renderBoard(panel.game, panel.positions[index], {
    size: 300,
    arrows: line.length ? line.slice(0, 8) : [ply.move.notation],
  });
  const image = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
  $("review-board").replaceChildren(document.importNode(image, true));
}

function showSummary(summary) {
  const rows = (summary.seats || []).map((seat) => {
    const counts = Object.entries(seat.counts || {})
      .filter(([, count]) => count)
      .map(([name, count]) => `${count} ${name}`)
      .join(", ");
    const item = document.createElement("li");
    item.dataset.seat = String(seat.seat);
    // No accuracy where the seat made no judged move with a choice: said so, never shown as 100.
    const accuracy = seat.accuracy === undefined ? "no move judged" : `accuracy ${Number(seat.accuracy).toFixed(1)}`;
    item.dataset.accuracy = seat.accuracy === undefined ? "" : String(seat.accuracy);
    // The performance rating on the ladder's scale, with its interval; absent where the game has none yet.
    const rated = seat.rating !== undefined;
    const rating = rated
      ? `, performance rating about ${Math.round(seat.rating)} (${Math.round(seat.ratingLow)}–${Math.round(seat.ratingHigh)})`
      : "";
    item.dataset.rating = rated ? String(seat.rating) : "";
    item.dataset.ratingLow = rated ? String(seat.ratingLow) : "";
    item.dataset.ratingHigh = rated ? String(seat.ratingHigh) : "";
    item.textContent = `Seat ${seat.seat}: ${accuracy}${rating}, mean loss ${Number(seat.meanLoss || 0).toFixed(2)} ` +
      `(${percent(seat.meanWinChanceLoss || 0)} of win chance)${counts ? ` (${counts})` : ""}`;
    return item;
  });
  const list = document.createElement("ul");
  list.append(...rows);
  $("review-summary").replaceChildren(list);
  const swings = (summary.swings || []).map((ply) => ply + 1).join(", ");
  const unreviewed = summary.unreviewedPlies ? `, ${summary.unreviewedPlies} not reviewed` : "";
  const judge = panel.plan ? panel.plan.detail.split(";")[0] : summary.level;
  $("review-status").textContent =
    `reviewed ${summary.reviewedPlies || 0} moves by ${judge}${unreviewed}` +
    (swings ? `; largest swings at moves ${swings}` : "");
  $("review-status").dataset.done = "true";
}
