#!/usr/bin/env bash
# The real llama.cpp source tree for the build, heal and Vulkan suites.
# Debian does not serve llama.cpp's source package here, but the npm package
# node-llama-cpp ships llama.cpp as a git bundle (llama/gitRelease.bundle, its
# tag in llama/llama.cpp.info.json; https://github.com/withcatai/node-llama-cpp).
# The npm version is pinned so every run builds the same tree. The clone is
# kept read-only in the cache: tests copy it (git worktree/clone) before building.
# Output: $STATE/llama.cpp-src (a git checkout), $STATE/llama.cpp-src.json.
set -euo pipefail
STATE="${LLAMACTL_DEPS_DIR:-/var/cache/llamactl-deps}"
NLC_VERSION="${LLAMACTL_NLC_VERSION:-3.22.1}"
DST="$STATE/llama.cpp-src"
log() { printf 'deps(llama.cpp-src): %s\n' "$*" >&2; }

if [[ -f "$DST/.llamactl-ready" && "$(cat "$DST/.llamactl-ready")" == "$NLC_VERSION" ]]; then
  exit 0
fi
command -v npm >/dev/null || { log "npm is not installed: cannot fetch the llama.cpp tree"; exit 1; }
W="$STATE/npm"
mkdir -p "$W"
tgz="$W/node-llama-cpp-$NLC_VERSION.tgz"
if [[ ! -s "$tgz" ]]; then
  log "npm pack node-llama-cpp@$NLC_VERSION (about 36 MB)"
  (cd "$W" && npm pack --silent "node-llama-cpp@$NLC_VERSION" >/dev/null)
fi
x="$W/x-$NLC_VERSION"
rm -rf "$x" && mkdir -p "$x"
tar -xzf "$tgz" -C "$x" package/llama/llama.cpp.info.json package/llama/gitRelease.bundle
rm -rf "$DST.partial"
git -c advice.detachedHead=false clone -q "$x/package/llama/gitRelease.bundle" "$DST.partial"
git -C "$DST.partial" config user.email llamactl@localhost
git -C "$DST.partial" config user.name llamactl
tag=$(sed -n 's/.*"tag": *"\([^"]*\)".*/\1/p' "$x/package/llama/llama.cpp.info.json")
commit=$(git -C "$DST.partial" rev-parse HEAD)
printf '{"npm_package":"node-llama-cpp@%s","tag":"%s","commit":"%s"}\n' "$NLC_VERSION" "$tag" "$commit" >"$STATE/llama.cpp-src.json"
rm -rf "$DST" && mv "$DST.partial" "$DST"
echo "$NLC_VERSION" >"$DST/.llamactl-ready"
rm -rf "$x"
log "llama.cpp $tag ($commit) in $DST"
