package explaincmd

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/support/report"
)

// A support report (report.json, or the zip holding it) is explained build
// by build: the log tails it carries are diagnosed again with this
// llamactl's knowledge base and the report's own snapshot, so an older
// report gets newer knowledge (like `doctor --replay` does for the checks).

var kindRe = regexp.MustCompile(`"kind":\s*"llamactl-report"`)

// maxReport bounds what is read of a report file.
const maxReport = 64 << 20

// BuildDiagnosis is one build of a report, explained.
type BuildDiagnosis struct {
	Build           int                `json:"build"` // 1 = most recent
	Lines           int                `json:"lines"` // lines of its log tail
	Findings        []failures.Finding `json:"findings"`
	UnmatchedErrors []failures.LogLine `json:"unmatched_errors"`
	Error           string             `json:"error,omitempty"` // why the report has no log for it
}

// readReport returns the report in path, or nil when the file is not one
// (then it is read as a log).
func readReport(path string) (*report.Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil // open() reports it
	}
	defer f.Close()
	head, _ := bufio.NewReader(f).Peek(512)
	var data []byte
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		data, err = reportFromZip(path)
		if err != nil {
			return nil, cmdutil.UsageErrorf("%s is a zip but not a llamactl report: %v", path, err)
		}
	// report.json starts with its schema and kind (Doc's field order); any
	// other JSON is a log and is streamed, never read whole.
	case bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte("{")) && kindRe.Match(head):
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil
		}
		data, err = io.ReadAll(io.LimitReader(f, maxReport))
		if err != nil {
			return nil, nil
		}
	default:
		return nil, nil
	}
	var doc report.Doc
	if json.Unmarshal(data, &doc) != nil || doc.Kind != "llamactl-report" {
		return nil, nil // some other JSON: explain it as text
	}
	if doc.Schema > report.Schema {
		return nil, cmdutil.UsageErrorf("%s is a report of schema %d but this llamactl reads up to %d: update llamactl", path, doc.Schema, report.Schema)
	}
	return &doc, nil
}

func reportFromZip(path string) ([]byte, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	for _, zf := range zr.File {
		if zf.Name != "report.json" {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(io.LimitReader(rc, maxReport))
	}
	return nil, fmt.Errorf("it holds no report.json")
}

// runReport explains every build log of a report.
func runReport(o *Options, kb *failures.KB, doc *report.Doc, s *machine.Snapshot, factsFrom string) error {
	if s == nil && doc.Snapshot != nil {
		s, factsFrom = doc.Snapshot, "the report's snapshot"
	}
	var builds []BuildDiagnosis
	failed := false
	for i, b := range doc.Builds {
		bd := BuildDiagnosis{Build: i + 1, Findings: []failures.Finding{}, UnmatchedErrors: []failures.LogLine{}}
		if b.LogTail == "" {
			bd.Error = "the report holds no log for this build"
			if b.Error != "" {
				bd.Error += ": " + b.Error
			}
		} else {
			d := kb.WithSnapshot(kb.DiagnoseString(b.LogTail), s)
			bd.Lines, bd.Findings, bd.UnmatchedErrors = d.Lines, d.Findings, d.UnmatchedErrors
			for _, f := range d.Findings {
				failed = failed || f.Severity == failures.SeverityError
			}
		}
		builds = append(builds, bd)
	}
	if o.IO.JSON {
		out := Doc{Schema: Schema, Input: o.File, Findings: []failures.Finding{}, UnmatchedErrors: []failures.LogLine{}, FactsFrom: factsFrom, Builds: builds}
		if out.Builds == nil {
			out.Builds = []BuildDiagnosis{}
		}
		if err := ui.WriteJSON(o.IO.Out, out); err != nil {
			return err
		}
	} else {
		p := ui.NewPrinter(o.IO)
		if len(builds) == 0 {
			p.Line(ui.Skip, fmt.Sprintf("%s is a support report without build logs: nothing to explain. Replay its checks with: llamactl doctor --replay %s", o.File, o.File))
		}
		for i, bd := range builds {
			if i > 0 {
				p.Println()
			}
			p.Heading(fmt.Sprintf("Build %d of %s (end of its log)", bd.Build, o.File))
			if bd.Error != "" {
				p.Line(ui.Skip, bd.Error)
				continue
			}
			render(o.IO, kb, fmt.Sprintf("build %d", bd.Build), failures.Diagnosis{Findings: bd.Findings, UnmatchedErrors: bd.UnmatchedErrors, Lines: bd.Lines})
		}
		if factsFrom != "" && len(builds) > 0 {
			p.Println()
			p.Println(p.Dim("Machine facts from " + strings.TrimPrefix(factsFrom, "snapshot ") + "."))
		}
	}
	if failed {
		return cmdutil.Exit(cmdutil.ExitFindings)
	}
	return nil
}
