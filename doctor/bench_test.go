package doctor

import (
	"context"
	"testing"
)

// BenchmarkRunAllScenarios measures the checks and the selection alone
// (no gathering) over every recorded snapshot.
func BenchmarkRunAllScenarios(b *testing.B) {
	scs := loadScenarios(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, sc := range scs {
			s := sc.Snapshot
			Run(context.Background(), &s, Options{Backend: sc.Backend})
			SelectFor(&s, sc.Backend)
		}
	}
}
