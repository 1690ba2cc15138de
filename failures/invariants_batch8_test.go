package failures

import "testing"

// The invariants added for batch 8's dev logs (issue #15, h-tune8): each log
// names the expected ID with the expected confidence; the probable ones carry
// their evidence lines.
func TestBatch8Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// llama.cpp's argument errors behind any prefix a supervisor adds
		// (llama-swap, docker compose, a timestamp on top of both)
		{"llama-swap-1  | error while handling argument \"--flash-attn\": error: unkown value for --flash-attn: '--ctx-size'", "engine-flag-fa-value", false},
		{"2025-09-04T10:00:00.123456789Z llama-swap-1  | error while handling argument \"--flash-attn\": error: unkown value for --flash-attn: '--ctx-size'", "engine-flag-fa-value", false},
		{"[INFO] <qwen> error while handling argument \"-fa\": expected value for argument", "engine-flag-fa-value", false},
		{"2025-09-04T10:00:00Z llama-1  | error while handling argument \"--draft-max\": the argument has been removed. use --spec-draft-n-max", "engine-flag-removed", false},
	})
}

// Near-misses: the same words for something else, or one of the two signals
// alone. The ID in each case must not be named.
func TestBatch8NearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// another flag's bad value is not -fa's
		{"error while handling argument \"--cache-type-k\": error: unknown value for --cache-type-k: 'q4'", "engine-flag-fa-value"},
		{"llama-1  | error while handling argument \"--ctx-size\": expected value for argument", "engine-flag-fa-value"},
		// the words inside another word are not the message
		{"noerror while handling argument \"--flash-attn\": expected value for argument", "engine-flag-fa-value"},
	})
}
