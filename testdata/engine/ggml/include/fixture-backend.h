/* The interface every fixture backend library exports. llama-cli loads the
 * libraries it finds beside itself and asks them for their devices. */
#ifndef FIXTURE_BACKEND_H
#define FIXTURE_BACKEND_H
#ifdef _WIN32
#define FIXTURE_API __declspec(dllexport)
#else
#define FIXTURE_API __attribute__((visibility("default")))
#endif
#ifdef __cplusplus
extern "C" {
#endif
/* fixture_backend_name returns the backend's name ("CPU", "CUDA"...). */
FIXTURE_API const char *fixture_backend_name(void);
/* fixture_backend_devices writes one "<name>: <description>" line per
 * device into buf and returns the device count, or -1 with the reason in buf. */
FIXTURE_API int fixture_backend_devices(char *buf, int len);
/* fixture_base_abi is ggml-base's: linking it makes llama-cli need the
 * versioned shared library at load time. */
FIXTURE_API int fixture_base_abi(void);
#ifdef __cplusplus
}
#endif
#endif
