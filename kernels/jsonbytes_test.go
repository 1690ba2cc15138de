package kernels

import (
	"encoding/json"
	"testing"
)

// probe --json's findings keep their bytes now that kernels.Finding is the
// shared shape: the wants are what the former kernels.Finding marshalled
// (every field set, then only the required ones).
func TestFindingJSONBytesUnchanged(t *testing.T) {
	full := Finding{ID: "probe.cuda", Message: "probe.cuda/known", Status: Error, FailureID: "cuda-no-device",
		Summary: "s", Details: []string{"d1", "d2"}, Fix: &Fix{Text: "fix", Commands: []string{"c1"}}, Facts: map[string]string{"b": "2", "a": "1"}}
	min := Finding{ID: "probe.opencl", Message: "probe.opencl/ok", Status: OK, Summary: "s"}
	for _, c := range []struct {
		f    Finding
		want string
	}{
		{full, `{"id":"probe.cuda","message":"probe.cuda/known","status":"error","failure_id":"cuda-no-device","summary":"s","details":["d1","d2"],"fix":{"text":"fix","commands":["c1"]},"facts":{"a":"1","b":"2"}}`},
		{min, `{"id":"probe.opencl","message":"probe.opencl/ok","status":"ok","summary":"s"}`},
	} {
		b, err := json.Marshal(c.f)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("got  %s\nwant %s", b, c.want)
		}
	}
}
