/* A backend without devices of its own (CPU and the GPU backends the fixture
 * cannot really drive): it reports no GPU devices. */
#include <stdio.h>
#include "fixture-backend.h"

const char *fixture_backend_name(void) { return GGML_BACKEND_NAME; }

int fixture_backend_devices(char *buf, int len) {
    if (len > 0) buf[0] = '\0';
    return 0;
}
