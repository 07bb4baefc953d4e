#!/usr/bin/env bash
# The REST API with curl: the calls a portal makes, against a running gateway (`make run` starts one).
#
#   bash clients/examples/curl.sh                                  # the gateway on localhost:8080
#   GAMERULES_HTTP_URL=http://gateway.example:8080 bash clients/examples/curl.sh
#
# Each example prints "## title" and then the JSON answer. tests/clients/test_examples.py runs this file
# against a real gateway and checks every answer, so these commands are known to work.
set -euo pipefail
if [[ -n "${GAMERULES_HTTP:-}" && -z "${GAMERULES_HTTP_URL:-}" ]]; then  # release 0.1.0's name, for one more release
    echo "curl.sh: GAMERULES_HTTP is deprecated and will stop working in the next release: use GAMERULES_HTTP_URL" >&2
    GAMERULES_HTTP_URL="$GAMERULES_HTTP"
fi
HTTP="${GAMERULES_HTTP_URL:-http://localhost:8080}"

echo "## list the games, their options, levels and notations"
curl -sS "$HTTP/v1/games"
echo

echo "## one game"
curl -sS "$HTTP/v1/games/reversi"
echo

echo "## a new game (options by name; missing ones take their defaults)"
curl -sS "$HTTP/v1/games/reversi:newGame" -H 'Content-Type: application/json' \
  -d '{"options": {"size": 8}, "seed": "1"}'
echo

echo "## the legal moves of a position, by its notation"
curl -sS "$HTTP/v1/games/reversi:legalMoves" -H 'Content-Type: application/json' \
  -d '{"position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}}'
echo

echo "## paged: at most 2 moves; pass nextPageToken back as pageToken for the rest"
curl -sS "$HTTP/v1/games/reversi:legalMoves" -H 'Content-Type: application/json' \
  -d '{"position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "pageSize": 2}'
echo

echo "## play a move: the next position and what happened"
curl -sS "$HTTP/v1/games/reversi:applyMove" -H 'Content-Type: application/json' \
  -d '{"position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "move": {"notation": "d3"}}'
echo

echo "## replay a sequence of moves (undo = replay one fewer)"
curl -sS "$HTTP/v1/games/reversi:applyMoves" -H 'Content-Type: application/json' \
  -d '{"position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "moves": [{"notation": "d3"}, {"notation": "c5"}, {"notation": "f6"}]}'
echo

echo "## the structured form of a position works too"
curl -sS "$HTTP/v1/games/reversi:score" -H 'Content-Type: application/json' \
  -d '{"position": {"reversi": {"board": ["........", "........", "...B....", "...BB...", "...BW...", "........", "........", "........"], "toMove": 2, "blackSeat": 1}}}'
echo

echo "## scores of several positions in one call"
curl -sS "$HTTP/v1/games/reversi:batchScore" -H 'Content-Type: application/json' \
  -d '{"positions": [{"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, {"notation": "......../......../...B..../...BB.../...BW.../......../......../........ 2 black=1"}]}'
echo

echo "## the best move at a level, with a deadline (Grpc-Timeout) and the three best scored"
curl -sS "$HTTP/v1/games/reversi:bestMove" -H 'Content-Type: application/json' -H 'Grpc-Timeout: 5S' \
  -d '{"position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "level": "expert", "topN": 3, "seed": "7"}'
echo

echo "## the best move within explicit limits"
curl -sS "$HTTP/v1/games/reversi:bestMove" -H 'Content-Type: application/json' \
  -d '{"position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "limits": {"maxDepth": 3, "maxTimeMs": 2000}}'
echo

echo "## a board image (SVG): the position and the options in query parameters, the legal moves marked"
curl -sS "$HTTP/v1/games/reversi:render?position.notation=......../......../......../...WB.../...BW.../......../......../........%201%20black=1&showLegalMoves=true&arrows=d3&size=320"
echo

echo "## the analysis streamed as the search deepens: one JSON line per iteration, then the answer"
curl -sS -N "$HTTP/v1/games/kalah:analyze" -H 'Content-Type: application/json' \
  -d '{"position": {"notation": "4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4"}, "limits": {"maxDepth": 6}, "topN": 2}'
echo

echo "## a game reviewed: the plan, one JSON line per move (its judgement, the win chance lost, the best move), then each side's accuracy"
curl -sS -N "$HTTP/v1/games/reversi:review" -H 'Content-Type: application/json' \
  -d '{"moves": [{"notation": "f5"}, {"notation": "d6"}, {"notation": "c3"}, {"notation": "d3"}]}'
echo

echo "## an illegal move: HTTP 400 and a google.rpc.Status naming the reason and the field"
curl -sS -w '\nHTTP %{http_code}' "$HTTP/v1/games/reversi:applyMove" -H 'Content-Type: application/json' \
  -d '{"position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "move": {"notation": "a1"}}'
echo

echo "## an unknown game: HTTP 404"
curl -sS -w '\nHTTP %{http_code}' "$HTTP/v1/games/chess:newGame" -H 'Content-Type: application/json' -d '{}'
echo

echo "## the OpenAPI document of the API (generated from the protos)"
curl -sS "$HTTP/openapi.json"
echo

echo "## health: live, and ready (the gRPC server behind it is serving)"
curl -sS "$HTTP/healthz"
echo
curl -sS "$HTTP/readyz"
echo
