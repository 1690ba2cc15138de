package launch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
)

// HTTP is the narrow interface to the engine's HTTP API (health and
// completion), so the launcher is tested without a network.
type HTTP interface {
	Do(ctx context.Context, method, url string, body []byte) (status int, resp []byte, err error)
}

// NetHTTP talks to a real server.
type NetHTTP struct{ Client *http.Client }

func (n NetHTTP) Do(ctx context.Context, method, url string, body []byte) (int, []byte, error) {
	c := n.Client
	if c == nil {
		c = &http.Client{Timeout: 60 * time.Second}
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, b, err
}

// FreePort asks the OS for a free loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Options describe one engine start.
type Options struct {
	Runner  proc.Runner
	Path    string
	Args    []string
	Env     []string
	Log     io.Writer // the engine's output, live; nil = keep it quiet
	BaseURL string    // http://host:port
	HTTP    HTTP
	// MaxRun bounds the engine's whole life (a server runs until stopped).
	MaxRun time.Duration
}

// Server is a running engine.
type Server struct {
	o      Options
	cancel context.CancelFunc
	done   chan struct{}
	res    proc.Result
	err    error

	mu     sync.Mutex
	parser LogParser
	tail   []string
}

// Start launches the engine. Its output is parsed line by line.
func Start(ctx context.Context, o Options) *Server {
	if o.MaxRun <= 0 {
		o.MaxRun = 365 * 24 * time.Hour
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{o: o, cancel: cancel, done: make(chan struct{})}
	lw := &proc.LineWriter{Fn: s.line}
	go func() {
		defer close(s.done)
		s.res, s.err = o.Runner.Run(ctx, proc.Cmd{Name: o.Path, Args: o.Args, Env: o.Env, Timeout: o.MaxRun, Stdout: lw, Stderr: lw})
		lw.Flush()
		// A replayed or fast-failing process reports its output only here.
		if len(s.res.Stdout)+len(s.res.Stderr) > 0 && lw.Lines() == 0 {
			for _, l := range strings.Split(s.res.Combined(), "\n") {
				s.line(l)
			}
		}
	}()
	return s
}

func (s *Server) line(l string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parser.Line(l)
	s.tail = append(s.tail, l)
	if len(s.tail) > 400 {
		s.tail = s.tail[len(s.tail)-200:]
	}
	if s.o.Log != nil {
		fmt.Fprintln(s.o.Log, l)
	}
}

// Report is what the engine has said about its memory so far.
func (s *Server) Report() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parser.Report()
}

// Tail returns the last lines of the engine's output.
func (s *Server) Tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.tail, "\n")
}

// TailLines returns the engine's last n lines of output.
func (s *Server) TailLines(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tail
	if len(t) > n {
		t = t[len(t)-n:]
	}
	return strings.Join(t, "\n")
}

// Exited says whether the engine has stopped.
func (s *Server) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// ErrExited means the engine stopped before it was ready.
var ErrExited = errors.New("the engine exited before it was ready")

// WaitReady polls GET /health until it answers 200, the engine exits, or
// the deadline passes.
func (s *Server) WaitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if s.Exited() {
			return fmt.Errorf("%w (exit code %d)", ErrExited, s.res.ExitCode)
		}
		st, _, err := s.o.HTTP.Do(ctx, http.MethodGet, s.o.BaseURL+"/health", nil)
		if err == nil && st == http.StatusOK {
			return nil
		}
		select {
		case <-ctx.Done():
			if s.Exited() {
				return fmt.Errorf("%w (exit code %d)", ErrExited, s.res.ExitCode)
			}
			return fmt.Errorf("the engine did not answer %s/health within %s", s.o.BaseURL, timeout)
		case <-s.done:
		case <-tick.C:
		}
	}
}

// Stop ends the engine and its process group and waits for it.
func (s *Server) Stop() proc.Result {
	s.cancel()
	<-s.done
	return s.res
}

// Wait blocks until the engine exits on its own or ctx ends (then stops it).
func (s *Server) Wait(ctx context.Context) (proc.Result, error) {
	select {
	case <-s.done:
		return s.res, s.err
	case <-ctx.Done():
		return s.Stop(), ctx.Err()
	}
}

// post sends a JSON request to one of the server's endpoints ("/completion")
// and returns the body of its 200 answer; errors name the endpoint.
func (s *Server) post(ctx context.Context, path string, req any) ([]byte, error) {
	body, _ := json.Marshal(req)
	st, resp, err := s.o.HTTP.Do(ctx, http.MethodPost, s.o.BaseURL+path, body)
	what := strings.TrimPrefix(path, "/")
	if err != nil {
		return nil, fmt.Errorf("%s request: %w", what, err)
	}
	if st != http.StatusOK {
		return nil, fmt.Errorf("%s request: HTTP %d: %.200s", what, st, resp)
	}
	return resp, nil
}

// Completion is the answer to one /completion request.
type Completion struct {
	Content         string  `json:"content"`
	TokensPredicted int     `json:"tokens_predicted"`
	PromptPerSecond float64 `json:"prompt_per_second"`
	TokensPerSecond float64 `json:"predicted_per_second"`
}

// Complete asks the server for n tokens (ignoring end-of-sequence so the
// count is exact).
func (s *Server) Complete(ctx context.Context, prompt string, n int) (Completion, error) {
	resp, err := s.post(ctx, "/completion", map[string]any{"prompt": prompt, "n_predict": n, "ignore_eos": true, "cache_prompt": false})
	if err != nil {
		return Completion{}, err
	}
	var r struct {
		Content         string `json:"content"`
		TokensPredicted int    `json:"tokens_predicted"`
		Timings         struct {
			PromptPerSecond    float64 `json:"prompt_per_second"`
			PredictedPerSecond float64 `json:"predicted_per_second"`
		} `json:"timings"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return Completion{}, fmt.Errorf("completion answer is not JSON: %w", err)
	}
	return Completion{Content: r.Content, TokensPredicted: r.TokensPredicted, PromptPerSecond: r.Timings.PromptPerSecond, TokensPerSecond: r.Timings.PredictedPerSecond}, nil
}

// Answer asks the server for a short greedy answer (at most n tokens) held
// to a GBNF grammar (/completion's "grammar": the model can only say what
// the grammar allows).
func (s *Server) Answer(ctx context.Context, prompt, grammar string, n int) (string, error) {
	resp, err := s.post(ctx, "/completion", map[string]any{"prompt": prompt, "n_predict": n, "grammar": grammar, "temperature": 0, "top_k": 1, "cache_prompt": false})
	if err != nil {
		return "", err
	}
	var r struct {
		Content      *string `json:"content"`
		StopType     string  `json:"stop_type"`     // "eos", "word", "limit" (current servers)
		StoppedLimit bool    `json:"stopped_limit"` // older servers
		Truncated    bool    `json:"truncated"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || r.Content == nil {
		return "", fmt.Errorf("completion answer has no content: %.200s", resp)
	}
	if r.Truncated || r.StopType == "limit" || r.StoppedLimit {
		return *r.Content, fmt.Errorf("%w after %q", ErrAnswerCut, *r.Content)
	}
	return *r.Content, nil
}

// ErrAnswerCut: the engine stopped the answer before the grammar ended it
// (its context or the token limit was reached; a model trained on a short
// context caps the server's).
var ErrAnswerCut = errors.New("the engine cut the answer short: the question did not fit the model's context, or the token limit was reached")

// Embedding is the answer to one /embedding request.
type Embedding struct {
	Dimensions int       `json:"dimensions"`
	Head       []float64 `json:"head"` // the first values, for a glance
}

// Embed asks an embedding server for the pooled embedding of text.
func (s *Server) Embed(ctx context.Context, text string) (Embedding, error) {
	resp, err := s.post(ctx, "/embedding", map[string]any{"content": text})
	if err != nil {
		return Embedding{}, err
	}
	var r []struct {
		Embedding [][]float64 `json:"embedding"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || len(r) == 0 || len(r[0].Embedding) == 0 {
		return Embedding{}, fmt.Errorf("embedding answer has no vector: %.200s", resp)
	}
	v := r[0].Embedding[0]
	return Embedding{Dimensions: len(v), Head: v[:min(4, len(v))]}, nil
}
