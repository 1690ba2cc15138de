#!/usr/bin/env bash
# Installs what the test suites need, when run as root, without changing the
# machine's own apt configuration: a private sources file and lists dir are
# used, bookworm packages are installed with -t bookworm, and sid packages
# (llama.cpp's CPU binaries) are unpacked with dpkg -x into a private prefix.
# Idempotent: every step checks before it acts.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="${LLAMACTL_DEPS_DIR:-/var/cache/llamactl-deps}"
ENGINE_DIR="$STATE/engine"

log() { printf 'deps: %s\n' "$*" >&2; }

if [[ "$(id -u)" != 0 ]]; then
  log "not root: skipping package installation (tests needing missing tools will skip)"
  exit 0
fi

. /etc/os-release 2>/dev/null || true
if [[ "${ID:-}" != debian ]]; then
  # Ubuntu and derivatives: no Debian sid to borrow llama.cpp from; install what
  # the distribution has (nvidia-cuda-toolkit needs multiverse) and let the
  # tests that need the rest skip with their reason.
  log "${ID:-unknown} is not Debian: installing what its own apt has"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || true
  for p in cmake ninja-build g++-11 pocl-opencl-icd ocl-icd-libopencl1 ocl-icd-opencl-dev clinfo git nvidia-cuda-toolkit; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      apt-get install -y -qq --no-install-recommends "$p" >/dev/null || log "could not install $p"
  done
  exit 0
fi

mirror_uri() {
  # Take the Debian mirror from the machine's existing apt sources.
  local uri=""
  if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
    uri=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  fi
  if [[ -z "$uri" && -f /etc/apt/sources.list ]]; then
    uri=$(awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if ($i ~ /^(https?|file):/) {print $i; exit}}' /etc/apt/sources.list || true)
  fi
  [[ -n "$uri" ]] || { log "cannot find a Debian mirror in /etc/apt/sources*"; exit 1; }
  printf '%s' "$uri"
}

APTDIR="$STATE/apt"
mkdir -p "$APTDIR/lists/partial" "$APTDIR/parts" "$APTDIR/prefs"
URI="$(mirror_uri)"
cat >"$APTDIR/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $URI bookworm main contrib non-free non-free-firmware
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $URI sid main
SRC
APT=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o "Dir::Etc::SourceParts=$APTDIR/parts"
     -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Etc::PreferencesParts=$APTDIR/prefs"
     -o "APT::Default-Release=bookworm" -o Acquire::Retries=3)
export DEBIAN_FRONTEND=noninteractive

need_update=1
if [[ -f "$APTDIR/updated" ]] && [[ $(( $(date +%s) - $(stat -c %Y "$APTDIR/updated") )) -lt 86400 ]]; then
  need_update=0
fi

PKGS=(cmake ninja-build ccache g++-11 pocl-opencl-icd ocl-icd-libopencl1 ocl-icd-opencl-dev clinfo nvidia-cuda-toolkit git)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [[ ${#missing[@]} -gt 0 || ! -x "$ENGINE_DIR/bin/llama-server" ]]; then
  if [[ $need_update == 1 ]]; then
    log "apt-get update (private lists in $APTDIR)"
    apt-get "${APT[@]}" update -qq
    touch "$APTDIR/updated"
  fi
fi

if [[ ${#missing[@]} -gt 0 ]]; then
  log "installing from bookworm: ${missing[*]}"
  apt-get "${APT[@]}" install -y -qq --no-install-recommends -t bookworm "${missing[@]}" >/dev/null
fi

# llama.cpp CPU binaries from sid, unpacked privately (they need sid's libc).
if [[ ! -x "$ENGINE_DIR/bin/llama-server" ]]; then
  log "unpacking llama.cpp CPU binaries from sid into $ENGINE_DIR"
  DL="$STATE/debs"
  mkdir -p "$DL" "$ENGINE_DIR/root"
  # The runtime closure of llama.cpp-tools in sid (its libc, libstdc++ and ggml).
  SID_PKGS=(llama.cpp-tools llama.cpp-tools-extra libggml0-backend-rpc libllama0 libggml0 libc6 libgcc-s1 libstdc++6 libgomp1 libssl3t64 zlib1g)
  (cd "$DL" && apt-get "${APT[@]}" download -t sid "${SID_PKGS[@]}" >/dev/null 2>&1)
  for deb in "$DL"/*.deb; do dpkg -x "$deb" "$ENGINE_DIR/root"; done
  "$ROOT/scripts/mkengine.sh" "$ENGINE_DIR"
  # Prove the engine starts; sid moves, so say exactly what is missing if not.
  if ! "$ENGINE_DIR/bin/llama-server" --version 2>&1 | grep -q '^version:'; then
    L="$ENGINE_DIR/root/usr/lib/x86_64-linux-gnu"
    log "llama-server from sid does not start; libraries it cannot find:"
    "$L/ld-linux-x86-64.so.2" --library-path "$L:$L/llama" --list "$ENGINE_DIR/root/usr/bin/llama-server" 2>&1 | grep 'not found' >&2 || true
    log "add the sid packages that provide them to SID_PKGS in scripts/deps.sh"
    rm -rf "$ENGINE_DIR/bin"  # so the next run retries
    exit 1
  fi
fi
# Further suites' set-up, one script each (wine, the real llama.cpp tree, the
# Vulkan device, ...), in name order; each is idempotent and caches its work.
for s in "$ROOT"/scripts/deps.d/*.sh; do
  [[ -e "$s" ]] || continue
  log "running ${s#"$ROOT"/}"
  LLAMACTL_DEPS_DIR="$STATE" bash "$s"
done
log "ok"
