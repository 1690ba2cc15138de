// Command releasetool helps scripts/stages/30-release.sh check a snapshot
// release with real files and a real HTTP server:
//
//	releasetool serve DIR [-cut NAME]   serve DIR on 127.0.0.1 (prints the URL, serves until killed);
//	                                    -cut NAME sends half of NAME and drops the connection
//	releasetool unzip ZIP MEMBER OUT    extract one file of a zip archive
//	releasetool manifests DIST          check the scoop and winget manifests' URLs and
//	                                    SHA-256 against the archives in DIST
package main

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "unzip":
		if len(os.Args) != 5 {
			usage()
		}
		err = unzip(os.Args[2], os.Args[3], os.Args[4])
	case "manifests":
		if len(os.Args) != 3 {
			usage()
		}
		err = manifests(os.Args[2])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "releasetool:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: releasetool serve DIR [-cut NAME] | unzip ZIP MEMBER OUT | manifests DIST")
	os.Exit(2)
}

func serve(args []string) error {
	if len(args) < 1 {
		usage()
	}
	dir := args[0]
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	cut := fs.String("cut", "", "file to cut off halfway")
	_ = fs.Parse(args[1:])
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	files := http.FileServer(http.Dir(dir))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *cut != "" && r.URL.Path == "/"+*cut {
			b, err := os.ReadFile(filepath.Join(dir, *cut))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Length", fmt.Sprint(len(b)))
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(b[:len(b)/2])
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			// Drop the connection: the client sees a short body.
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
				}
			}
			return
		}
		files.ServeHTTP(w, r)
	})
	fmt.Printf("http://%s\n", l.Addr())
	os.Stdout.Sync()
	return http.Serve(l, h)
}

func unzip(zipPath, member, out string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != member {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		w, err := os.OpenFile(out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, rc); err != nil {
			w.Close()
			return err
		}
		return w.Close()
	}
	return fmt.Errorf("%s has no %s", zipPath, member)
}

func sha(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// tag is the release's git tag, from goreleaser's dist/metadata.json.
var tag string

// check says whether url is the release download URL of an archive in dist
// whose SHA-256 is sum.
func check(dist, url, sum string) error {
	name := url[strings.LastIndex(url, "/")+1:]
	if want := "https://github.com/llamactl/llamactl/releases/download/" + tag + "/" + name; url != want {
		return fmt.Errorf("%s is not the release's download URL %s", url, want)
	}
	got, err := sha(filepath.Join(dist, name))
	if err != nil {
		return fmt.Errorf("%s names %s, which is not in %s: %v", url, name, dist, err)
	}
	if !strings.EqualFold(got, sum) {
		return fmt.Errorf("%s: manifest says sha256 %s, the archive is %s", name, sum, got)
	}
	return nil
}

func manifests(dist string) error {
	n := 0
	var meta struct {
		Tag string `json:"tag"`
	}
	if b, err := os.ReadFile(filepath.Join(dist, "metadata.json")); err != nil || json.Unmarshal(b, &meta) != nil || meta.Tag == "" {
		return fmt.Errorf("no tag in %s/metadata.json", dist)
	}
	tag = meta.Tag
	// scoop: dist/scoop/llamactl.json (or dist/llamactl.json).
	var scoopPath string
	for _, p := range []string{filepath.Join(dist, "scoop", "llamactl.json"), filepath.Join(dist, "llamactl.json")} {
		if _, err := os.Stat(p); err == nil {
			scoopPath = p
			break
		}
	}
	if scoopPath == "" {
		return fmt.Errorf("no scoop manifest (llamactl.json) in %s", dist)
	}
	var scoop struct {
		Version      string `json:"version"`
		Architecture map[string]struct {
			URL  string `json:"url"`
			Hash string `json:"hash"`
		} `json:"architecture"`
	}
	b, err := os.ReadFile(scoopPath)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &scoop); err != nil {
		return fmt.Errorf("%s: %v", scoopPath, err)
	}
	for _, arch := range []string{"64bit", "arm64"} {
		a, ok := scoop.Architecture[arch]
		if !ok {
			return fmt.Errorf("%s has no %s architecture", scoopPath, arch)
		}
		if err := check(dist, a.URL, a.Hash); err != nil {
			return fmt.Errorf("scoop %s: %v", arch, err)
		}
		n++
	}
	// winget: dist/winget/manifests/l/llamactl/llamactl/VERSION/llamactl.llamactl.installer.yaml
	installers, _ := filepath.Glob(filepath.Join(dist, "winget", "manifests", "*", "llamactl", "llamactl", "*", "llamactl.llamactl.installer.yaml"))
	if len(installers) != 1 {
		return fmt.Errorf("want one winget installer manifest under %s/winget, found %d", dist, len(installers))
	}
	f, err := os.Open(installers[0])
	if err != nil {
		return err
	}
	defer f.Close()
	var url string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "- "))
		if v, ok := strings.CutPrefix(line, "InstallerUrl:"); ok {
			url = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "InstallerSha256:"); ok {
			if url == "" {
				return fmt.Errorf("%s: InstallerSha256 before InstallerUrl", installers[0])
			}
			if err := check(dist, url, strings.TrimSpace(v)); err != nil {
				return fmt.Errorf("winget: %v", err)
			}
			url = ""
			n++
		}
	}
	if n < 4 {
		return fmt.Errorf("checked %d installers, want 2 scoop + 2 winget", n)
	}
	fmt.Printf("scoop and winget: %d URLs (tag %s) and SHA-256 match the archives\n", n, tag)
	return nil
}
