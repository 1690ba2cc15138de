#!/bin/bash
# record.sh: re-records the engine logs in this folder (root; scripts/deps.d/40-vk-engine.sh
# installed). Each case starts N ggml-rpc-server workers on 127.0.0.1 (Vulkan on lavapipe,
# 256 MiB each unless CAP says otherwise), then sid's llama-server with --rpc over them (and the
# local Vulkan device when LOCAL=1), waits until it listens, stops everything and keeps the lines
# the memory log parser reads (runner/launch/memlog.go). The models are runner/gguf/ggufwrite's
# (scripts/genmodel), the configurations of runner/plan/memory_test.go.
#   usage: record.sh                     all cases
#          record.sh NAME                one case
# With TREE_DIST=DIR (the --out of `llamactl build --source <the real llama.cpp v0.5.0 tree>
# --backend cpu --rpc --target llama-server,rpc-server`, as stage 40 builds it) it records the
# tree-* cases with that llama-server and its CPU workers instead.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../../.." && pwd)
V=${LLAMACTL_DEPS_DIR:-/var/cache/llamactl-deps}/vk
RPC=$V/root/usr/libexec/x86_64-linux-gnu/llama/bin/ggml-rpc-server
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
go build -o "$W/genmodel" "$repo/scripts/genmodel" || exit 1
gen() { [ -f "$W/$1.gguf" ] && return; case $1 in
  m1) "$W/genmodel" -arch llama -layers 8 -embd 512 -ff 1536 -vocab 4096 -type Q8_0 -o "$W/m1.gguf";;
  m3) "$W/genmodel" -arch llama -layers 4 -embd 1024 -heads 8 -heads-kv 4 -ff 2048 -vocab 2048 -type Q8_0 -o "$W/m3.gguf";;
  q3) "$W/genmodel" -arch qwen3 -layers 4 -embd 768 -heads 8 -heads-kv 2 -ff 1536 -vocab 4096 -type Q4_K -o "$W/q3.gguf";;
  g3) "$W/genmodel" -arch gemma3 -layers 6 -embd 512 -ff 1024 -vocab 4096 -type Q8_0 -o "$W/g3.gguf";;
esac; }
port() { while :; do p=$((20000 + RANDOM % 20000)); (echo > /dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo $p; return; }; done; }
# case NAME MODEL WORKERS ARGS...
case1() {
  local name=$1 model=$2 nw=$3; shift 3
  [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ] && return
  gen "$model"
  local pids=() eps=() i p
  for i in $(seq 1 "$nw"); do
    p=$(port)
    if [ -n "${TREE_DIST:-}" ]; then
      LD_LIBRARY_PATH=$TREE_DIST setsid "$TREE_DIST/ggml-rpc-server" -H 127.0.0.1 -p "$p" > "$W/w$i.log" 2>&1 &
    else
      VK_FAKE_TOTAL_MIB=${CAP:-256} GGML_VK_VISIBLE_DEVICES=0 setsid "$repo/scripts/vk-run" "$RPC" -H 127.0.0.1 -p "$p" -d Vulkan0 > "$W/w$i.log" 2>&1 &
    fi
    pids+=($!); eps+=("127.0.0.1:$p")
  done
  for ep in "${eps[@]}"; do for i in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/${ep#*:}") 2>/dev/null && break; sleep 0.2; done; done
  local args=(-m "$W/$model.gguf" --host 127.0.0.1 --port "$(port)" -lv 4 --no-warmup --fit off "$@")
  [ "$nw" -gt 0 ] && args+=(--rpc "$(IFS=,; echo "${eps[*]}")")
  local vis=""; [ "${LOCAL:-0}" = 1 ] && vis=0
  if [ -n "${TREE_DIST:-}" ]; then
    LD_LIBRARY_PATH=$TREE_DIST setsid "$TREE_DIST/llama-server" "${args[@]}" > "$W/s.log" 2>&1 &
  else
    GGML_VK_VISIBLE_DEVICES=$vis VK_FAKE_TOTAL_MIB=${CAP:-256} setsid "$repo/scripts/vk-run" llama-server "${args[@]}" > "$W/s.log" 2>&1 &
  fi
  local sp=$!
  for i in $(seq 600); do grep -q "listening on\|exiting due to\|Aborted\|failed to" "$W/s.log" && break; sleep 0.5; done
  kill -- -"$sp" 2>/dev/null; for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null; done; wait 2>/dev/null
  # each worker's port becomes 50052, 50053... in the order of --rpc (stable, distinct endpoints)
  local subst=() k=0
  for ep in "${eps[@]}"; do subst+=(-e "s/127\.0\.0\.1:${ep#*:}\b/127.0.0.1:$((50052 + k))/g"); k=$((k + 1)); done
  local what="sid llama.cpp 0.7.0 (ggml 0.27.0, Vulkan on lavapipe): $nw RPC worker(s) of ${CAP:-256} MiB, local Vulkan: ${LOCAL:-0}"
  [ -n "${TREE_DIST:-}" ] && what="the real llama.cpp tree v0.5.0 (node-llama-cpp 3.22.1's bundle), CPU build: $nw RPC worker(s) (CPU)"
  { echo "# $what"
    echo "# llama-server $model.gguf $* (--rpc, --host, --port, -lv 4, --no-warmup, --fit off)"
    grep -E "load_tensors: .*buffer size|llama_kv_cache: .*buffer size|llama_context: (n_ctx |n_ubatch|flash_attn|pipeline|.*output buffer size)|sched_reserve: |graph_reserve: failed|offloaded [0-9]+/|listening on" "$W/s.log" \
      | sed -E 's/^[0-9.]+ [IWE] //; s/(http:\/\/127\.0\.0\.1:)[0-9]+/\18080/' | sed "${subst[@]}" -e b
  } > "$here/$name.log"
  echo "$name: $(grep -E '(CPU|_Host) +compute buffer' "$here/$name.log" | tail -1 | sed -E 's/.*= *//') ($(grep -o 'sched copies = [0-9]' "$here/$name.log" | tail -1))"
}
ONLY=${1:-}
if [ -n "${TREE_DIST:-}" ]; then
  case1 tree-m1-c2048-ub512-np1 m1 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
  case1 tree-m1-c4096-ub512-np4 m1 2 -ngl 99 -c 4096 -ub 512 -np 4 -fa on
  case1 tree-m1-c2048-ub256-np1-nofa m1 2 -ngl 99 -c 2048 -ub 256 -np 1 -fa off
  case1 tree-m3-c2048-ub512-np1-q8 m3 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on -ctk q8_0 -ctv q8_0
  case1 tree-g3-c2048-ub512-np1 g3 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
  case1 tree-single-m1-c2048-ub512-np1 m1 1 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
  exit 0
fi
# Pipeline parallelism: two or more devices hold every layer and the output (-ngl 99).
case1 m1-c2048-ub512-np1 m1 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
case1 m1-c2048-ub512-np4 m1 2 -ngl 99 -c 2048 -ub 512 -np 4 -fa on
case1 m1-c2048-ub512-np2 m1 2 -ngl 99 -c 2048 -ub 512 -np 2 -fa on
case1 m1-c4096-ub512-np1 m1 2 -ngl 99 -c 4096 -ub 512 -np 1 -fa on
case1 m1-c1024-ub512-np1 m1 2 -ngl 99 -c 1024 -ub 512 -np 1 -fa on
case1 m1-c2048-ub256-np1 m1 2 -ngl 99 -c 2048 -ub 256 -np 1 -fa on
case1 m1-c2048-ub128-b256-np1 m1 2 -ngl 99 -c 2048 -b 256 -ub 128 -np 1 -fa on
case1 m1-c2048-ub512-np1-nofa m1 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa off
case1 m1-c2048-ub512-np4-nofa m1 2 -ngl 99 -c 2048 -ub 512 -np 4 -fa off
case1 m1-c2048-ub512-np1-q8 m1 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on -ctk q8_0 -ctv q8_0
case1 m1-c2048-ub512-np1-3w m1 3 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
LOCAL=1 case1 m1-c2048-ub512-np1-vk m1 1 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
case1 m3-c2048-ub512-np1 m3 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
case1 m3-c2048-ub256-np4 m3 2 -ngl 99 -c 2048 -ub 256 -np 4 -fa on
case1 m3-c2048-ub512-np1-q8 m3 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on -ctk q8_0 -ctv q8_0
case1 q3-c2048-ub512-np1 q3 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
case1 q3-c3072-ub256-np1-nofa q3 2 -ngl 99 -c 3072 -ub 256 -np 1 -fa off
case1 q3-c2048-ub512-np1-q8 q3 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on -ctk q8_0 -ctv q8_0
case1 g3-c2048-ub512-np1 g3 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
case1 g3-c4096-ub512-np1-nofa g3 2 -ngl 99 -c 4096 -ub 512 -np 1 -fa off
case1 g3-c1024-ub256-np1 g3 2 -ngl 99 -c 1024 -ub 256 -np 1 -fa on
# No pipeline parallelism: one device, the output layer on the CPU, one device chosen (-sm none).
case1 single-m1-c2048-ub512-np1 m1 1 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
case1 partial-m1-c2048-ub512-np1 m1 2 -ngl 8 -c 2048 -ub 512 -np 1 -fa on
case1 smnone-m1-c2048-ub512-np1 m1 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on -sm none -mg 1
# One local Vulkan device (the single-copy buffer, runner/plan/memory_test.go TestHostStagingMeasured):
# a quantized K only, and a head size (96) without rotation matrices.
LOCAL=1 case1 vk-m1-c2048-ub512-np1-q8k m1 0 -ngl 99 -c 2048 -ub 512 -np 1 -fa on -ctk q8_0
LOCAL=1 case1 vk-q3-c2048-ub512-np1-q8 q3 0 -ngl 99 -c 2048 -ub 512 -np 1 -fa on -ctk q8_0 -ctv q8_0
# Workers too small for the pipeline-parallel compute buffers: the engine retries without.
CAP=48 case1 retry-m1-c2048-ub512-np1 m1 2 -ngl 99 -c 2048 -ub 512 -np 1 -fa on
