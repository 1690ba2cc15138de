#!/usr/bin/env bash
# The release stage's tools (scripts/stages/30-release.sh): osslsigncode
# (Authenticode signing of llamactl.exe) from Debian through the private apt
# configuration scripts/deps.sh wrote, and goreleaser + cyclonedx-gomod built
# at pinned versions into $STATE/tools by scripts/release-tools (cached).
# openssl, ssh-keygen and dpkg come with the base system.
set -euo pipefail
STATE="${LLAMACTL_DEPS_DIR:-/var/cache/llamactl-deps}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { printf 'deps(release): %s\n' "$*" >&2; }

missing=()
for p in osslsigncode openssl openssh-client; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  APTDIR="$STATE/apt"
  [[ -f "$APTDIR/sources.list" ]] || { log "no private apt configuration in $APTDIR (scripts/deps.sh writes it)"; exit 1; }
  APT=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o "Dir::Etc::SourceParts=$APTDIR/parts"
       -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Etc::PreferencesParts=$APTDIR/prefs"
       -o "APT::Default-Release=bookworm" -o Acquire::Retries=3)
  [[ -d "$APTDIR/lists" && -n "$(ls "$APTDIR/lists" 2>/dev/null | grep -v partial)" ]] || apt-get "${APT[@]}" update -qq
  log "installing from bookworm: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get "${APT[@]}" install -y -qq --no-install-recommends -t bookworm "${missing[@]}" >/dev/null
fi
LLAMACTL_DEPS_DIR="$STATE" "$ROOT/scripts/release-tools" >/dev/null
