package build

import (
	"os"
	"path/filepath"
	"regexp"
)

// RPCWorkerNames are the names llama.cpp gave its RPC worker executable,
// newest first: tools/rpc builds ggml-rpc-server, older trees (examples/rpc,
// tools/rpc before the rename) rpc-server.
var RPCWorkerNames = []string{"ggml-rpc-server", "rpc-server"}

// RPCWorker returns the RPC worker binary's file name in bin, or "".
func RPCWorker(goos, bin string) string {
	for _, n := range RPCWorkerNames {
		if fileExists(filepath.Join(bin, exeName(goos, n))) {
			return exeName(goos, n)
		}
	}
	return ""
}

var targetRE = regexp.MustCompile(`(?m)^\s*set\s*\(\s*TARGET\s+([A-Za-z0-9_.+-]+)\s*\)`)

// RPCWorkerTarget returns the CMake target of the RPC worker in the
// llama.cpp tree src, read from its tools/rpc (or examples/rpc)
// CMakeLists.txt; "rpc-server" when neither names one.
func RPCWorkerTarget(src string) string {
	for _, d := range []string{"tools/rpc", "examples/rpc"} {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(d), "CMakeLists.txt"))
		if err != nil {
			continue
		}
		if m := targetRE.FindSubmatch(b); m != nil {
			return string(m[1])
		}
	}
	return "rpc-server"
}

// ResolveTargets maps the target names a user gives (--target) to the tree's:
// "rpc-server" and "ggml-rpc-server" become the tree's RPC worker target, so
// one spelling builds the worker of any engine version.
func ResolveTargets(src string, targets []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range targets {
		if t == "rpc-server" || t == "ggml-rpc-server" {
			t = RPCWorkerTarget(src)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
