/* ggml-base of the fixture engine: a shared library that llama-cli links, so
 * that a build's binaries depend on a versioned library beside them the way
 * llama.cpp's do (libggml-base.so.0, libllama.so.0, libmtmd.so.0). */
#include "fixture-backend.h"

FIXTURE_API int fixture_base_abi(void) { return 0; }
