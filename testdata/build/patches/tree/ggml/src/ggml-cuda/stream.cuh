#pragma once
// A header that uses CUDA runtime types without including their header: the
// cuda-stream-t failure in miniature.
#include <cstddef>

struct fixture_stream {
    cudaStream_t stream;
    size_t pending;
};
