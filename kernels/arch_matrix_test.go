package kernels

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/matrix"
)

// data/arch.json (which CUDA added and removed each target) is a second
// view of the matrix's per-release target lists; this keeps the two from
// drifting. The matrix starts at CUDA 11.0, so an arch present there counts
// as added "at or before 11.0" (arch.json may then name the older release
// or leave it empty).
func TestArchTableAgreesWithMatrix(t *testing.T) {
	m := matrix.Default()
	mm := func(v string) string {
		p := strings.SplitN(v, ".", 3)
		return p[0] + "." + p[1]
	}
	first := mm(m.Toolkits[0].Version)
	archs := loadTables().archs
	if len(archs) == 0 {
		t.Fatal("data/arch.json has no architectures")
	}
	for sm, row := range archs {
		has := func(tk *matrix.ToolkitFacts) bool {
			if strings.HasSuffix(sm, "a") || strings.HasSuffix(sm, "f") {
				for _, a := range tk.ArchSpecific {
					if a == sm {
						return true
					}
				}
				return false
			}
			n, err := strconv.Atoi(sm)
			if err != nil {
				t.Fatalf("arch %q is not a number", sm)
			}
			for _, s := range tk.SM {
				if s == n {
					return true
				}
			}
			return false
		}
		added, removed, seen := "", "", false
		for i := range m.Toolkits {
			tk := &m.Toolkits[i]
			switch {
			case has(tk) && !seen:
				added, seen = mm(tk.Version), true
			case !has(tk) && seen && removed == "":
				removed = mm(tk.Version)
			}
		}
		if added == first {
			if row.Added != "" && cmpMinor(row.Added, first) > 0 {
				t.Errorf("sm_%s: arch.json says added in %s, the matrix has it in %s", sm, row.Added, first)
			}
		} else if row.Added != added {
			t.Errorf("sm_%s: arch.json says added in %q, the matrix says %q", sm, row.Added, added)
		}
		if seen && row.Removed != removed {
			t.Errorf("sm_%s: arch.json says removed in %q, the matrix says %q", sm, row.Removed, removed)
		}
		if !seen && (row.Removed == "" || cmpMinor(row.Removed, first) > 0) {
			t.Errorf("sm_%s: no matrix release has it, but arch.json says removed in %q", sm, row.Removed)
		}
	}
}

func cmpMinor(a, b string) int {
	pa, pb := strings.SplitN(a, ".", 2), strings.SplitN(b, ".", 2)
	for i := 0; i < 2; i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
