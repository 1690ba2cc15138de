package plan

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
)

// The option history of llama.cpp's CMake interface, as data
// (data/options.json, from llama.cpp's CMakeLists.txt files and their git history).

//go:embed data/options.json
var optionsJSON []byte

// OptionName is one spelling of an option and the builds it is valid for:
// [From, Until); Until 0 means "still valid".
type OptionName struct {
	Name  string `json:"name"`
	From  int    `json:"from,omitempty"`
	Until int    `json:"until,omitempty"`
}

func (n OptionName) validAt(build int) bool {
	return build >= n.From && (n.Until == 0 || build < n.Until)
}

// Lineage is one option through its renames, oldest first.
type Lineage struct {
	ID      string       `json:"id"`
	Backend string       `json:"backend,omitempty"`
	Names   []OptionName `json:"names"`
	Removed string       `json:"removed,omitempty"` // why, when no name is valid any more
	Source  string       `json:"source"`
}

// NetworkOption needs the network during configure or build.
type NetworkOption struct {
	Name   string `json:"name"`
	From   int    `json:"from,omitempty"`
	Off    bool   `json:"off,omitempty"` // llamactl passes =OFF explicitly from From on
	Why    string `json:"why"`
	Source string `json:"source"`
}

// Default is an option llamactl always sets, from build From on (and only
// on OS, when given).
type Default struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	From   int    `json:"from,omitempty"`
	OS     string `json:"os,omitempty"`
	Why    string `json:"why"`
	Source string `json:"source"`
}

// Options is the whole table.
type Options struct {
	Source   string          `json:"source"`
	Lineages []Lineage       `json:"lineages"`
	Network  []NetworkOption `json:"network"`
	Defaults []Default       `json:"defaults"`
	// Requirements are dependencies llama.cpp made mandatory from a build on.
	Requirements []Requirement `json:"requirements"`
}

// Requirement is a dependency llama.cpp needs from build From on.
type Requirement struct {
	ID     string `json:"id"`
	From   int    `json:"from"`
	Why    string `json:"why"`
	Source string `json:"source"`
}

// Requirement returns requirement id.
func (o *Options) Requirement(id string) (Requirement, bool) {
	for _, r := range o.Requirements {
		if r.ID == id {
			return r, true
		}
	}
	return Requirement{}, false
}

// Required says whether requirement id applies to build (an unknown build,
// 0, is taken as recent); false for an unknown id.
func (o *Options) Required(id string, build int) bool {
	r, ok := o.Requirement(id)
	return ok && (build == 0 || build >= r.From)
}

var (
	optsOnce sync.Once
	optsVal  *Options
	optsErr  error
)

// OptionTable returns the embedded option history.
func OptionTable() *Options {
	optsOnce.Do(func() {
		var o Options
		if optsErr = json.Unmarshal(optionsJSON, &o); optsErr == nil {
			optsVal = &o
		}
	})
	if optsErr != nil {
		panic(fmt.Sprintf("build/plan: embedded options.json: %v", optsErr))
	}
	return optsVal
}

// Latest stands for "a current engine" when the build number is unknown.
const Latest = math.MaxInt32

// BackendFlag returns the CMake option that enables backend at build, or an
// error saying why the engine has none.
func (o *Options) BackendFlag(backend string, build int) (string, error) {
	if build <= 0 {
		build = Latest
	}
	for _, l := range o.Lineages {
		if l.Backend != backend {
			continue
		}
		for _, n := range l.Names {
			if n.validAt(build) {
				return n.Name, nil
			}
		}
		return "", fmt.Errorf("llama.cpp %s has no %s backend option (%s first appeared in b%d)", buildName(build), backend, l.Names[0].Name, l.Names[0].From)
	}
	return "", nil // cpu: nothing to pass
}

// NameAt returns the spelling of the lineage of name valid at build.
func (o *Options) NameAt(name string, build int) (string, bool) {
	if build <= 0 {
		build = Latest
	}
	for _, l := range o.Lineages {
		for _, n := range l.Names {
			if n.Name == name {
				for _, m := range l.Names {
					if m.validAt(build) {
						return m.Name, true
					}
				}
				return "", false
			}
		}
	}
	return name, true
}

func buildName(b int) string {
	if b == Latest || b <= 0 {
		return "(current)"
	}
	return fmt.Sprintf("b%d", b)
}

// CacheArg is one -D entry.
type CacheArg struct {
	Name  string `json:"name"`
	Type  string `json:"type,omitempty"`
	Value string `json:"value"`
}

func (a CacheArg) String() string {
	if a.Type != "" {
		return "-D" + a.Name + ":" + a.Type + "=" + a.Value
	}
	return "-D" + a.Name + "=" + a.Value
}

// ParseCacheArg reads "-DNAME=VALUE", "-DNAME:TYPE=VALUE" or "NAME=VALUE".
func ParseCacheArg(s string) (CacheArg, error) {
	t := strings.TrimPrefix(s, "-D")
	eq := strings.IndexByte(t, '=')
	if eq <= 0 {
		return CacheArg{}, fmt.Errorf("--cmake-arg %q is not NAME=VALUE or -DNAME=VALUE", s)
	}
	name, val := t[:eq], t[eq+1:]
	var typ string
	if c := strings.IndexByte(name, ':'); c >= 0 {
		name, typ = name[:c], name[c+1:]
	}
	if name == "" || strings.ContainsAny(name, " \t\"'") {
		return CacheArg{}, fmt.Errorf("--cmake-arg %q: invalid variable name %q", s, name)
	}
	return CacheArg{Name: name, Type: typ, Value: val}, nil
}

// Translation is what happened to one user-given option.
type Translation struct {
	Given   string `json:"given"`
	Name    string `json:"name"`
	Warning string `json:"warning,omitempty"`
}

// Translate maps user cache args to the spellings the engine at build
// understands. Renamed options are translated with a warning; options with no
// replacement are refused with the reason.
func (o *Options) Translate(args []CacheArg, build int) ([]CacheArg, []Translation, error) {
	var out []CacheArg
	var tr []Translation
	for _, a := range args {
		name, ok := o.NameAt(a.Name, build)
		if !ok {
			return nil, nil, fmt.Errorf("-D%s cannot be used with llama.cpp %s: %s", a.Name, buildName(build), o.removedWhy(a.Name, build))
		}
		if name != a.Name {
			tr = append(tr, Translation{Given: a.Name, Name: name,
				Warning: fmt.Sprintf("-D%s is spelled %s in llama.cpp %s; translated", a.Name, name, buildName(build))})
			a.Name = name
		}
		out = append(out, a)
	}
	return out, tr, nil
}

func (o *Options) removedWhy(name string, build int) string {
	for _, l := range o.Lineages {
		for _, n := range l.Names {
			if n.Name != name {
				continue
			}
			first := l.Names[0]
			if build < first.From {
				return fmt.Sprintf("%s first appeared in b%d", first.Name, first.From)
			}
			if l.Removed != "" {
				return l.Removed
			}
			return "no option replaces it"
		}
	}
	return "unknown option"
}

// NetworkFor returns the network option named name, if it is one.
func (o *Options) NetworkFor(name string) (NetworkOption, bool) {
	for _, n := range o.Network {
		if n.Name == name {
			return n, true
		}
	}
	return NetworkOption{}, false
}
