#!/usr/bin/env bash
# 45-vulkan-headers.sh - the Vulkan build toolchain for the Vulkan stage (scripts/stages/60-vulkan.sh):
#  1. the distribution's own (bookworm): libvulkan-dev 1.3.239, glslc, spirv-headers, installed
#     with apt through the private configuration of scripts/deps.sh (the machine's apt sources are
#     left alone). Its headers are too old for current llama.cpp: the stage proves the refusal.
#  2. newer headers from sid (libvulkan-dev 1.4.x and spirv-headers), unpacked privately with
#     dpkg -x into $STATE/vk-headers/root, never installed: the documented way to build a current
#     llama.cpp on Debian 12 / Ubuntu 22.04 without replacing the system's headers
#     (--cmake-arg Vulkan_INCLUDE_DIR=$STATE/vk-headers/root/usr/include).
# Idempotent; run by scripts/deps.sh as root.
set -euo pipefail
STATE="${LLAMACTL_DEPS_DIR:-/var/cache/llamactl-deps}"
log() { printf 'deps/45-vulkan-headers: %s\n' "$*" >&2; }
[[ "$(id -u)" == 0 ]] || { log "not root: skipping"; exit 0; }
. /etc/os-release 2>/dev/null || true
[[ "${ID:-}" == debian ]] || { log "not Debian: skipping"; exit 0; }

APTDIR="$STATE/apt"   # written by scripts/deps.sh: bookworm + sid, the machine's own mirror
[[ -f "$APTDIR/sources.list" ]] || { log "run scripts/deps.sh first (no $APTDIR/sources.list)"; exit 1; }
APT=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o "Dir::Etc::SourceParts=$APTDIR/parts"
     -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Etc::PreferencesParts=$APTDIR/prefs"
     -o "APT::Default-Release=bookworm" -o Acquire::Retries=3)
export DEBIAN_FRONTEND=noninteractive

PKGS=(libvulkan-dev glslc spirv-headers)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  log "installing from bookworm: ${missing[*]}"
  apt-get "${APT[@]}" install -y -qq --no-install-recommends -t bookworm "${missing[@]}" >/dev/null
fi

H="$STATE/vk-headers"
if [[ ! -f "$H/root/usr/include/vulkan/vulkan_core.h" || ! -d "$H/root/usr/include/spirv" ]]; then
  log "unpacking sid's Vulkan and SPIR-V headers into $H/root"
  rm -rf "$H/root" "$H/debs"
  mkdir -p "$H/debs" "$H/root"
  (cd "$H/debs" && apt-get "${APT[@]}" download libvulkan-dev/sid spirv-headers/sid >/dev/null)
  for deb in "$H"/debs/*.deb; do dpkg -x "$deb" "$H/root"; done
fi
v=$(awk '/#define VK_HEADER_VERSION /{print $3}' "$H/root/usr/include/vulkan/vulkan_core.h")
[[ -n "$v" ]] || { log "no VK_HEADER_VERSION in $H/root/usr/include/vulkan/vulkan_core.h"; exit 1; }
log "ok: system headers $(awk '/#define VK_HEADER_VERSION /{print $3}' /usr/include/vulkan/vulkan_core.h), private headers $v in $H/root/usr/include"
