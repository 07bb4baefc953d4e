// REST with fetch, typed by what openapi-typescript generates from the gateway's OpenAPI document
// (src/gen/openapi.ts, made by `make stubs` from the document the gateway serves at /openapi.json).
import type { components, paths } from "./gen/openapi";

export type Schemas = components["schemas"];
export type Status = Schemas["google.rpc.Status"];
/** The game ids the document lists (the path parameter of every game's route). */
export type GameId = paths["/v1/games/{game}:newGame"]["post"]["parameters"]["path"]["game"];

// The POST routes that answer JSON (the streamed analysis answers NDJSON or Server-Sent Events instead).
type PostPath = {
  [P in keyof paths]: paths[P] extends { post: { responses: { 200: { content: { "application/json": unknown } } } } }
    ? P
    : never;
}[keyof paths];
type Post<P extends PostPath> = paths[P]["post"];
type Body<P extends PostPath> = NonNullable<Post<P>["requestBody"]>["content"]["application/json"];
type Answer<P extends PostPath> = Post<P>["responses"][200]["content"]["application/json"];
type PathParameters<P extends PostPath> = Post<P>["parameters"]["path"];
type ReviewBody = NonNullable<paths["/v1/games/{game}:review"]["post"]["requestBody"]>["content"]["application/json"];

/** An answer other than 200: the HTTP status and the google.rpc.Status the gateway sends as the body. */
export class RestError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly status: Status,
  ) {
    super(`HTTP ${httpStatus}: ${status.message ?? ""}`);
  }

  /** The ErrorInfo reason (ILLEGAL_MOVE, INVALID_NOTATION...). */
  get reason(): string {
    const info = this.detail("google.rpc.ErrorInfo");
    return typeof info?.reason === "string" ? info.reason : "";
  }

  /** Every field the error is about: a BadRequest's field violations, then a PreconditionFailure's subjects. */
  get fields(): string[] {
    const named = (list: unknown, key: string) =>
      Array.isArray(list) ? list.map((item: Record<string, unknown>) => String(item[key])) : [];
    return [
      ...named(this.detail("google.rpc.BadRequest")?.fieldViolations, "field"),
      ...named(this.detail("google.rpc.PreconditionFailure")?.violations, "subject"),
    ];
  }

  private detail(type: string): Schemas["google.protobuf.Any"] | undefined {
    return (this.status.details ?? []).find((detail) => detail["@type"].endsWith(`/${type}`));
  }
}

export class GameRulesRest {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 5000,
  ) {}

  /** POST to one of the document's paths: `rest.post("/v1/games/{game}:newGame", { game: "kalah" }, {})`. */
  async post<P extends PostPath>(path: P, parameters: PathParameters<P>, body: Body<P>): Promise<Answer<P>> {
    const values = parameters as Record<string, string>;
    const url = this.baseUrl + path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]));
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const answer: unknown = await response.json();
    if (!response.ok) {
      throw new RestError(response.status, answer as Status);
    }
    return answer as Answer<P>;
  }

  /** POST :review, read to its end (newline-delimited JSON): every line's message; a line with an error (the
   * call failed after it started) or an answer other than 200 is thrown as a RestError. */
  async review(game: GameId, body: ReviewBody, timeoutMs: number): Promise<Schemas["gamerules.v1.ReviewGameResponse"][]> {
    const response = await fetch(`${this.baseUrl}/v1/games/${encodeURIComponent(game)}:review`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new RestError(response.status, JSON.parse(text) as Status);
    }
    const lines = text
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as { result?: Schemas["gamerules.v1.ReviewGameResponse"]; error?: Status });
    const failed = lines.find((line) => line.error);
    if (failed?.error) {
      throw new RestError(500, failed.error);
    }
    return lines.flatMap((line) => (line.result ? [line.result] : []));
  }

  /** GET /v1/games: the games, their options, levels and notations. */
  async listGames(): Promise<paths["/v1/games"]["get"]["responses"][200]["content"]["application/json"]> {
    const response = await fetch(`${this.baseUrl}/v1/games`, { signal: AbortSignal.timeout(this.timeoutMs) });
    const answer: unknown = await response.json();
    if (!response.ok) {
      throw new RestError(response.status, answer as Status);
    }
    return answer as paths["/v1/games"]["get"]["responses"][200]["content"]["application/json"];
  }
}
