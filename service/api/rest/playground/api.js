// The gamerules REST API, as a page uses it: JSON calls, board images, and the analysis stream.
// Errors come back as google.rpc.Status JSON; they are thrown as ApiError with the message and field.

export class ApiError extends Error {
  constructor(status, body) {
    const violation = (body.details || []).flatMap((d) => d.fieldViolations || d.violations || [])[0];
    super(body.message || `HTTP ${status}`);
    this.status = status;
    this.field = violation ? violation.field || violation.subject : "";
    this.reason = ((body.details || []).find((d) => d.reason) || {}).reason || "";
  }
}

let apiKey = "";

export function setApiKey(key) {
  apiKey = key.trim();
}

function headers(extra = {}) {
  return apiKey ? { ...extra, "X-Api-Key": apiKey } : extra;
}

async function failure(response) {
  let body = {};
  try {
    body = await response.json();
  } catch (_) {
    body = { message: `HTTP ${response.status}` };
  }
  return new ApiError(response.status, body);
}

export async function listGames() {
  const response = await fetch("/v1/games", { headers: headers() });
  if (!response.ok) throw await failure(response);
  return (await response.json()).games || [];
}

// POST /v1/games/{game}:{method} with a JSON body.
export async function call(game, method, body) {
  const response = await fetch(`/v1/games/${encodeURIComponent(game)}:${method}`, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json" }),
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  return response.json();
}

// The board as SVG text: GET /v1/games/{game}:render with the request in query parameters.
export async function renderBoard(game, notation, options = {}) {
  const query = new URLSearchParams({ "position.notation": notation });
  for (const [name, value] of Object.entries(options)) {
    if (Array.isArray(value)) value.forEach((item) => query.append(name, item));
    else if (value !== undefined && value !== "" && value !== false) query.set(name, String(value));
  }
  const response = await fetch(`/v1/games/${encodeURIComponent(game)}:render?${query}`, { headers: headers() });
  if (!response.ok) throw await failure(response);
  return response.text();
}

// POST /v1/games/{game}:{method} answered as a stream of newline-delimited JSON: onResult(result) for each
// message's `result`. Aborting `signal` closes the connection, which stops the server's search.
async function stream(game, method, body, onResult, signal) {
  const response = await fetch(`/v1/games/${encodeURIComponent(game)}:${method}`, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json" }),
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await failure(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (!line) continue;
      const message = JSON.parse(line);
      if (message.error) throw new ApiError(500, message.error);
      onResult(message.result);
    }
  }
}

// The analysis as it deepens: onUpdate(analysis, final) for each message; answers the final analysis.
export async function analyze(game, body, onUpdate, signal) {
  let last = null;
  await stream(game, "analyze", body, (result) => {
    last = result;
    onUpdate(result.analysis, Boolean(result.final));
  }, signal);
  if (!last || !last.final) throw new ApiError(500, { message: "the analysis ended without an answer" });
  return last.analysis;
}

// A game reviewed: onPlan(plan) first, onPly(ply) for each move as it is judged; answers the summary.
export async function review(game, body, onPlan, onPly, signal) {
  let summary = null;
  await stream(game, "review", body, (result) => {
    if (result.plan) onPlan(result.plan);
    else if (result.ply) onPly(result.ply);
    else if (result.summary) summary = result.summary;
  }, signal);
  if (!summary) throw new ApiError(500, { message: "the review ended without its summary" });
  return summary;
}
