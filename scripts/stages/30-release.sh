#!/usr/bin/env bash
# The release stage: builds the snapshot release (scripts/release --snapshot)
# and checks it as a user would meet it: the stamped version, the installer
# against dist/ served on 127.0.0.1 (good, tampered, cut-off downloads), the
# Windows binary under wine, Authenticode and checksum signatures, the .deb,
# the SBOMs and the scoop/winget manifests. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT="$PWD"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "  ok   $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL $*"; }
finish() {
  echo "release: $pass passed, $fail failed"
  [[ $fail == 0 ]]
  exit
}
W="$(mktemp -d)"
servers=()
cleanup() {
  for p in "${servers[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$W"
}
trap cleanup EXIT

t0=$SECONDS
if ./scripts/release --snapshot >"$W/release.log" 2>&1; then
  ok "scripts/release --snapshot ($((SECONDS - t0)) s)"
else
  tail -40 "$W/release.log"
  bad "scripts/release --snapshot failed (log above)"
  finish
fi
D="$ROOT/dist"
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' "$D/metadata.json")
[[ -n "$version" ]] && ok "snapshot version $version" || bad "no version in dist/metadata.json"

go build -o "$W/releasetool" ./scripts/releasetool || { bad "build scripts/releasetool"; finish; }

# --- the linux/amd64 archive: contents and the stamped version
lin="$D/llamactl_${version}_linux_amd64.tar.gz"
mkdir -p "$W/lin"
if tar -xzf "$lin" -C "$W/lin"; then
  missing=""
  for f in llamactl README.md LICENSE docs/doctor.md docs/release.md; do [[ -e "$W/lin/$f" ]] || missing+=" $f"; done
  [[ -z "$missing" ]] && ok "linux/amd64 archive has llamactl, README.md, LICENSE, docs/" || bad "linux/amd64 archive lacks$missing"
  out=$("$W/lin/llamactl" version 2>&1)
  [[ "$out" == "llamactl $version (commit "* ]] && ok "archive's llamactl version: $out" || bad "archive's llamactl version says: $out"
  if ldd "$W/lin/llamactl" 2>/dev/null | grep -q libnvidia; then bad "links libnvidia-ml"; else ok "binary does not link NVML (dlopen at run time)"; fi
  if objdump -T "$W/lin/llamactl" 2>/dev/null | grep -q 'GLIBC_[0-9]'; then
    bad "binary needs versioned glibc symbols: $(objdump -T "$W/lin/llamactl" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
  else
    ok "binary needs no versioned glibc symbol (CGO_ENABLED=0)"
  fi
  if compgen -G "/usr/lib/*/libnvidia-ml.so.1" >/dev/null && [[ ! -e /proc/driver/nvidia/version ]]; then
    nv=$("$W/lin/llamactl" __probe nvml 2>&1)
    [[ "$nv" == *'"status": "ERROR_DRIVER_NOT_LOADED"'* ]] && ok "release binary reads NVML without cgo: ERROR_DRIVER_NOT_LOADED" || bad "release binary's NVML probe: $nv"
  fi
else
  bad "cannot unpack $lin"
fi

# The arm64 binaries cannot run here: their stamped version is checked in the bytes.
for t in linux_arm64_v8.0/llamactl windows_arm64_v8.0/llamactl.exe; do
  grep -aq "$version" "$D/llamactl_$t" && ok "$t carries the stamped version" || bad "$t lacks the stamped version $version"
done

# --- checksums and their SSH signature
(cd "$D" && sha256sum --quiet -c checksums.txt) && ok "every file in checksums.txt matches" || bad "checksums.txt does not match dist/"
verify_sig() { ssh-keygen -Y verify -f "$D/allowed_signers" -I llamactl-release -n llamactl-release -s "$D/checksums.txt.sig" <"$1" >/dev/null 2>&1; }
verify_sig "$D/checksums.txt" && ok "checksums.txt.sig verifies (ssh-keygen -Y verify)" || bad "checksums.txt.sig does not verify"
sed 's/^\(.\)/0/' "$D/checksums.txt" >"$W/checksums.tampered"
verify_sig "$W/checksums.tampered" && bad "a changed checksums.txt still verifies" || ok "a changed checksums.txt fails the signature check"

# --- SBOMs: one CycloneDX document per archive, listing the modules linked
# into that target (purego is in the Linux binaries only)
for a in "$D"/llamactl_"$version"_*.{tar.gz,zip}; do
  s="$a.sbom.json"
  case "$a" in *_linux_*) has=github.com/ebitengine/purego lacks=none ;; *) has=golang.org/x/sys lacks=github.com/ebitengine/purego ;; esac
  if [[ -s "$s" ]] && grep -q '"bomFormat": *"CycloneDX"' "$s" && grep -q '"name": "github.com/spf13/cobra"' "$s" && grep -q "\"name\": \"$has\"" "$s" && ! grep -q "\"name\": \"$lacks\"" "$s"; then
    ok "SBOM $(basename "$s"): CycloneDX, with $has"
  else
    bad "SBOM $(basename "$s") missing or not this target's modules"
  fi
done

# --- Windows: Authenticode signature, and llamactl.exe runs under wine
for arch in amd64 arm64; do
  "$W/releasetool" unzip "$D/llamactl_${version}_windows_${arch}.zip" llamactl.exe "$W/llamactl-$arch.exe" || { bad "no llamactl.exe in the windows/$arch zip"; continue; }
  if [[ -f "$D/codesign.pem" ]]; then
    osslsigncode verify -in "$W/llamactl-$arch.exe" -CAfile "$D/codesign.pem" >"$W/verify-$arch.log" 2>&1 &&
      grep -q "Signature verification: ok" "$W/verify-$arch.log" && ok "windows/$arch llamactl.exe Authenticode signature verifies" || { cat "$W/verify-$arch.log"; bad "windows/$arch Authenticode verify"; }
  else
    bad "no throw-away code-signing certificate (osslsigncode or openssl missing)"
  fi
done
if [[ -f "$D/codesign.pem" ]]; then
  cp "$W/llamactl-amd64.exe" "$W/tampered.exe" && printf 'X' | dd of="$W/tampered.exe" bs=1 seek=$((1024 * 1024)) conv=notrunc 2>/dev/null
  osslsigncode verify -in "$W/tampered.exe" -CAfile "$D/codesign.pem" >/dev/null 2>&1 && bad "a changed llamactl.exe still verifies" || ok "a changed llamactl.exe fails Authenticode verification"
fi
if [[ -x scripts/wine-run ]]; then
  out=$(WINE_SMOKE_TIMEOUT=120 scripts/wine-run "$W/llamactl-amd64.exe" version 2>/dev/null | tr -d '\r')
  [[ "$out" == "llamactl $version (commit "* ]] && ok "windows/amd64 llamactl.exe version under wine: $out" || bad "llamactl.exe version under wine says: $out"
fi

# --- .deb into a throw-away root; .rpm present
deb="$D/llamactl_${version}_amd64.deb"
if dpkg-deb -x "$deb" "$W/debroot" 2>/dev/null; then
  out=$("$W/debroot/usr/bin/llamactl" --help 2>&1 | head -1)
  [[ -n "$out" && -x "$W/debroot/usr/bin/llamactl" ]] && ok ".deb: /usr/bin/llamactl --help runs: $out" || bad ".deb: /usr/bin/llamactl --help"
  [[ -s "$W/debroot/usr/share/bash-completion/completions/llamactl" && -s "$W/debroot/usr/share/zsh/vendor-completions/_llamactl" && -s "$W/debroot/usr/share/fish/vendor_completions.d/llamactl.fish" ]] &&
    ok ".deb installs bash, zsh and fish completions" || bad ".deb lacks completions"
  [[ "$(dpkg-deb -f "$deb" Package Version | tr '\n' ' ')" == "Package: llamactl Version: "* ]] && ok ".deb control: $(dpkg-deb -f "$deb" Version)" || bad ".deb control fields"
else
  bad "cannot unpack $deb"
fi
rpm=$(ls "$D"/llamactl-*.x86_64.rpm "$D"/llamactl_*_x86_64.rpm "$D"/llamactl_*_amd64.rpm 2>/dev/null | head -1)
[[ -n "$rpm" ]] && [[ "$(head -c 4 "$rpm" | od -An -tx1 | tr -d ' \n')" == edabeedb ]] && ok "rpm $(basename "$rpm")" || bad "no x86_64 .rpm in dist/"

# --- scoop and winget manifests: URLs and hashes of the archives
"$W/releasetool" manifests "$D" >"$W/manifests.log" 2>&1 && ok "$(cat "$W/manifests.log")" || bad "manifests: $(cat "$W/manifests.log")"

# --- install.sh against dist/ served on 127.0.0.1
serve() { # DIR [-cut NAME] -> sets $url
  "$W/releasetool" serve "$@" >"$W/url" 2>"$W/serve.log" &
  servers+=($!)
  for _ in $(seq 300); do [[ -s "$W/url" ]] && break; sleep 0.1; done
  url=$(cat "$W/url")
  : >"$W/url"
}
install_into() { # HOME BASE -> output in $W/install.log, returns install.sh's exit code
  env -i PATH=/usr/bin:/bin HOME="$1" LLAMACTL_INSTALL_BASE="$2" sh "$ROOT/install.sh" >"$W/install.log" 2>&1
}
serve "$D"
good="$url"
if install_into "$W/home1" "$good" && [[ -x "$W/home1/.local/bin/llamactl" ]]; then
  out=$("$W/home1/.local/bin/llamactl" version)
  [[ "$out" == "llamactl $version "* ]] && ok "install.sh installed $out into ~/.local/bin" || bad "installed llamactl says: $out"
  grep -q "llamactl doctor" "$W/install.log" && ok "install.sh prints the next command" || bad "install.sh does not print the next command: $(cat "$W/install.log")"
else
  bad "install.sh from $good: $(cat "$W/install.log")"
fi
out=$(LLAMACTL_INSTALL_BASE="$good" "$W/home1/.local/bin/llamactl" version --check 2>&1)
[[ $? == 0 && "$out" == *"is the latest release"* ]] && ok "version --check against the served release: up to date" || bad "version --check: $out"
t1=$SECONDS
out=$(LLAMACTL_INSTALL_BASE="http://127.0.0.1:9" "$W/home1/.local/bin/llamactl" version --check 2>&1)
rc=$?
[[ $rc == 1 && "$out" == *"could not check for a newer llamactl"* && $((SECONDS - t1)) -le 10 ]] && ok "version --check unreachable: exit 1 in $((SECONDS - t1)) s" || bad "version --check unreachable: exit $rc: $out"

# A tampered archive (checksums.txt unchanged): refused, nothing installed,
# and an existing installation is left as it was.
mkdir -p "$W/tampered"
cp "$D"/checksums.txt "$D"/*.tar.gz "$W/tampered/"
printf 'X' | dd of="$W/tampered/$(basename "$lin")" bs=1 seek=4096 conv=notrunc 2>/dev/null
serve "$W/tampered"
if install_into "$W/home2" "$url"; then bad "install.sh accepted a tampered archive"; else
  grep -q "checksum mismatch" "$W/install.log" && [[ ! -e "$W/home2/.local/bin/llamactl" ]] &&
    ok "tampered archive refused: $(grep -o 'checksum mismatch for [^:]*' "$W/install.log"), nothing installed" || bad "tampered archive: $(cat "$W/install.log")"
fi
before=$(sha256sum <"$W/home1/.local/bin/llamactl")
install_into "$W/home1" "$url"
[[ "$(sha256sum <"$W/home1/.local/bin/llamactl")" == "$before" ]] && ok "a refused update leaves the installed llamactl untouched" || bad "a refused update changed the installed llamactl"

# A download cut off halfway: refused, nothing installed.
serve "$D" -cut "$(basename "$lin")"
if install_into "$W/home3" "$url"; then bad "install.sh accepted a cut-off download"; else
  grep -q "failed or was cut off" "$W/install.log" && [[ ! -e "$W/home3/.local/bin/llamactl" ]] &&
    ok "cut-off download refused, nothing installed" || bad "cut-off download: $(cat "$W/install.log")"
fi
# No server at all.
if install_into "$W/home4" "http://127.0.0.1:9"; then bad "install.sh succeeded without a server"; else
  grep -q "nothing was installed" "$W/install.log" && [[ ! -e "$W/home4/.local/bin" ]] && ok "unreachable base: says so, nothing installed" || bad "unreachable base: $(cat "$W/install.log")"
fi
echo "release: stage took $((SECONDS - t0)) s"
finish
