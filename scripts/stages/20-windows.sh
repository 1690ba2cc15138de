#!/usr/bin/env bash
# Stage "windows": llamactl's Windows build, executed. Every package's tests
# are built for windows/amd64 and run under wine 10 (scripts/wine-run, set up
# by scripts/deps.d/20-wine.sh), then the smoke suite runs the real
# llamactl.exe with Windows stand-in tools and every recorded Windows machine
# built inside wine (scripts/winsmoke).
# Prints "N passed, N failed" and exits non-zero when anything failed.
# Needs root (chroot, namespaces); elsewhere it says so and fails.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
if [[ "$(id -u)" != 0 ]]; then
  echo "windows stage: needs root to run wine in its chroot (scripts/wine-run)"
  echo "0 passed, 1 failed"
  exit 1
fi
bash scripts/deps.d/20-wine.sh || { echo "windows stage: wine set-up failed"; echo "0 passed, 1 failed"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/llamactl-windows.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/testsum" ./scripts/testsum || exit 1

echo "-- go test under wine (windows/amd64)"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 nice -n 10 go test -p 2 -count=1 -timeout 15m \
  -exec "$root/scripts/wine-test-exec" -json ./... | "$tmp/testsum" | tee "$tmp/unit.txt"
unit_rc=${PIPESTATUS[0]}${PIPESTATUS[1]}
read -r up uf < <(awk '/^[0-9]+ passed, [0-9]+ failed/ { p=$1; f=$3 } END { print p+0, f+0 }' "$tmp/unit.txt")
[[ $unit_rc == 00 ]] || uf=$((uf == 0 ? 1 : uf))

echo "-- smoke: the real llamactl.exe under wine"
LLAMACTL_WINE_SMOKE=1 go test -count=1 -timeout 15m -parallel 4 -json ./scripts/winsmoke | "$tmp/testsum" | tee "$tmp/smoke.txt"
smoke_rc=${PIPESTATUS[0]}${PIPESTATUS[1]}
[[ $smoke_rc == 00 ]] && smoke_rc=0
read -r sp sf < <(awk '/^[0-9]+ passed, [0-9]+ failed/ { p=$1; f=$3 } END { print p+0, f+0 }' "$tmp/smoke.txt")
[[ $smoke_rc == 0 ]] || sf=$((sf == 0 ? 1 : sf))

echo "windows: unit tests $up passed, $uf failed; smoke $sp passed, $sf failed"
echo "$((up + sp)) passed, $((uf + sf)) failed"
[[ $((uf + sf)) == 0 ]]
