#!/usr/bin/env bash
# The heal suite (issue #16): every failure class `llamactl build --heal`
# knows, produced for real on the real llama.cpp tree (scripts/deps.d/
# 30-llamacpp-src.sh) with cmake, ninja, g++-11/12, Debian's nvcc 11.8 and
# ccache: each case fails without --heal with the cause and the exact fix,
# and with --heal ends in a working build (CPU: llama-server + llama-cli
# built and verified; CUDA: configure + the first CUDA object), the fix
# printed and recorded in manifest.json. Go test: build/buildcmd
# TestHealRealTree. The CPU cases build like stage 40 (--rpc --portable) in
# folders beside the sources, with the real tree's one ccache (stages
# 40/50/60, scripts/stages/lib/ccache.sh): after stage 40 they compile from
# the cache. LLAMACTL_HEAL_CASES=a,b runs only those cases. Then the
# out-of-memory case (TestHealOutOfMemoryCgroup) on the fixture engine.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
D=${LLAMACTL_DEPS_DIR:-/var/cache/llamactl-deps}
TREE="${LLAMACTL_HEAL_TREE:-$D/llama.cpp-src}"
if [[ ! -f "$TREE/CMakeLists.txt" ]]; then
  echo "no llama.cpp tree at $TREE (scripts/deps.d/30-llamacpp-src.sh; run ./scripts/deps.sh)"
  echo "0 passed, 1 failed"
  exit 1
fi
# This run's clone, under ccache's base folder $D (a folder per run: two runs
# at once do not share one).
find "$D" -maxdepth 1 -name 'heal-run-*' -mmin +240 -exec rm -rf {} + 2>/dev/null
work=$(mktemp -d "$D/heal-run-XXXXXX") || { echo "cannot write $D (run as root, or point LLAMACTL_DEPS_DIR at a writable copy)"; echo "0 passed, 1 failed"; exit 1; }
trap 'rm -rf "$work"' EXIT
W=$work
. scripts/stages/lib/ccache.sh
t0=$SECONDS
LLAMACTL_HEAL_TREE="$TREE" LLAMACTL_HEAL_WORK="$work" \
  go test -count=1 -run '^TestHealRealTree$' -v -timeout 45m ./build/buildcmd/ >"$work/test.log" 2>&1
rc=$?
grep -E '^\s+heal_real_test\.go:[0-9]+: (without|with) --heal|^\s*--- (PASS|FAIL|SKIP)' "$work/test.log"
passed=$(grep -cE '^\s+--- PASS: TestHealRealTree/' "$work/test.log")
failed=$(grep -cE '^\s+--- FAIL: TestHealRealTree/' "$work/test.log")
if [[ $rc != 0 ]]; then
  grep -vE '^=== (RUN|PAUSE|CONT)' "$work/test.log" | tail -80
  [[ $failed == 0 ]] && failed=1
fi
# A real out-of-memory compile (the fixture engine, 4 sources of about 350
# MiB each, -j 4 in a cgroup limited to 600 MiB, as root): exit 4 with
# compiler-out-of-memory and "-j 2" without --heal; with --heal, fewer-jobs
# until it builds. About 30 s.
t1=$SECONDS
LLAMACTL_HEAL_OOM=1 go test -count=1 -run '^TestHealOutOfMemoryCgroup$' -v -timeout 15m ./build/buildcmd/ >"$work/oom.log" 2>&1
orc=$?
grep -E 'oom_linux_test\.go:[0-9]+: with(out)? --heal|^--- (PASS|FAIL|SKIP)|^\s+oom_linux_test\.go:[0-9]+: (cgroup|no memory)' "$work/oom.log"
if [[ $orc != 0 ]]; then
  grep -vE '^=== (RUN|PAUSE|CONT)' "$work/oom.log" | tail -40
  failed=$((failed + 1))
elif grep -qE '^--- PASS: TestHealOutOfMemoryCgroup' "$work/oom.log"; then
  passed=$((passed + 1))
fi
echo "out-of-memory case: $((SECONDS - t1)) s"
rc=$((rc | orc))
echo "heal suite: $((SECONDS - t0)) s, ccache: $(ccache_hits)"
echo "$passed passed, $failed failed"
[[ $rc == 0 && $failed == 0 && $passed -gt 0 ]]
