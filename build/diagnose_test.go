package build

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/llamactl/llamactl/failures"
)

// build --json's diagnoses keep their bytes now that a Diagnosis is the
// knowledge base's finding: the wants are what the former Diagnosis struct
// marshalled; the finding's other fields stay out; it reads back.
func TestDiagnosisJSONBytesUnchanged(t *testing.T) {
	full := Diagnosis{Finding: failures.Finding{ID: "cuda-driver-lib-link", Title: "t", Cause: "c", Fix: "f", Commands: []string{"a", "b"}, Patch: "p", Lines: []int{3, 9},
		Severity: "error", Excerpt: "ex", Source: "https://example.org", Facts: []string{"x"}, Confidence: "certain"}, Advice: []string{"adv"}}
	for _, c := range []struct {
		d    Diagnosis
		want string
	}{
		{full, `{"id":"cuda-driver-lib-link","title":"t","cause":"c","fix":"f","commands":["a","b"],"patch":"p","lines":[3,9],"advice":["adv"]}`},
		{Diagnosis{Finding: failures.Finding{ID: "x"}}, `{"id":"x","title":"","cause":"","fix":""}`},
	} {
		b, err := json.Marshal(c.d)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("got  %s\nwant %s", b, c.want)
		}
		b, _ = json.Marshal(Result{Diagnoses: []Diagnosis{c.d}})
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		back, _ := json.Marshal(r.Diagnoses[0])
		if string(back) != c.want {
			t.Errorf("read back %s", back)
		}
	}
	// KBDiagnose keeps the knowledge base's finding whole (no copy).
	log := "nvcc fatal   : Unsupported gpu architecture 'compute_120'\n"
	want := failures.Default().DiagnoseString(log).Findings
	got := KBDiagnose(log)
	if len(want) == 0 || len(got) != len(want) || !reflect.DeepEqual(got[0].Finding, want[0]) {
		t.Errorf("KBDiagnose %+v, want %+v", got, want)
	}
}
