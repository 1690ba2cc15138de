package build

import "testing"

func TestSatisfiesCUDA(t *testing.T) {
	cases := []struct {
		v, c string
		ok   bool
	}{
		{"12.4.131", "12.4", true}, {"12.6.85", "12.4", false}, {"12.6.85", ">=12.4,<13", true},
		{"13.0.48", ">=12.4, <13", false}, {"11.8.89", "<=11.8", true}, {"11.8.89", ">11.8", false},
	}
	for _, c := range cases {
		if ok, err := SatisfiesCUDA(c.v, c.c); err != nil || ok != c.ok {
			t.Errorf("SatisfiesCUDA(%s, %s) = %v, %v", c.v, c.c, ok, err)
		}
	}
}

func FuzzParseLockFile(f *testing.F) {
	f.Add("l.toml", []byte("[engine]\nref = \"b9591\"\n[build]\nbackend = \"cuda\"\ncuda = \">=12.4, <13\"\n"))
	f.Add("l.json", []byte(`{"engine":{"ref":"b1"},"build":{"backend":"cpu"}}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		l, err := ParseLockFile(name, data)
		if err == nil && (l.Engine.Ref == "" || l.Build.Backend == "") {
			t.Fatalf("accepted a lock without ref or backend: %+v", l)
		}
	})
}
