package finding

import (
	"encoding/json"
	"testing"
)

func TestWorst(t *testing.T) {
	for _, c := range []struct {
		fs   []Finding
		want Status
	}{
		{nil, Skipped},
		{[]Finding{{Status: Info}, {Status: Skipped}}, Skipped},
		{[]Finding{{Status: OK}, {Status: Info}}, OK},
		{[]Finding{{Status: OK}, {Status: Warn}, {Status: Skipped}}, Warn},
		{[]Finding{{Status: Error}, {Status: Warn}, {Status: OK}}, Error},
	} {
		if got := Worst(c.fs); got != c.want {
			t.Errorf("Worst(%v) = %s, want %s", c.fs, got, c.want)
		}
	}
}

// With drops empty lines; WithFact makes the map; Args never reach JSON.
func TestBuildersAndJSON(t *testing.T) {
	f := Finding{ID: "a.b", Message: "a.b/ok", Status: OK, Summary: "s", Args: []string{"x", "1"}}.
		With("one", "", "two").WithFact("k", "v")
	if len(f.Details) != 2 || f.Facts["k"] != "v" {
		t.Fatalf("%+v", f)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a.b","message":"a.b/ok","status":"ok","summary":"s","details":["one","two"],"facts":{"k":"v"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	tr := TranslatorFunc(func(f Finding) Finding { f.Summary = "t"; return f })
	if tr.Finding(f).Summary != "t" || f.Summary != "s" {
		t.Error("TranslatorFunc")
	}
}
