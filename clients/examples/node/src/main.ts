// Plays a short game of every game against a running gamerules service, once over gRPC and once over REST:
// a new game, its legal moves, the first of them applied, the score, and the best move of the position that
// follows; then one error (an illegal move) handled on each transport, and a short Reversi game reviewed on each
// (every move's judgement, then each seat's accuracy).
//
//   npm run build && node dist/main.js --grpc localhost:50051 --http http://localhost:8080
//
// Each step prints one line, `GAME TRANSPORT STEP: ...`.
import { parseArgs } from "node:util";
import { Metadata } from "@grpc/grpc-js";
import {
  ApplyMoveRequest,
  BestMoveRequest,
  LegalMovesRequest,
  ListGamesRequest,
  NewGameRequest,
  ReviewGameRequest,
  type ReviewGameResponse,
  ScoreRequest,
} from "./gen/gamerules/v1/gamerules";
import { GameRulesGrpc, grpcFailure, isServiceError } from "./grpc";
import { type GameId, GameRulesRest, RestError } from "./rest";

// A best move the same on every run: a fixed search depth and seed, no time limit.
const SEARCH = { limits: { maxDepth: 2 }, seed: "1" };
const SEED = "1"; // the start position's randomness (Petak Sawah's rocks, random Strands boards)
const SHOWN = 6; // legal moves printed (after their count)
const ILLEGAL = { game: "reversi", move: "a1" } as const; // a1 is no legal opening move in Reversi
const REVIEWED = ["f5", "d6", "c3"]; // the Reversi game each transport reviews
const REVIEW_MS = 60_000; // a review's deadline: a search per move

function say(game: string, transport: string, step: string, text: string): void {
  console.log(`${game} ${transport} ${step}: ${text}`);
}

function listed(count: number, moves: string[]): string {
  return `${count} (${moves.slice(0, SHOWN).join(" ")}${moves.length > SHOWN ? " ..." : ""})`;
}

async function playGrpc(grpc: GameRulesGrpc, game: string): Promise<void> {
  const { client } = grpc;
  const start = await grpc.call(client.newGame, NewGameRequest.fromPartial({ game, seed: SEED }));
  const position = { notation: start.position?.notation ?? "" };
  say(game, "grpc", "new-game", position.notation);
  const legal = await grpc.call(client.legalMoves, LegalMovesRequest.fromPartial({ game, position }));
  say(game, "grpc", "legal-moves", listed(legal.totalSize, legal.moves.map((move) => move.notation)));
  const move = { notation: legal.moves[0].notation };
  const step = await grpc.call(client.applyMove, ApplyMoveRequest.fromPartial({ game, position, move }));
  const next = { notation: step.position?.notation ?? "" };
  say(game, "grpc", "apply", `${move.notation} -> ${next.notation}`);
  const score = await grpc.call(client.score, ScoreRequest.fromPartial({ game, position: next }));
  say(game, "grpc", "score", `${score.scores.join("-")} (to move: ${score.toMove ?? "none"})`);
  const best = await grpc.call(client.bestMove, BestMoveRequest.fromPartial({ game, position: next, ...SEARCH }));
  say(game, "grpc", "best-move", `${best.move?.notation} (depth ${best.depth}, value ${best.value})`);
}

async function playRest(rest: GameRulesRest, game: GameId): Promise<void> {
  const start = await rest.post("/v1/games/{game}:newGame", { game }, { seed: SEED });
  const position = { notation: start.position?.notation ?? "" };
  say(game, "rest", "new-game", position.notation);
  const legal = await rest.post("/v1/games/{game}:legalMoves", { game }, { position });
  const moves = (legal.moves ?? []).map((move) => move.notation ?? "");
  say(game, "rest", "legal-moves", listed(legal.totalSize ?? 0, moves));
  const move = { notation: moves[0] };
  const step = await rest.post("/v1/games/{game}:applyMove", { game }, { position, move });
  const next = { notation: step.position?.notation ?? "" };
  say(game, "rest", "apply", `${move.notation} -> ${next.notation}`);
  const score = await rest.post("/v1/games/{game}:score", { game }, { position: next });
  say(game, "rest", "score", `${(score.scores ?? []).join("-")} (to move: ${score.toMove ?? "none"})`);
  const best = await rest.post("/v1/games/{game}:bestMove", { game }, { position: next, ...SEARCH });
  say(game, "rest", "best-move", `${best.move?.notation} (depth ${best.depth}, value ${best.value})`);
}

async function illegalMoveOverGrpc(grpc: GameRulesGrpc, startNotation: string): Promise<void> {
  const request = ApplyMoveRequest.fromPartial({
    game: ILLEGAL.game,
    position: { notation: startNotation },
    move: { notation: ILLEGAL.move },
  });
  try {
    await grpc.call(grpc.client.applyMove, request);
    throw new Error(`${ILLEGAL.move} was accepted`);
  } catch (error) {
    if (!isServiceError(error)) {
      throw error;
    }
    const failure = grpcFailure(error); // FAILED_PRECONDITION, reason ILLEGAL_MOVE, the field `move`
    say("error", "grpc", "illegal-move", `${failure.code} ${failure.reason} [${failure.fields}] ${failure.message}`);
  }
}

async function illegalMoveOverRest(rest: GameRulesRest, startNotation: string): Promise<void> {
  const body = { position: { notation: startNotation }, move: { notation: ILLEGAL.move } };
  try {
    await rest.post("/v1/games/{game}:applyMove", { game: ILLEGAL.game }, body);
    throw new Error(`${ILLEGAL.move} was accepted`);
  } catch (error) {
    if (!(error instanceof RestError)) {
      throw error;
    }
    say("error", "rest", "illegal-move", `${error.httpStatus} ${error.reason} [${error.fields}] ${error.status.message}`);
  }
}

// What a review said, the same line on both transports: `f5 BEST, d6 BEST, c3 GOOD; accuracy 100 97.3`.
interface Reviewed {
  ply?: { move?: { notation?: string }; judgement?: string };
  summary?: { seats?: { accuracy?: number }[] };
}

function reviewLine(answers: Reviewed[]): string {
  const plies = answers.flatMap((answer) => (answer.ply ? [`${answer.ply.move?.notation} ${answer.ply.judgement}`] : []));
  const seats = answers.find((answer) => answer.summary)?.summary?.seats ?? [];
  return `${plies.join(", ")}; accuracy ${seats.map((seat) => seat.accuracy ?? 0).join(" ")}`;
}

async function reviewOverGrpc(grpc: GameRulesGrpc): Promise<void> {
  const moves = REVIEWED.map((notation) => ({ notation }));
  const request = ReviewGameRequest.fromPartial({ game: "reversi", moves });
  const answers: ReviewGameResponse[] = [];
  // A server stream: the review's plan, one message per move, then the summary (reviewLine reads the plies).
  for await (const answer of grpc.client.reviewGame(request, new Metadata(), { deadline: Date.now() + REVIEW_MS })) {
    answers.push(answer as ReviewGameResponse);
  }
  say("reversi", "grpc", "review", reviewLine(answers));
}

async function reviewOverRest(rest: GameRulesRest): Promise<void> {
  const answers = await rest.review("reversi", { moves: REVIEWED.map((notation) => ({ notation })) }, REVIEW_MS);
  say("reversi", "rest", "review", reviewLine(answers));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      grpc: { type: "string", default: process.env.GAMERULES_GRPC_TARGET ?? "localhost:50051" },
      http: { type: "string", default: process.env.GAMERULES_HTTP_URL ?? "http://localhost:8080" },
    },
  });
  const grpc = new GameRulesGrpc(values.grpc);
  const rest = new GameRulesRest(values.http);
  try {
    const { games } = await grpc.call(grpc.client.listGames, ListGamesRequest.fromPartial({}));
    const restGames = (await rest.listGames()).games ?? [];
    say("all", "grpc", "games", games.map((game) => game.id).join(" "));
    say("all", "rest", "games", restGames.map((game) => game.id).join(" "));
    for (const game of games) {
      await playGrpc(grpc, game.id);
    }
    for (const game of restGames) {
      await playRest(rest, game.id as GameId);
    }
    const reversi = await grpc.call(grpc.client.newGame, NewGameRequest.fromPartial({ game: ILLEGAL.game }));
    await illegalMoveOverGrpc(grpc, reversi.position?.notation ?? "");
    await illegalMoveOverRest(rest, reversi.position?.notation ?? "");
    await reviewOverGrpc(grpc);
    await reviewOverRest(rest);
  } finally {
    grpc.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
