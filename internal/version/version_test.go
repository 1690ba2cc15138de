package version

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"12.4.131", "12.10", -1},
		{"12.4", "12.4.0", 0},
		{"V12.4.131", "12.4.131", 0},
		{"535.104.05", "535.54.03", 1},
		{"19.41.34123", "19.41", 1},
		{"3.28.3-rc1", "3.28.3", 0},
		{"", "0", 0},
		{"garbage", "1", -1},
		{"13", "12.9", 1},
	}
	for _, c := range cases {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Compare(c.b, c.a); got != -c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

func TestComparePrefix(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"12.3.107", "12.3", 0},
		{"12.4", "12.3", 1},
		{"14.39.33519", "14.40", -1},
		{"14.40.33807", "14.40", 0},
		{"11.8", "12", -1},
		{"12", "12.4", -1},
	}
	for _, c := range cases {
		if got := ComparePrefix(c.a, c.b); got != c.want {
			t.Errorf("ComparePrefix(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestParts(t *testing.T) {
	if got := MustParse("12.4.131").String(); got != "12.4.131" {
		t.Errorf("String = %q", got)
	}
	if got := MajorMinor("12.4.131"); got != "12.4" {
		t.Errorf("MajorMinor = %q", got)
	}
	if got := MajorMinor("12"); got != "12.0" {
		t.Errorf("MajorMinor(12) = %q", got)
	}
	if got := MajorMinor("n/a"); got != "" {
		t.Errorf("MajorMinor(n/a) = %q", got)
	}
	if got := Major("V13.0.48"); got != 13 {
		t.Errorf("Major = %d", got)
	}
	if v := MustParse("535.104.05"); v.Len() != 3 || v.At(1) != 104 || v.At(3) != 0 || v.String() != "535.104.5" {
		t.Errorf("535.104.05 = %v (len %d)", v, v.Len())
	}
}

func TestParseStrict(t *testing.T) {
	for _, ok := range []string{"12.4", "V12.4.131", "535.104.05", "1.2.3.4", "7"} {
		if _, good := ParseStrict(ok); !good {
			t.Errorf("ParseStrict(%q) refused", ok)
		}
	}
	for _, bad := range []string{"", "v", "12.", ".4", "1.2.3.4.5", "12.4-rc1", "1234567", "12..4", "x12"} {
		if _, good := ParseStrict(bad); good {
			t.Errorf("ParseStrict(%q) accepted", bad)
		}
	}
}

func TestConstraints(t *testing.T) {
	cases := []struct {
		v, c string
		ok   bool
	}{
		{"12.4.131", "12.4", true},
		{"12.6.85", "12.4", false},
		{"12.6.85", ">=12.4,<13", true},
		{"13.0.48", ">=12.4, <13", false},
		{"11.8.89", "<=11.8", true},
		{"11.8.89", ">11.8", false},
		{"12.4.131", "==12.4", true},
		{"12.4.131", "!=12.4", false},
		{"12.9", "~>12.4", true},
		{"13.1", "~>12.4", false},
		{"12.4", "", true},
	}
	for _, c := range cases {
		ok, err := Satisfies(c.v, c.c)
		if err != nil || ok != c.ok {
			t.Errorf("Satisfies(%q, %q) = %v, %v; want %v", c.v, c.c, ok, err, c.ok)
		}
	}
	for _, bad := range []string{">=", "twelve", ">=12.x", "<13,>=", "12..4", ">=.4"} {
		if _, err := ParseConstraints(bad); err == nil || !strings.Contains(err.Error(), "bad version constraint") {
			t.Errorf("ParseConstraints(%q) err = %v", bad, err)
		}
	}
	cs, _ := ParseConstraints(" >=12.4 ,<13")
	if cs.String() != ">=12.4, <13" {
		t.Errorf("String = %q", cs.String())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"12.4.131", "V12.4", "535.104.05", "", "3.28.3-rc1", "1.2.3.4.5.6"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		if v.Compare(v) != 0 {
			t.Fatalf("%q != itself", s)
		}
		back := MustParse(v.String())
		if back.Compare(v) != 0 {
			t.Fatalf("%q -> %q does not round-trip", s, v.String())
		}
		_, _ = ParseConstraints(s)
	})
}
