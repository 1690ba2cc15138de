package launch

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// answer is an HTTP that answers every request the same.
type answer struct {
	status int
	body   string
	err    error
	got    []string
}

func (a *answer) Do(_ context.Context, method, url string, body []byte) (int, []byte, error) {
	a.got = append(a.got, method+" "+url+" "+string(body))
	return a.status, []byte(a.body), a.err
}

func TestCompleteAndEmbed(t *testing.T) {
	a := &answer{status: http.StatusOK, body: `{"content":" world","tokens_predicted":8,"timings":{"prompt_per_second":120.5,"predicted_per_second":33.25}}`}
	s := &Server{o: Options{HTTP: a, BaseURL: "http://127.0.0.1:8080"}}
	c, err := s.Complete(context.Background(), "Hello", 8)
	if err != nil || c != (Completion{Content: " world", TokensPredicted: 8, PromptPerSecond: 120.5, TokensPerSecond: 33.25}) {
		t.Fatalf("Complete = %+v, %v", c, err)
	}
	if want := `POST http://127.0.0.1:8080/completion {"cache_prompt":false,"ignore_eos":true,"n_predict":8,"prompt":"Hello"}`; a.got[0] != want {
		t.Errorf("request %q, want %q", a.got[0], want)
	}
	a.body = `[{"embedding":[[0.5,-0.25,1,2,3]]}]`
	e, err := s.Embed(context.Background(), "Hello")
	if err != nil || e.Dimensions != 5 || len(e.Head) != 4 || e.Head[1] != -0.25 {
		t.Fatalf("Embed = %+v, %v", e, err)
	}
}

// Answer sends the grammar with a greedy sampler and returns the content.
func TestAnswer(t *testing.T) {
	a := &answer{status: http.StatusOK, body: `{"content":"cuda-no-device","tokens_predicted":3}`}
	s := &Server{o: Options{HTTP: a, BaseURL: "http://127.0.0.1:8080"}}
	got, err := s.Answer(context.Background(), "Q: ", `root ::= "a" | "b"`, 16)
	if err != nil || got != "cuda-no-device" {
		t.Fatalf("Answer = %q, %v", got, err)
	}
	if want := `POST http://127.0.0.1:8080/completion {"cache_prompt":false,"grammar":"root ::= \"a\" | \"b\"","n_predict":16,"prompt":"Q: ","temperature":0,"top_k":1}`; a.got[0] != want {
		t.Errorf("request %q, want %q", a.got[0], want)
	}
	for _, cut := range []string{`{"content":"cpu-instr","stop_type":"limit"}`, `{"content":"cpu-instr","stopped_limit":true}`, `{"content":"none","truncated":true}`} {
		a.body = cut
		if _, err := s.Answer(context.Background(), "Q", "root ::= \"a\"", 1); !errors.Is(err, ErrAnswerCut) {
			t.Errorf("%s: %v", cut, err)
		}
	}
	a.body = `{"error":"x"}`
	if _, err := s.Answer(context.Background(), "Q", "root ::= \"a\"", 1); err == nil {
		t.Error("an answer without content was taken")
	}
}

// Errors name the endpoint and keep the server's answer.
func TestRequestErrors(t *testing.T) {
	s := &Server{o: Options{HTTP: &answer{status: http.StatusServiceUnavailable, body: `{"error":"Loading model"}`}, BaseURL: "http://h"}}
	if _, err := s.Complete(context.Background(), "x", 1); err == nil || err.Error() != `completion request: HTTP 503: {"error":"Loading model"}` {
		t.Errorf("Complete error = %v", err)
	}
	refused := errors.New("connection refused")
	s.o.HTTP = &answer{err: refused}
	if _, err := s.Embed(context.Background(), "x"); !errors.Is(err, refused) || !strings.HasPrefix(err.Error(), "embedding request: ") {
		t.Errorf("Embed error = %v", err)
	}
}

func TestTailLines(t *testing.T) {
	s := &Server{}
	for _, l := range []string{"a", "b", "c"} {
		s.line(l)
	}
	if got := s.TailLines(2); got != "b\nc" {
		t.Errorf("TailLines(2) = %q", got)
	}
	if got := s.TailLines(8); got != "a\nb\nc" || got != s.Tail() {
		t.Errorf("TailLines(8) = %q, Tail = %q", got, s.Tail())
	}
}
