#include "stream.cuh"

void fixture_copy(fixture_stream &s) {
    s.pending = 0;
}
