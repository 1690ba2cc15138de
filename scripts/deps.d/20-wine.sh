#!/usr/bin/env bash
# wine >= 9 for the Windows stage (Go 1.26's Windows programs need ProcessPrng,
# which bookworm's wine 8 lacks): a Debian trixie chroot with wine 10, made
# with debootstrap through a private apt configuration. See scripts/wine-run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WINE_SMOKE_BASE="${WINE_SMOKE_BASE:-${LLAMACTL_DEPS_DIR:-/var/cache/llamactl-deps}/wine}" exec "$ROOT/scripts/wine-run" --setup
