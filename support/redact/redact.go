// Package redact removes personal data and secrets from text that is about
// to leave the machine (the support report): user names in paths, host
// names, GPU UUIDs and serials, MAC and IP addresses, environment values
// outside an allowlist, and anything that looks like a token or key.
//
// Replacements are consistent within one Redactor ("<user>", "<host>",
// "<gpu-uuid-1>"...), so a redacted report still reads right. Leaks is the
// self-check: it looks for every sensitive value the Redactor knows about in
// the final output.
package redact

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

//go:embed data/redact.json
var rulesData []byte

type tokenPattern struct {
	Name   string `json:"name"`
	Re     string `json:"re"`
	Keep   int    `json:"keep,omitempty"`   // capture group kept before the replacement
	Suffix string `json:"suffix,omitempty"` // text put back after the replacement
	re     *regexp.Regexp
}

type rules struct {
	Schema          int            `json:"schema"`
	EnvAllowNames   []string       `json:"env_allow_names"`
	EnvAllowPrefix  []string       `json:"env_allow_prefixes"`
	SecretNameWords []string       `json:"secret_name_words"`
	SecretNames     []string       `json:"secret_names"`
	UserVars        []string       `json:"user_vars"`
	HomeVars        []string       `json:"home_vars"`
	HostVars        []string       `json:"host_vars"`
	NotUsers        []string       `json:"not_users"`
	NotHosts        []string       `json:"not_hosts"`
	Tokens          []tokenPattern `json:"token_patterns"`
}

var ruleset = mustRules()

func mustRules() *rules {
	var r rules
	if err := json.Unmarshal(rulesData, &r); err != nil {
		panic("redact: embedded rules: " + err.Error())
	}
	for i := range r.Tokens {
		r.Tokens[i].re = regexp.MustCompile(r.Tokens[i].Re)
	}
	return &r
}

// Replacement texts.
const (
	Secret   = "<secret>"
	Redacted = "<redacted>"
	Org      = "<org>"
)

// Known is what the caller knows is sensitive on this machine: the real
// user names, host names and secret values (by variable name).
type Known struct {
	Users   []string
	Hosts   []string
	Secrets map[string]string // name (e.g. HF_TOKEN) -> value
	// Private are the environment's other variables outside the allowlist:
	// their values are nobody's business, so "NAME=value" (a `set` or `env`
	// dump in a raw output) becomes "NAME=<redacted>", as in the report's
	// environment table.
	Private map[string]string
}

// FromEnv collects the user names, host names and secret values found in an
// environment.
func FromEnv(env map[string]string) Known {
	k := Known{Secrets: map[string]string{}, Private: map[string]string{}}
	for _, n := range ruleset.UserVars {
		if v := lookup(env, n); v != "" {
			k.Users = append(k.Users, v)
		}
	}
	for _, n := range ruleset.HomeVars {
		if v := lookup(env, n); v != "" {
			if b := baseAny(v); b != "" {
				k.Users = append(k.Users, b)
			}
		}
	}
	for _, n := range ruleset.HostVars {
		if v := lookup(env, n); v != "" {
			k.Hosts = append(k.Hosts, v)
		}
	}
	for name, v := range env {
		if v == "" {
			continue
		}
		if SecretName(name) {
			k.Secrets[name] = v
			continue
		}
		if !EnvAllowed(name) {
			k.Private[name] = v
		}
		// A token-looking value under an innocent name is still a secret.
		for _, t := range ruleset.Tokens {
			if t.re.MatchString(v) {
				k.Secrets[name] = v
				break
			}
		}
	}
	return k
}

func lookup(env map[string]string, name string) string {
	if v, ok := env[name]; ok {
		return v
	}
	for k, v := range env { // Windows variables are case-insensitive
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// baseAny is the last element of a Windows or POSIX path.
func baseAny(p string) string {
	p = strings.TrimRight(strings.ReplaceAll(p, `\`, "/"), "/")
	if p == "" {
		return ""
	}
	return path.Base(p)
}

// SecretName says whether an environment variable's name marks its value as
// a secret (HF_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, MYAPIKEY ...).
func SecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range ruleset.SecretNames {
		if u == s {
			return true
		}
	}
	for _, part := range strings.FieldsFunc(u, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		for _, w := range ruleset.SecretNameWords {
			if part == w || strings.HasSuffix(part, w) && len(w) >= 3 || strings.HasPrefix(part, w) && len(w) >= 5 {
				return true
			}
		}
	}
	return false
}

// EnvAllowed says whether an environment variable's value may appear
// (redacted) in a report; others are replaced by <redacted>.
func EnvAllowed(name string) bool {
	u := strings.ToUpper(name)
	for _, n := range ruleset.EnvAllowNames {
		if u == n {
			return true
		}
	}
	for _, p := range ruleset.EnvAllowPrefix {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// Redactor rewrites text consistently. Not safe for concurrent use.
type Redactor struct {
	users   []string // known user names, longest first
	hosts   []string
	secrets []string // secret values, longest first
	private []string // NAME=value of variables outside the allowlist, longest first
	names   map[string]string
	counts  map[string]int
	seq     map[string]map[string]string // kind -> original -> replacement
	shortRe map[string]*regexp.Regexp
}

// New returns a Redactor for what is known about this machine.
func New(k Known) *Redactor {
	r := &Redactor{counts: map[string]int{}, seq: map[string]map[string]string{}, names: map[string]string{}, shortRe: map[string]*regexp.Regexp{}}
	for _, u := range k.Users {
		r.addUser(u)
	}
	for _, h := range k.Hosts {
		r.addHost(h)
	}
	for name, v := range k.Secrets {
		// cmd.exe's `set X="v"` and .env files keep quotes and spaces the
		// tools that print the value drop: look for the bare value too.
		if bare := strings.Trim(v, " \t\r\n\"'"); bare != v && secretLike(bare) {
			r.secrets = append(r.secrets, bare)
			r.names[bare] = name
		}
		if secretLike(v) {
			r.secrets = append(r.secrets, v)
			r.names[v] = name
		}
		// A secret made of several words: each long part is sensitive too.
		for _, part := range strings.FieldsFunc(v, func(c rune) bool { return unicode.IsSpace(c) || c == ';' || c == ',' }) {
			if secretLike(part) && part != v {
				r.secrets = append(r.secrets, part)
				r.names[part] = name
			}
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	for name, v := range k.Private {
		if strings.TrimSpace(v) != "" {
			r.private = append(r.private, name+"="+v)
		}
	}
	sort.Slice(r.private, func(i, j int) bool { return len(r.private[i]) > len(r.private[j]) })
	return r
}

// secretLike says whether a value from a secret-named variable is worth
// replacing wherever it appears: "true", "1" or "2024-02-01" under
// API_VERSION are not, and replacing them everywhere would wreck the report.
// (The variable itself is always shown as <secret>.)
func secretLike(v string) bool {
	if len(v) >= 12 {
		return true
	}
	if len(v) < 8 {
		return false
	}
	letter, digit := false, false
	for _, c := range v {
		letter = letter || unicode.IsLetter(c)
		digit = digit || unicode.IsDigit(c)
	}
	return letter && digit
}

func (r *Redactor) addUser(u string) {
	u = strings.TrimSpace(u)
	if u == "" || contains(ruleset.NotUsers, u) || strings.HasPrefix(u, "<") {
		return
	}
	// DOMAIN\user and user@domain forms: the user part is the name.
	if i := strings.LastIndexByte(u, '\\'); i >= 0 {
		u = u[i+1:]
	}
	for _, have := range r.users {
		if strings.EqualFold(have, u) {
			return
		}
	}
	r.users = append(r.users, u)
	sort.Slice(r.users, func(i, j int) bool { return len(r.users[i]) > len(r.users[j]) })
	r.replacement("user", strings.ToLower(u))
}

func (r *Redactor) addHost(h string) {
	h = strings.TrimSpace(h)
	if h == "" || contains(ruleset.NotHosts, h) || strings.HasPrefix(h, "<") {
		return
	}
	for _, have := range r.hosts {
		if strings.EqualFold(have, h) {
			return
		}
	}
	r.hosts = append(r.hosts, h)
	r.replacement("host", strings.ToLower(h))
	// The short name of an FQDN is the host too.
	if i := strings.IndexByte(h, '.'); i > 0 {
		r.addHost(h[:i])
	}
	sort.Slice(r.hosts, func(i, j int) bool { return len(r.hosts[i]) > len(r.hosts[j]) })
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if strings.EqualFold(l, s) {
			return true
		}
	}
	return false
}

// replacement returns the stable placeholder of one original value of a
// kind: the first user is <user>, the second <user-2>; GPU UUIDs are
// numbered from 1 (<gpu-uuid-1>).
func (r *Redactor) replacement(kind, original string) string {
	m := r.seq[kind]
	if m == nil {
		m = map[string]string{}
		r.seq[kind] = m
	}
	if p, ok := m[original]; ok {
		return p
	}
	n := len(m) + 1
	var p string
	switch {
	case (kind == "user" || kind == "host") && n == 1:
		p = "<" + kind + ">"
	default:
		p = fmt.Sprintf("<%s-%d>", kind, n)
	}
	m[original] = p
	return p
}

func (r *Redactor) count(kind string) { r.counts[kind]++ }

// Counts returns how many replacements of each kind were made.
func (r *Redactor) Counts() map[string]int {
	out := map[string]int{}
	for k, v := range r.counts {
		out[k] = v
	}
	return out
}

var (
	// C:\Users\name, C:/Users/name, \\Users\\name in JSON, /mnt/c/Users/name,
	// /home/name, /Users/name. The name runs to the next separator; a name
	// with spaces is only taken when a separator follows it.
	winUserSpaced = regexp.MustCompile(`(?i)((?:\b[A-Z]:|/mnt/[a-z])(?:\\+|/)(?:Users|Documents and Settings)(?:\\+|/))([^\\/"'<>|:*?\r\n]+?)(\\|/)`)
	winUserEnd    = regexp.MustCompile(`(?i)((?:\b[A-Z]:|/mnt/[a-z])(?:\\+|/)(?:Users|Documents and Settings)(?:\\+|/))([^\\/"'<>|:*?\s]+)`)
	posixUser     = regexp.MustCompile(`((?:^|[\s"'=:;(\[])/(?:home|Users))/([^/\s"'<>|:;,)\]]+)`)
	// user@host prompts: "dev@box:~$", "root@90d56f7981cb:/src#"
	promptRe = regexp.MustCompile(`(^|[\s(\[])([a-z_][a-z0-9_.-]{0,31})@([A-Za-z0-9][A-Za-z0-9-]{0,62}):([~/])`)
	// OneDrive - Organisation
	oneDriveRe = regexp.MustCompile(`(OneDrive - )([^\\/"'<>|:*?\r\n]+)`)
	gpuUUIDRe  = regexp.MustCompile(`\b(?:GPU|MIG)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)
	serialRe   = regexp.MustCompile(`(?i)(\b(?:serial(?: number)?|board serial|serial_number)"?\s*[:=]\s*"?)([0-9A-Za-z][0-9A-Za-z-]{5,})`)
	macRe      = regexp.MustCompile(`\b[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}\b`)
	// An IPv4 address stands between spaces, quotes, brackets, "=", "/" or a
	// ":port"; four dotted numbers inside a package version (11.11.3.6~11.8)
	// are not one.
	ipv4Re = regexp.MustCompile(`(^|[\s=:("'/@\[,])((?:\d{1,3}\.){3}\d{1,3})([\s/:()"',\]%>;]|$)`)
	ipv6Re = regexp.MustCompile(`(?i)\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b|\b(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,5})?(?:%[0-9a-z]+)?`)
)

// Learn collects user and host names from paths and prompts in s without
// changing it. Calling it on every text of a bundle before redacting makes
// the replacements consistent across all of them.
func (r *Redactor) Learn(s string) {
	for _, re := range []*regexp.Regexp{winUserSpaced, winUserEnd, posixUser} {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			r.addUser(m[2])
		}
	}
	for _, m := range promptRe.FindAllStringSubmatch(s, -1) {
		r.addUser(m[2])
		r.addHost(m[3])
	}
}

// Secrets replaces only the secrets in s: every secret value the Redactor
// knows and every token pattern (keys, bearer tokens, URL passwords, secret
// assignments). User and host names, paths and ids stay. It is the part of
// String that every document llamactl writes goes through, redacted report
// or not (doctor --snapshot, doctor --json).
func (r *Redactor) Secrets(s string) string {
	if s == "" {
		return s
	}
	for _, v := range r.secrets {
		if strings.Contains(s, v) {
			r.count("secret")
			s = strings.ReplaceAll(s, v, Secret)
		}
	}
	return r.tokens(s)
}

func (r *Redactor) tokens(s string) string {
	for _, t := range ruleset.Tokens {
		s = t.re.ReplaceAllStringFunc(s, func(m string) string {
			r.count("secret")
			keep := ""
			if t.Keep > 0 {
				if sub := t.re.FindStringSubmatch(m); len(sub) > t.Keep {
					keep = sub[t.Keep]
				}
			}
			return keep + Secret + t.Suffix
		})
	}
	return s
}

// String redacts one text.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	// Secrets first: a token inside a path or URL must not be half-replaced.
	for _, v := range r.secrets {
		if strings.Contains(s, v) {
			r.count("secret")
			s = strings.ReplaceAll(s, v, Secret)
		}
	}
	for _, kv := range r.private {
		if strings.Contains(s, kv) {
			r.count("env")
			name, _, _ := strings.Cut(kv, "=")
			s = strings.ReplaceAll(s, kv, name+"="+Redacted)
		}
	}
	s = r.tokens(s)
	// User names taken from paths join the known ones, so the bare name is
	// replaced everywhere else too.
	r.Learn(s)
	s = oneDriveRe.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasSuffix(m, Org) {
			return m
		}
		r.count("org")
		return "OneDrive - " + Org
	})
	s = gpuUUIDRe.ReplaceAllStringFunc(s, func(m string) string {
		r.count("gpu-uuid")
		return r.replacement("gpu-uuid", strings.ToLower(m))
	})
	s = serialRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := serialRe.FindStringSubmatch(m)
		r.count("serial")
		return sub[1] + r.replacement("serial", sub[2])
	})
	s = macRe.ReplaceAllStringFunc(s, func(m string) string {
		if strings.Trim(m, "0:-") == "" {
			return m // all-zero placeholder MACs identify nothing
		}
		r.count("mac")
		return r.replacement("mac", strings.ToLower(strings.ReplaceAll(m, "-", ":")))
	})
	// The boundaries are part of a match, so "1.1.1.1 8.8.8.8" needs a
	// second pass for the second address.
	for pass := 0; pass < 3; pass++ {
		before := s
		s = ipv4Re.ReplaceAllStringFunc(s, func(m string) string {
			sub := ipv4Re.FindStringSubmatch(m)
			ip := net.ParseIP(sub[2])
			if ip == nil || ip.IsLoopback() || ip.IsUnspecified() {
				return m
			}
			r.count("ip")
			return sub[1] + r.replacement("ip", sub[2]) + sub[3]
		})
		if s == before {
			break
		}
	}
	s = ipv6Re.ReplaceAllStringFunc(s, func(m string) string {
		host := m
		if i := strings.IndexByte(host, '%'); i >= 0 {
			host = host[:i]
		}
		ip := net.ParseIP(host)
		// Fewer than four groups is more likely C++ ("add::x") than an address.
		if ip == nil || ip.To4() != nil || ip.IsLoopback() || ip.IsUnspecified() || len(strings.FieldsFunc(host, func(c rune) bool { return c == ':' })) < 4 {
			return m
		}
		r.count("ip")
		return r.replacement("ip", strings.ToLower(m))
	})
	// Names last: the replacements above may have put a name next to a
	// word edge ("John0.0.0.1" -> "John<ip-1>").
	for _, u := range r.users {
		s = r.replaceWord(s, u, "user", true)
		if short := shortName(u); short != "" {
			s = r.replaceShort(s, short, u)
		}
	}
	for _, h := range r.hosts {
		s = r.replaceWord(s, h, "host", true)
	}
	return s
}

// replaceWord replaces whole-word occurrences of w (not part of a longer
// name: neighbours are not letters, digits, '_' or '-').
func (r *Redactor) replaceWord(s, w, kind string, fold bool) string {
	if w == "" {
		return s
	}
	repl := r.replacement(kind, strings.ToLower(w))
	var b strings.Builder
	ls, lw := s, w
	if fold {
		ls, lw = strings.ToLower(s), strings.ToLower(w)
		if len(ls) != len(s) { // case folding changed byte lengths: fall back to exact
			ls, lw = s, w
		}
	}
	i := 0
	changed := false
	for {
		j := strings.Index(ls[i:], lw)
		if j < 0 {
			break
		}
		j += i
		end := j + len(lw)
		if wordEdge(s, j-1) && wordEdge(s, end) && !inPlaceholder(s, j, end) {
			b.WriteString(s[i:j])
			b.WriteString(repl)
			r.count(kind)
			changed = true
			i = end
			continue
		}
		b.WriteString(s[i : j+1])
		i = j + 1
	}
	if !changed {
		return s
	}
	b.WriteString(s[i:])
	return b.String()
}

// replaceShort replaces an 8.3 short form of a user folder (JOHNSM~1).
func (r *Redactor) replaceShort(s, short, user string) string {
	return r.shortPattern(short).ReplaceAllStringFunc(s, func(string) string {
		r.count("user")
		return r.replacement("user", strings.ToLower(user))
	})
}

// shortPattern matches the 8.3 forms of a short stem: JOHNSM~1, johnsm~12.
func (r *Redactor) shortPattern(short string) *regexp.Regexp {
	re := r.shortRe[short]
	if re == nil {
		re = regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(short) + `~\d+\b`)
		r.shortRe[short] = re
	}
	return re
}

// shortName is the 8.3 stem Windows makes for a long folder name: the first
// six ASCII letters or digits, upper-cased ("John Smith" -> "JOHNSM"). Names
// that fit in 8 characters have no short form.
func shortName(u string) string {
	var b strings.Builder
	for _, c := range strings.ToUpper(u) {
		if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteRune(c)
		}
	}
	full := b.String()
	if len(full) < 2 || len(u) <= 8 && !strings.ContainsAny(u, " .") {
		return ""
	}
	if len(full) > 6 {
		return full[:6]
	}
	return full
}

// placeholderRe is the shape of every replacement this package writes.
var placeholderRe = regexp.MustCompile(`^<[a-z]+(?:-[a-z]+)*(?:-[0-9]+)?>$`)

// inPlaceholder says whether s[j:end] lies inside a placeholder such as
// <user> or <gpu-uuid-1>: a user literally named "user" must not turn
// "<user>" into "<<user>>".
func inPlaceholder(s string, j, end int) bool {
	open := strings.LastIndexByte(s[:j], '<')
	if open < 0 || j-open > 24 {
		return false
	}
	rel := strings.IndexByte(s[end:], '>')
	if rel < 0 || rel > 24 {
		return false
	}
	return placeholderRe.MatchString(s[open : end+rel+1])
}

func wordEdge(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	c := s[i]
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c >= 0x80)
}

// Env redacts an environment: values outside the allowlist become
// <redacted>, secret-named ones <secret>, and the rest go through String.
func (r *Redactor) Env(env map[string]string) map[string]string {
	return r.EnvAllowing(env, nil, nil)
}

// EnvAllowing is Env with more allowed names and name prefixes (e.g. the
// toolchain variables doctor records), matched case-insensitively. Secret
// names stay <secret> whatever the list says.
func (r *Redactor) EnvAllowing(env map[string]string, names, prefixes []string) map[string]string {
	if env == nil {
		return nil
	}
	allowed := func(k string) bool {
		if EnvAllowed(k) {
			return true
		}
		u := strings.ToUpper(k)
		for _, n := range names {
			if strings.ToUpper(n) == u {
				return true
			}
		}
		for _, p := range prefixes {
			if strings.HasPrefix(u, strings.ToUpper(p)) {
				return true
			}
		}
		return false
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		switch {
		case SecretName(k):
			if v != "" {
				r.count("secret")
			}
			out[k] = Secret
		case !allowed(k):
			r.count("env")
			out[k] = Redacted
		default:
			out[k] = r.String(v)
		}
	}
	return out
}

// Leak is a sensitive value found by the self-check; it names the kind and
// where, never the value.
type Leak struct {
	Kind  string // "user name", "host name", "secret HF_TOKEN", "token (github token)"
	Where string
}

func (l Leak) String() string { return l.Kind + " in " + l.Where }

// Leaks scans text that is about to be written for every sensitive value the
// Redactor knows (the real user and host names, every secret value from the
// environment) and for token patterns.
func (r *Redactor) Leaks(where, text string) []Leak {
	var out []Leak
	lower := strings.ToLower(text)
	for _, u := range r.users {
		if hasWord(text, lower, u) {
			out = append(out, Leak{Kind: "the user name", Where: where})
			break
		}
		// The 8.3 form (C:\Users\JOHNSM~1) names the user as well.
		if short := shortName(u); short != "" && r.shortPattern(short).MatchString(text) {
			out = append(out, Leak{Kind: "the user name (8.3 short form)", Where: where})
			break
		}
	}
	for _, h := range r.hosts {
		if hasWord(text, lower, h) {
			out = append(out, Leak{Kind: "the host name", Where: where})
			break
		}
	}
	for _, v := range r.secrets {
		if strings.Contains(text, v) {
			out = append(out, Leak{Kind: "the value of " + r.names[v], Where: where})
		}
	}
	for _, t := range ruleset.Tokens {
		for _, m := range t.re.FindAllStringSubmatch(text, 4) {
			if !strings.Contains(m[0], Secret) {
				out = append(out, Leak{Kind: "a " + t.Name, Where: where})
				break
			}
		}
	}
	return out
}

func hasWord(s, lower, w string) bool {
	lw := strings.ToLower(w)
	hay := lower
	if len(lower) != len(s) {
		hay, lw = s, w
	}
	for i := 0; ; {
		j := strings.Index(hay[i:], lw)
		if j < 0 {
			return false
		}
		j += i
		if wordEdge(s, j-1) && wordEdge(s, j+len(lw)) && !inPlaceholder(s, j, j+len(lw)) {
			return true
		}
		i = j + 1
	}
}
