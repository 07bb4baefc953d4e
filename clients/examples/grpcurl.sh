#!/usr/bin/env bash
# The gRPC API with grpcurl (https://github.com/fullstorydev/grpcurl), against a running server (`make run`).
# The server has reflection on, so grpcurl needs no .proto file.
#
#   bash clients/examples/grpcurl.sh                              # the server on localhost:50051
#   GAMERULES_GRPC_TARGET=server.example:50051 bash clients/examples/grpcurl.sh
#
# The JSON bodies are the proto3 JSON mapping, as over REST, but the game goes in the body ("game").
# tests/clients/test_examples.py sends every request below through gRPC reflection (as grpcurl does) and
# checks the answers; grpcurl itself is not installed on the test machines.
set -euo pipefail
if [[ -n "${GAMERULES_GRPC:-}" && -z "${GAMERULES_GRPC_TARGET:-}" ]]; then  # release 0.1.0's name, for one more release
    echo "grpcurl.sh: GAMERULES_GRPC is deprecated and will stop working in the next release: use GAMERULES_GRPC_TARGET" >&2
    GAMERULES_GRPC_TARGET="$GAMERULES_GRPC"
fi
GRPC="${GAMERULES_GRPC_TARGET:-localhost:50051}"

echo "## the services"
grpcurl -plaintext "$GRPC" list

echo "## the GameRules service and its methods"
grpcurl -plaintext "$GRPC" describe gamerules.v1.GameRules

echo "## the games"
grpcurl -plaintext -d '{}' "$GRPC" gamerules.v1.GameRules/ListGames

echo "## a new game"
grpcurl -plaintext -d '{"game": "games/reversi", "options": {"size": 8}, "seed": "1"}' "$GRPC" gamerules.v1.GameRules/NewGame

echo "## the legal moves"
grpcurl -plaintext -d '{"game": "games/reversi", "position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}}' "$GRPC" gamerules.v1.GameRules/LegalMoves

echo "## play a move"
grpcurl -plaintext -d '{"game": "games/reversi", "position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "move": {"notation": "d3"}}' "$GRPC" gamerules.v1.GameRules/ApplyMove

echo "## replay moves"
grpcurl -plaintext -d '{"game": "games/reversi", "position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "moves": [{"notation": "d3"}, {"notation": "c5"}]}' "$GRPC" gamerules.v1.GameRules/ApplyMoves

echo "## the score"
grpcurl -plaintext -d '{"game": "games/reversi", "position": {"notation": "......../......../...B..../...BB.../...BW.../......../......../........ 2 black=1"}}' "$GRPC" gamerules.v1.GameRules/Score

echo "## the best move, with a 5 s deadline (the server answers before it)"
grpcurl -plaintext -max-time 5 -d '{"game": "games/reversi", "position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "level": "expert", "topN": 2}' "$GRPC" gamerules.v1.GameRules/BestMove

echo "## the analysis streamed as the search deepens (one message per iteration, then the answer)"
grpcurl -plaintext -d '{"game": "games/kalah", "position": {"notation": "4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4"}, "limits": {"maxDepth": 6}}' "$GRPC" gamerules.v1.GameRules/AnalyzePosition

echo "## a game reviewed, streamed: the plan, one message per move, then the summary"
grpcurl -plaintext -d '{"game": "games/reversi", "moves": [{"notation": "f5"}, {"notation": "d6"}, {"notation": "c3"}]}' "$GRPC" gamerules.v1.GameRules/ReviewGame

echo "## a board image (a google.api.HttpBody: the SVG, base64 in JSON)"
grpcurl -plaintext -d '{"game": "games/reversi", "position": {"notation": "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"}, "showLegalMoves": true}' "$GRPC" gamerules.v1.GameRules/RenderPosition

echo "## health (what Kubernetes' gRPC probes ask)"
grpcurl -plaintext -d '{"service": "gamerules.v1.GameRules"}' "$GRPC" grpc.health.v1.Health/Check
