// Command gamerules-example plays a short game of every game against a running gamerules service, once over
// gRPC (the stubs protoc-gen-go and protoc-gen-go-grpc generate from the protos: `make stubs`) and once over
// REST (the same generated messages, sent and read as proto3 JSON with protojson): a new game, its legal
// moves, the first of them applied, the score, and the best move of the position that follows; then one
// error (an illegal move) handled on each transport.
//
//	gamerules-example -grpc localhost:50051 -http http://localhost:8080
//
// Each step prints one line, `GAME TRANSPORT STEP: ...`.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	gamerulesv1 "gamerules/gen/go/gamerules/v1"

	protov1 "github.com/golang/protobuf/proto"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

const (
	seed    = "1" // the start position's randomness (Petak Sawah's rocks, random Strands boards)
	shown   = 6   // legal moves printed (after their count)
	timeout = 5 * time.Second
)

// A best move the same on every run: a fixed search depth and seed, no time limit.
func search(game string, position *gamerulesv1.Position) *gamerulesv1.BestMoveRequest {
	limits := &gamerulesv1.SearchLimits{MaxDepth: 2}
	return &gamerulesv1.BestMoveRequest{Game: game, Position: position, Limits: limits, Seed: seed}
}

func say(game, transport, step, format string, args ...interface{}) {
	fmt.Printf("%s %s %s: %s\n", game, transport, step, fmt.Sprintf(format, args...))
}

func listed(count int32, moves []*gamerulesv1.Move) string {
	names := []string{}
	for i, move := range moves {
		if i == shown {
			names = append(names, "...")
			break
		}
		names = append(names, move.GetNotation())
	}
	return fmt.Sprintf("%d (%s)", count, strings.Join(names, " "))
}

func toMove(value *int32) string {
	if value == nil {
		return "none"
	}
	return fmt.Sprint(*value)
}

func joined(scores []int32) string {
	parts := make([]string, len(scores))
	for i, score := range scores {
		parts[i] = fmt.Sprint(score)
	}
	return strings.Join(parts, "-")
}

// rpc is one of the two transports: the same requests and answers, over gRPC or as JSON over HTTP.
type rpc interface {
	name() string
	call(request, answer proto.Message) error
}

type grpcTransport struct{ client gamerulesv1.GameRulesClient }

func (t grpcTransport) name() string { return "grpc" }

// call sends the request with the generated client's method for it, with a deadline.
func (t grpcTransport) call(request, answer proto.Message) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var got proto.Message
	var err error
	switch request := request.(type) {
	case *gamerulesv1.NewGameRequest:
		got, err = t.client.NewGame(ctx, request)
	case *gamerulesv1.LegalMovesRequest:
		got, err = t.client.LegalMoves(ctx, request)
	case *gamerulesv1.ApplyMoveRequest:
		got, err = t.client.ApplyMove(ctx, request)
	case *gamerulesv1.ScoreRequest:
		got, err = t.client.Score(ctx, request)
	case *gamerulesv1.BestMoveRequest:
		got, err = t.client.BestMove(ctx, request)
	default:
		return fmt.Errorf("no method for %T", request)
	}
	if err != nil {
		return err
	}
	proto.Merge(answer, got)
	return nil
}

type restTransport struct {
	base   string
	client *http.Client
}

func (t restTransport) name() string { return "rest" }

// restVerbs holds each request's custom verb: its route is POST /v1/games/{game}:VERB (the protos'
// google.api.http rules), with the request as the body.
var restVerbs = map[string]string{
	"NewGameRequest":    "newGame",
	"LegalMovesRequest": "legalMoves",
	"ApplyMoveRequest":  "applyMove",
	"ScoreRequest":      "score",
	"BestMoveRequest":   "bestMove",
}

// restError is an answer other than 200: the HTTP status and the google.rpc.Status the gateway sends.
type restError struct {
	httpStatus int
	status     *spb.Status
}

func (e *restError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.httpStatus, e.status.GetMessage())
}

func (t restTransport) call(request, answer proto.Message) error {
	message := request.ProtoReflect()
	verb, known := restVerbs[string(message.Descriptor().Name())]
	if !known {
		return fmt.Errorf("no route for %T", request)
	}
	game := message.Get(message.Descriptor().Fields().ByName("game")).String()
	body, err := protojson.Marshal(request)
	if err != nil {
		return err
	}
	url := fmt.Sprintf("%s/v1/games/%s:%s", t.base, game, verb)
	response, err := t.client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer response.Body.Close()
	text, err := io.ReadAll(response.Body)
	if err != nil {
		return err
	}
	if response.StatusCode != http.StatusOK {
		failure := &spb.Status{}
		if err := protojson.Unmarshal(text, protov1.MessageV2(failure)); err != nil {
			return fmt.Errorf("HTTP %d: %s", response.StatusCode, text)
		}
		return &restError{httpStatus: response.StatusCode, status: failure}
	}
	// Fields this build does not know yet (a newer server) are skipped, as gRPC skips them.
	return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(text, answer)
}

func play(t rpc, game string) error {
	start := &gamerulesv1.NewGameResponse{}
	if err := t.call(&gamerulesv1.NewGameRequest{Game: game, Seed: seed}, start); err != nil {
		return err
	}
	position := &gamerulesv1.Position{Notation: start.GetPosition().GetNotation()}
	say(game, t.name(), "new-game", "%s", position.Notation)
	legal := &gamerulesv1.LegalMovesResponse{}
	if err := t.call(&gamerulesv1.LegalMovesRequest{Game: game, Position: position}, legal); err != nil {
		return err
	}
	say(game, t.name(), "legal-moves", "%s", listed(legal.GetTotalSize(), legal.GetMoves()))
	move := &gamerulesv1.Move{Notation: legal.GetMoves()[0].GetNotation()}
	step := &gamerulesv1.ApplyMoveResponse{}
	request := &gamerulesv1.ApplyMoveRequest{Game: game, Position: position, Move: move}
	if err := t.call(request, step); err != nil {
		return err
	}
	next := &gamerulesv1.Position{Notation: step.GetPosition().GetNotation()}
	say(game, t.name(), "apply", "%s -> %s", move.Notation, next.Notation)
	score := &gamerulesv1.ScoreResponse{}
	if err := t.call(&gamerulesv1.ScoreRequest{Game: game, Position: next}, score); err != nil {
		return err
	}
	say(game, t.name(), "score", "%s (to move: %s)", joined(score.GetScores()), toMove(score.ToMove))
	best := &gamerulesv1.BestMoveResponse{}
	if err := t.call(search(game, next), best); err != nil {
		return err
	}
	say(game, t.name(), "best-move", "%s (depth %d, value %v)", best.GetMove().GetNotation(), best.GetDepth(),
		best.GetValue())
	return nil
}

// illegalMove plays a1, no legal opening move in Reversi, and reports what the service said.
func illegalMove(t rpc, start string) error {
	request := &gamerulesv1.ApplyMoveRequest{
		Game:     "reversi",
		Position: &gamerulesv1.Position{Notation: start},
		Move:     &gamerulesv1.Move{Notation: "a1"},
	}
	err := t.call(request, &gamerulesv1.ApplyMoveResponse{})
	if err == nil {
		return fmt.Errorf("a1 was accepted")
	}
	var failure *spb.Status
	prefix := ""
	if rest, ok := err.(*restError); ok {
		failure, prefix = rest.status, fmt.Sprint(rest.httpStatus)
	} else if grpcStatus, ok := status.FromError(err); ok {
		failure, prefix = grpcStatus.Proto(), grpcStatus.Code().String()
	} else {
		return err
	}
	reason, fields := details(failure)
	say("error", t.name(), "illegal-move", "%s %s [%s] %s", prefix, reason, strings.Join(fields, ","),
		failure.GetMessage())
	return nil
}

// unpack reads one detail. The google.rpc packages Debian ships predate protobuf's APIv2, so their messages
// go through the v1 package's adapter; with a newer genproto, proto.Unmarshal takes them as they are.
func unpack(value []byte, message protov1.Message) error {
	return proto.Unmarshal(value, protov1.MessageV2(message))
}

// details reads the ErrorInfo reason and every field the error is about (a BadRequest's field violations,
// then a PreconditionFailure's subjects) from a google.rpc.Status.
func details(failure *spb.Status) (string, []string) {
	reason, fields := "", []string{}
	for _, detail := range failure.GetDetails() {
		switch {
		case strings.HasSuffix(detail.GetTypeUrl(), "/google.rpc.ErrorInfo"):
			info := &errdetails.ErrorInfo{}
			if unpack(detail.GetValue(), info) == nil {
				reason = info.GetReason()
			}
		case strings.HasSuffix(detail.GetTypeUrl(), "/google.rpc.BadRequest"):
			bad := &errdetails.BadRequest{}
			if unpack(detail.GetValue(), bad) == nil {
				for _, violation := range bad.GetFieldViolations() {
					fields = append(fields, violation.GetField())
				}
			}
		case strings.HasSuffix(detail.GetTypeUrl(), "/google.rpc.PreconditionFailure"):
			precondition := &errdetails.PreconditionFailure{}
			if unpack(detail.GetValue(), precondition) == nil {
				for _, violation := range precondition.GetViolations() {
					fields = append(fields, violation.GetSubject())
				}
			}
		}
	}
	return reason, fields
}

func run(target, base string) error {
	// Plaintext, as `make run` serves (grpc-go from 1.34 on also has insecure.NewCredentials for this; Debian's
	// is 1.33). With TLS: grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, "")).
	conn, err := grpc.Dial(target, grpc.WithInsecure())
	if err != nil {
		return err
	}
	defer conn.Close()
	client := gamerulesv1.NewGameRulesClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	games, err := client.ListGames(ctx, &gamerulesv1.ListGamesRequest{})
	if err != nil {
		return err
	}
	ids := []string{}
	for _, game := range games.GetGames() {
		ids = append(ids, game.GetId())
	}
	say("all", "grpc", "games", "%s", strings.Join(ids, " "))
	reversi, err := client.NewGame(ctx, &gamerulesv1.NewGameRequest{Game: "reversi"})
	if err != nil {
		return err
	}
	transports := []rpc{grpcTransport{client}, restTransport{base, &http.Client{Timeout: timeout}}}
	for _, t := range transports {
		for _, game := range ids {
			if err := play(t, game); err != nil {
				return fmt.Errorf("%s over %s: %w", game, t.name(), err)
			}
		}
	}
	for _, t := range transports {
		if err := illegalMove(t, reversi.GetPosition().GetNotation()); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	target := flag.String("grpc", envOr("GAMERULES_TARGET", "localhost:50051"), "the gRPC server, host:port")
	base := flag.String("http", envOr("GAMERULES_HTTP", "http://localhost:8080"), "the REST gateway's URL")
	flag.Parse()
	if err := run(*target, *base); err != nil {
		log.Fatal(err)
	}
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}
