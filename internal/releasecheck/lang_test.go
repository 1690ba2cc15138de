package releasecheck

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/llamactl/llamactl/internal/testutil"
)

var indexedVerb = regexp.MustCompile(`%\[(\d+)\]s`)

// data/messages.zh-CN.json translates every message: each takes exactly
// the English message's arguments, each once, by index; it holds Chinese
// and no English sentence; a bare %s (which would take the arguments in
// English order) is not used.
func TestMessagesZhCN(t *testing.T) {
	zh := messagesZhCN()
	for id, m := range messages() {
		z, ok := zh[id]
		if !ok {
			t.Errorf("%s: no translation", id)
			continue
		}
		if strings.Count(strings.ReplaceAll(z.Text, "%[", ""), "%s") > 0 {
			t.Errorf("%s: %q uses a bare %%s: use %%[n]s", id, z.Text)
		}
		var got []string
		for _, v := range indexedVerb.FindAllStringSubmatch(z.Text, -1) {
			got = append(got, v[1])
		}
		sort.Strings(got)
		var want []string
		for i := range m.Args {
			want = append(want, fmt.Sprint(i+1))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: arguments %v, want %v once each", id, got, want)
		}
		if !strings.ContainsFunc(z.Text, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			t.Errorf("%s: no Chinese: %q", id, z.Text)
		}
		if w := testutil.EnglishPhrase(indexedVerb.ReplaceAllString(z.Text, "{v}")); w != "" {
			t.Errorf("%s: English left (%q): %s", id, w, z.Text)
		}
	}
	for id := range zh {
		if _, ok := messages()[id]; !ok {
			t.Errorf("messages.zh-CN.json has %q, which messages.json lacks (stale)", id)
		}
	}
	e := &Error{Kind: "unreachable", URL: "http://x/checksums.txt", Reason: "connection refused"}
	if got := e.In("zh-CN"); !strings.Contains(got, "http://x/checksums.txt 在 0s 内没有响应（connection refused）") {
		t.Errorf("zh-CN: %s", got)
	}
	if e.In("en") != e.Error() {
		t.Errorf("en: %q, want %q", e.In("en"), e.Error())
	}
}
