package failures

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// How far can any reader of the excerpt get? readability.tsv (written by
// readers who never ran explain and never saw its output, turn 8) says of each
// held-out log whether its labelled cause can be read from the excerpt alone:
//
//	ok        a success log (nothing to name)
//	none      a failure whose cause has no ID (silence is right)
//	stated    a knowledgeable reader of the excerpt alone names the cause
//	indirect  the excerpt points to it, "probably"
//	absent    only the thread establishes it: a careful reader names nothing
//
// A fifth column may flag a doubt (label: the excerpt seems to show another
// cause; paste: not a real log). TestEvalReadability crosses these classes
// with explain's verdicts and prints counts only (never a log), so it tells
// what share of the held-out figure is reachable at all and where the misses
// sit, without telling a matcher writer which logs they are.
const readabilityFile = "readability.tsv"

var readabilityClasses = []string{"ok", "none", "stated", "indirect", "absent"}

type readability struct {
	slug, split, class, doubt string
}

// parseReadability reads the judgments: slug, split, class, doubt, note
// (tab-separated; '#' starts a comment line).
func parseReadability(r *bufio.Scanner) ([]readability, error) {
	valid := map[string]bool{}
	for _, c := range readabilityClasses {
		valid[c] = true
	}
	var out []readability
	n := 0
	for r.Scan() {
		n++
		line := strings.TrimRight(r.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 4 {
			return nil, fmt.Errorf("line %d: %d fields, want slug, split, class, doubt[, note]", n, len(f))
		}
		j := readability{slug: strings.TrimSpace(f[0]), split: strings.TrimSpace(f[1]), class: strings.TrimSpace(f[2]), doubt: strings.TrimSpace(f[3])}
		if !valid[j.class] {
			return nil, fmt.Errorf("line %d: class %q is not one of %v", n, j.class, readabilityClasses)
		}
		switch j.doubt {
		case "-", "label", "paste":
		default:
			return nil, fmt.Errorf("line %d: doubt %q is not -, label or paste", n, j.doubt)
		}
		out = append(out, j)
	}
	return out, r.Err()
}

// readabilityTable is the crossing of the readers' classes with explain's
// verdicts.
type readabilityRow struct {
	logs, correct, silentMiss, confidentWrong, hedgedWrong, doubtLabel, doubtPaste int
}

func TestEvalReadability(t *testing.T) {
	path := os.Getenv("LLAMACTL_READABILITY")
	if path == "" {
		path = filepath.Join(publicCorpusDir, readabilityFile)
	}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("%s: no readability judgments", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	judged, err := parseReadability(bufio.NewScanner(f))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	m := readManifest(t)
	bySlug := map[string]corpusLog{}
	for _, l := range m.Logs {
		bySlug[l.Slug] = l
	}
	heldOut := map[string]bool{}
	for _, s := range m.heldOutSplits() {
		heldOut[s] = true
	}
	rows := map[string]*readabilityRow{}
	for _, c := range readabilityClasses {
		rows[c] = &readabilityRow{}
	}
	seen := map[string]bool{}
	for _, j := range judged {
		l, ok := bySlug[j.slug]
		switch {
		case !ok:
			t.Errorf("%s: not in the manifest", j.slug)
			continue
		case l.Split != j.split || !heldOut[l.Split]:
			t.Errorf("%s: judged as %s, the manifest has it in %s (only held-out logs are judged)", j.slug, j.split, l.Split)
			continue
		case seen[j.slug]:
			t.Errorf("%s: judged twice", j.slug)
			continue
		case (j.class == "ok") != (l.Kind == "ok"):
			t.Errorf("%s: class %s for a %s log", j.slug, j.class, l.Kind)
			continue
		case l.Kind == "fail" && (j.class == "none") != (len(l.Expect) == 0):
			t.Errorf("%s: class %s for a failure expecting %v", j.slug, j.class, l.Expect)
			continue
		}
		seen[j.slug] = true
		b, err := os.ReadFile(filepath.Join(publicCorpusDir, l.File))
		if err != nil {
			t.Fatal(err)
		}
		v := judgeLog(Default(), string(b), l.Expect)
		r := rows[j.class]
		r.logs++
		switch {
		case v.correct(l.Expect):
			r.correct++
		case len(v.confidentWrong) > 0:
			r.confidentWrong++
		case len(v.hedgedWrong) > 0:
			r.hedgedWrong++
		default:
			r.silentMiss++
		}
		switch j.doubt {
		case "label":
			r.doubtLabel++
		case "paste":
			r.doubtPaste++
		}
	}
	total := 0
	for _, l := range m.Logs {
		if heldOut[l.Split] {
			total++
		}
	}
	t.Logf("[figures] readability: %d of %d held-out logs judged", len(seen), total)
	var all readabilityRow
	for _, c := range readabilityClasses {
		r := rows[c]
		t.Logf("[figures] readability %-8s logs %3d: explain correct %3d, silent %3d, confident wrong %d, hedged wrong %d (readers doubt the label of %d, the paste of %d)",
			c, r.logs, r.correct, r.silentMiss, r.confidentWrong, r.hedgedWrong, r.doubtLabel, r.doubtPaste)
		all.logs += r.logs
		all.correct += r.correct
	}
	if all.logs == 0 {
		return
	}
	reach := rows["ok"].logs + rows["none"].logs + rows["stated"].logs
	pct := func(a int) string {
		return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(a)/float64(all.logs), a, all.logs)
	}
	t.Logf("[figures] readability: explain correct %s; a reader naming every stated cause and nothing else %s; every stated and indirect cause %s",
		pct(all.correct), pct(reach), pct(reach+rows["indirect"].logs))
}

func TestParseReadability(t *testing.T) {
	good := "# comment\na\ttest\tstated\t-\tnote\nb\ttest2\tabsent\tlabel\n\nc\ttest3\tok\tpaste\tx\r\n"
	got, err := parseReadability(bufio.NewScanner(strings.NewReader(good)))
	if err != nil || len(got) != 3 || got[1].class != "absent" || got[1].doubt != "label" || got[2].doubt != "paste" {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, bad := range []string{"a\ttest\tmaybe\t-\n", "a\ttest\tstated\n", "a\ttest\tstated\tunsure\tx\n"} {
		if _, err := parseReadability(bufio.NewScanner(strings.NewReader(bad))); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
