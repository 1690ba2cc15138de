#!/bin/sh
# Installs llamactl for the current user, without Go and without root:
#
#   curl -fsSL https://github.com/llamactl/llamactl/releases/latest/download/install.sh | sh
#
# It downloads the release's checksums.txt and the archive for this OS and
# CPU, checks the archive's SHA-256 against checksums.txt, checks that the
# binary runs, and only then puts it in ~/.local/bin. A checksum mismatch or
# a failed download installs nothing.
#
# Environment:
#   LLAMACTL_INSTALL_BASE  where checksums.txt and the archives are (default:
#                          the latest GitHub release; a mirror, a local folder
#                          served over HTTP, or .../releases/download/vX.Y.Z
#                          for one version)
#   LLAMACTL_INSTALL_DIR   where to put llamactl (default: ~/.local/bin)
#
# Everything is inside main, called on the last line, so a script cut short
# while downloading runs nothing.
set -u

DEFAULT_BASE="https://github.com/llamactl/llamactl/releases/latest/download"

say() { printf '%s\n' "$*"; }
fail() {
	printf 'llamactl install: %s\n' "$*" >&2
	exit 1
}

download() { # URL FILE
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --retry 2 --connect-timeout 20 -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1"
	else
		fail "neither curl nor wget is installed: install one (sudo apt install curl), then run this again"
	fi
}

sha256() { # FILE -> hex digest
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	elif command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 -r "$1" | cut -d' ' -f1
	else
		fail "no sha256sum, shasum or openssl to verify the download: install coreutils; nothing was installed"
	fi
}

main() {
	base="${LLAMACTL_INSTALL_BASE:-$DEFAULT_BASE}"
	base="${base%/}"
	dir="${LLAMACTL_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}"

	case "$(uname -s)" in
	Linux) os=linux ;;
	MINGW* | MSYS* | CYGWIN* | Windows_NT)
		fail "this is Windows: in PowerShell run  irm $DEFAULT_BASE/install.ps1 | iex" ;;
	*) fail "llamactl releases are built for Linux and Windows, not $(uname -s); with Go 1.26: go install github.com/llamactl/llamactl/cmd/llamactl@latest" ;;
	esac
	case "$(uname -m)" in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) fail "no llamactl release for the $(uname -m) CPU (there are amd64 and arm64); with Go 1.26: go install github.com/llamactl/llamactl/cmd/llamactl@latest" ;;
	esac

	sha256 /dev/null >/dev/null || exit 1 # fails with its message when no tool exists

	tmp="$(mktemp -d 2>/dev/null || mktemp -d -t llamactl)" || fail "could not create a temporary folder"
	trap 'rm -rf "$tmp"' EXIT
	trap 'rm -rf "$tmp"; say "llamactl install: interrupted; nothing was installed" >&2; exit 130' INT TERM HUP

	say "Downloading $base/checksums.txt"
	download "$base/checksums.txt" "$tmp/checksums.txt" ||
		fail "could not download $base/checksums.txt (offline, a proxy, or a wrong LLAMACTL_INSTALL_BASE?); nothing was installed"

	suffix="_${os}_${arch}.tar.gz"
	matches="$(awk -v suf="$suffix" '{ n = $2; sub(/^\*/, "", n); if (n ~ /^llamactl_[0-9][0-9A-Za-z.+~-]*_[a-z]+_[a-z0-9]+\.tar\.gz$/ && substr(n, length(n) - length(suf) + 1) == suf && $1 ~ /^[0-9a-fA-F]+$/ && length($1) == 64) print $1, n }' "$tmp/checksums.txt")"
	count="$(printf '%s' "$matches" | grep -c . || true)"
	[ "$count" = 1 ] || {
		[ "$count" = 0 ] && fail "$base/checksums.txt names no llamactl archive for $os/$arch; nothing was installed"
		fail "$base/checksums.txt names $count llamactl archives for $os/$arch: point LLAMACTL_INSTALL_BASE at one release; nothing was installed"
	}
	want="$(printf '%s' "$matches" | cut -d' ' -f1 | tr 'A-F' 'a-f')"
	name="$(printf '%s' "$matches" | cut -d' ' -f2)"
	version="${name#llamactl_}"
	version="${version%"$suffix"}"

	say "Downloading $base/$name"
	download "$base/$name" "$tmp/$name" ||
		fail "the download of $name failed or was cut off; nothing was installed. Run this again."
	got="$(sha256 "$tmp/$name")"
	[ "$got" = "$want" ] ||
		fail "checksum mismatch for $name: expected $want (checksums.txt), got $got. The download is damaged or was altered; nothing was installed."

	mkdir "$tmp/x" && tar -xzf "$tmp/$name" -C "$tmp/x" llamactl ||
		fail "could not unpack llamactl from $name; nothing was installed"
	"$tmp/x/llamactl" version >/dev/null 2>&1 ||
		fail "the downloaded llamactl does not run on this machine ($os/$arch); nothing was installed"

	mkdir -p "$dir" || fail "could not create $dir; set LLAMACTL_INSTALL_DIR to a folder you can write"
	cp "$tmp/x/llamactl" "$dir/.llamactl.new.$$" && chmod 755 "$dir/.llamactl.new.$$" &&
		mv -f "$dir/.llamactl.new.$$" "$dir/llamactl" || {
		rm -f "$dir/.llamactl.new.$$"
		fail "could not write $dir/llamactl; set LLAMACTL_INSTALL_DIR to a folder you can write"
	}

	say "Installed llamactl $version to $dir/llamactl"
	case ":${PATH:-}:" in
	*":$dir:"*) say "Next: llamactl doctor" ;;
	*)
		say "$dir is not on your PATH. Add it (then open a new terminal):"
		say "  echo 'export PATH=\"$dir:\$PATH\"' >> ~/.profile"
		say "Next: $dir/llamactl doctor"
		;;
	esac
}

main "$@"
