# Sourced by the stages that build the real llama.cpp tree (40-real-engines, 50-heal, 60-vulkan):
# ONE ccache for all three, shared across source and build folders.
#  - CCACHE_DIR: $LLAMACTL_CCACHE_DIR, else $D/ccache ($D: LLAMACTL_DEPS_DIR).
#  - CCACHE_BASEDIR=$D: every tree the stages build lives under $D and every build folder is one
#    level below its tree (SRC/build-*), so ccache rewrites "-I$D/real-tree/src/ggml/include" and
#    "$D/heal-x/llama.cpp/ggml/src/ggml.c" to the same "../ggml/..." and the stages hit each
#    other's objects (and a per-run folder hits the last run's).
#  - CCACHE_NOHASHDIR: the build folder's name stays out of the hash even when -g is given.
#  - CCACHE_COMPILERCHECK=content: a compiler is the same when its bytes are (a reinstalled or
#    restored toolchain keeps its hits; an upgraded one misses), not when its mtime is.
#  - CCACHE_STATSLOG=$W/ccache-stats.log ($W: the stage's scratch folder): this stage's own hits
#    and misses (other runs may share the cache); ccache_hits prints them.
# The stages pass the same flags where they can: 40 and 50's CPU builds are both
# `--backend cpu --rpc --portable` (GGML_USE_RPC is a PUBLIC define of ggml, so a build without
# --rpc shares only ggml-base and ggml-cpu); 60 builds -O1 (half the compile time; see docs/ci.md).
#  - LANG=C, no LC_ALL/LC_CTYPE/LC_MESSAGES: ccache hashes these (they change the compiler's
#    messages), and the heal suite builds with LANG=C (English messages to diagnose); with the
#    runner's LANG=C.UTF-8, stage 40's objects were all misses for stage 50.
export LANG=C
unset LC_ALL LC_CTYPE LC_MESSAGES
export CCACHE_DIR=${LLAMACTL_CCACHE_DIR:-$D/ccache}
mkdir -p "$CCACHE_DIR"
export CCACHE_BASEDIR=$D
export CCACHE_NOHASHDIR=1
export CCACHE_COMPILERCHECK=content
export CCACHE_STATSLOG=$W/ccache-stats.log
# ccache_hits: "H hits, M misses" of this stage's compiles so far.
ccache_hits() {
  # the log, not `ccache --show-log-stats`: ccache 4.7 crashes on an empty one
  # (no log yet: nothing was compiled)
  cat "$CCACHE_STATSLOG" 2>/dev/null | awk '/^(direct|preprocessed)_cache_hit$/{h++} /^cache_miss$/{m++} END{printf "%d hits, %d misses", h, m}'
}
