package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/jsonout"
	"github.com/muesli/termenv"
)

// Status is the outcome of a check or step, rendered as a mark: the one
// status vocabulary of internal/finding, under the output layer's names.
type Status = finding.Status

const (
	OK   = finding.OK
	Warn = finding.Warn
	Err  = finding.Error
	Skip = finding.Skipped
	Info = finding.Info
)

// Printer renders human output with or without styles.
type Printer struct {
	w     io.Writer
	color bool
	r     *lipgloss.Renderer

	ok, warn, err, skip, info, bold, dim, heading lipgloss.Style
}

// NewPrinter makes a printer for the command's stdout.
func NewPrinter(io *IOStreams) *Printer { return newPrinter(io.Out, io.Color()) }

// NewErrPrinter makes a printer for stderr (progress, warnings).
func NewErrPrinter(io *IOStreams) *Printer { return newPrinter(io.ErrOut, io.Color()) }

func newPrinter(w io.Writer, color bool) *Printer {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	p := &Printer{w: w, color: color, r: r}
	p.ok = r.NewStyle().Foreground(lipgloss.Color("2"))
	p.warn = r.NewStyle().Foreground(lipgloss.Color("3"))
	p.err = r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
	p.skip = r.NewStyle().Foreground(lipgloss.Color("8"))
	p.info = r.NewStyle().Foreground(lipgloss.Color("4"))
	p.bold = r.NewStyle().Bold(true)
	p.dim = r.NewStyle().Faint(true)
	p.heading = r.NewStyle().Bold(true).Underline(true)
	return p
}

// Mark returns the one-character mark for a status: ✓ ! ✗ - i (an
// ASCIIWriter turns ✓ ✗ into + x on a console that cannot show them).
func (p *Printer) Mark(s Status) string {
	switch s {
	case OK:
		return p.ok.Render("✓")
	case Warn:
		return p.warn.Render("!")
	case Err:
		return p.err.Render("✗")
	case Skip:
		return p.skip.Render("-")
	default:
		return p.info.Render("i")
	}
}

func (p *Printer) Bold(s string) string { return p.bold.Render(s) }
func (p *Printer) Dim(s string) string  { return p.dim.Render(s) }

// Printf writes formatted text.
func (p *Printer) Printf(format string, a ...any) { fmt.Fprintf(p.w, format, a...) }

// Println writes a line.
func (p *Printer) Println(a ...any) { fmt.Fprintln(p.w, a...) }

// Heading writes a section title.
func (p *Printer) Heading(title string) { fmt.Fprintln(p.w, p.heading.Render(title)) }

// Line writes "<mark> text" and indented detail lines below it.
func (p *Printer) Line(s Status, text string, details ...string) { p.line("", s, text, details) }

// line is Line with lead before each line it writes.
func (p *Printer) line(lead string, s Status, text string, details []string) {
	fmt.Fprintf(p.w, "%s%s %s\n", lead, p.Mark(s), text)
	for _, d := range details {
		for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
			fmt.Fprintf(p.w, "%s    %s\n", lead, l)
		}
	}
}

// Table writes aligned columns. Without colour it is plain space-aligned text
// (stable for scripts and golden tests); with colour a lipgloss table.
func (p *Printer) Table(header []string, rows [][]string) {
	if !p.color {
		fmt.Fprint(p.w, PlainTable(header, rows))
		return
	}
	t := table.New().Border(lipgloss.NormalBorder()).BorderRow(false).BorderColumn(false).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderHeader(true).Headers(header...).Rows(rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := p.r.NewStyle().PaddingRight(2)
			if row == table.HeaderRow {
				return s.Bold(true)
			}
			return s
		})
	fmt.Fprintln(p.w, t.Render())
}

// PlainTable renders space-aligned columns, measuring display width.
func PlainTable(header []string, rows [][]string) string {
	all := rows
	if len(header) > 0 {
		all = append([][]string{header}, rows...)
	}
	widths := map[int]int{}
	for _, r := range all {
		for i, c := range r {
			if w := lipgloss.Width(c); w > widths[i] {
				widths[i] = w
			}
		}
	}
	var b strings.Builder
	for _, r := range all {
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-lipgloss.Width(c)+2))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// WriteJSON writes v as indented JSON. Every top-level document llamactl
// prints carries a "schema" integer; callers put it in their struct.
func WriteJSON(w io.Writer, v any) error { return jsonout.Write(w, v) }
