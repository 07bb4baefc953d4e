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

// POST /v1/games/{game}:analyze, read as newline-delimited JSON: onUpdate(analysis, final) for each message.
// Aborting `signal` closes the connection, which stops the search on the server.
export async function analyze(game, body, onUpdate, signal) {
  const response = await fetch(`/v1/games/${encodeURIComponent(game)}:analyze`, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json" }),
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await failure(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let last = null;
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
      last = message.result;
      onUpdate(last.analysis, Boolean(last.final));
    }
  }
  if (!last || !last.final) throw new ApiError(500, { message: "the analysis ended without an answer" });
  return last.analysis;
}
