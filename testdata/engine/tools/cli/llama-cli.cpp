// llama-cli of the fixture engine: prints llama.cpp's version banner and, like
// a GGML_BACKEND_DL build, loads the backend libraries beside the executable,
// logging "load_backend: loaded <X> backend from <path>".
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>
#include "fixture-backend.h"

#ifdef _WIN32
#include <windows.h>
static void *open_lib(const std::string &p) { return (void *)LoadLibraryA(p.c_str()); }
static void *sym(void *h, const char *n) { return (void *)GetProcAddress((HMODULE)h, n); }
static std::string lib_error() { return "error " + std::to_string(GetLastError()); }
static const char *kPrefix = "ggml-";
static const char *kSuffix = ".dll";
#else
#include <dlfcn.h>
static void *open_lib(const std::string &p) { return dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL); }
static void *sym(void *h, const char *n) { return dlsym(h, n); }
static std::string lib_error() { const char *e = dlerror(); return e ? e : "unknown error"; }
static const char *kPrefix = "libggml-";
static const char *kSuffix = ".so";
#endif

namespace fs = std::filesystem;

struct backend {
    std::string name;
    int (*devices)(char *, int);
};

static fs::path exe_dir(const char *argv0) {
#ifndef _WIN32
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) return self.parent_path();
#endif
    return fs::absolute(fs::path(argv0)).parent_path();
}

static std::vector<backend> load_backends(const fs::path &dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto &e : fs::directory_iterator(dir, ec)) {
        std::string f = e.path().filename().string();
        if (f.rfind(kPrefix, 0) == 0 && f.size() > strlen(kSuffix) &&
            f.compare(f.size() - strlen(kSuffix), strlen(kSuffix), kSuffix) == 0) {
            files.push_back(e.path());
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<backend> out;
    for (auto &p : files) {
        void *h = open_lib(p.string());
        if (!h) {
            fprintf(stderr, "load_backend: failed to load %s: %s\n", p.string().c_str(), lib_error().c_str());
            continue;
        }
        auto name = (const char *(*)(void))sym(h, "fixture_backend_name");
        auto devs = (int (*)(char *, int))sym(h, "fixture_backend_devices");
        if (!name || !devs) {
            fprintf(stderr, "load_backend: failed to find ggml_backend_init in %s\n", p.string().c_str());
            continue;
        }
        fprintf(stderr, "load_backend: loaded %s backend from %s\n", name(), p.string().c_str());
        out.push_back({name(), devs});
    }
    return out;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--version") == 0) {
            fprintf(stderr, "version: %d (%s)\n", LLAMA_BUILD_NUMBER, LLAMA_COMMIT);
            fprintf(stderr, "built with %s for %s\n", LLAMA_COMPILER, LLAMA_BUILD_TARGET);
            return 0;
        }
        if (strcmp(argv[i], "--list-devices") == 0) {
            std::vector<backend> bs = load_backends(exe_dir(argv[0]));
            printf("Available devices:\n");
            int total = 0;
            for (auto &b : bs) {
                char buf[4096];
                int n = b.devices(buf, sizeof buf);
                if (n < 0) {
                    fprintf(stderr, "%s\n", buf);
                    continue;
                }
                if (n > 0) {
                    printf("  %s", buf);
                    total += n;
                }
            }
            if (total == 0) printf("  (none)\n");
            return 0;
        }
    }
    fprintf(stderr, "error: invalid argument: %s\n", argc > 1 ? argv[1] : "(none)");
    fprintf(stderr, "usage: %s --version | --list-devices\n", argv[0]);
    // A use of ggml-base, so the linker keeps it (--as-needed) and llama-cli
    // needs libggml-base.so.0 at load time, like llama.cpp's binaries.
    return 1 + fixture_base_abi();
}
