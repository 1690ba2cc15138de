#!/bin/bash
# 40-vk-engine.sh - prepare llama.cpp (Debian sid build) + ggml Vulkan backend + Mesa lavapipe
# (software Vulkan on llvmpipe) in a private root $VK_BASE/root (default /var/cache/llamactl-deps/vk), without touching the host's
# dpkg database or /etc/apt.  Idempotent: re-running re-uses what exists.
#   FORCE=1 setup-vk.sh   -> re-download and re-unpack everything
set -euo pipefail
V=${VK_BASE:-${LLAMACTL_DEPS_DIR:-/var/cache/llamactl-deps}/vk}
R=$V/root
L=$R/usr/lib/x86_64-linux-gnu
SRC_ENGINE=${SRC_ENGINE:-${LLAMACTL_DEPS_DIR:-/var/cache/llamactl-deps}/engine/root}  # optional: an unpacked engine root to copy instead of downloading
A=$V/apt
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/etc" "$V/debs" "$V/icd" "$R"
[ -f "$A/status" ] || : > "$A/status"

# --- mirror URI: read at run time from the host's apt config (never hard-coded) ---
MIRROR=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  MIRROR=$(awk 'tolower($1)=="uris:"{for(i=2;i<=NF;i++) if($i !~ /security/){print $i; exit}}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$MIRROR" ] && [ -f /etc/apt/sources.list ]; then
  MIRROR=$(awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if($i ~ /^(https?|file):/){print $i; exit}}' /etc/apt/sources.list)
fi
[ -n "$MIRROR" ] || { echo "cannot determine Debian mirror URI" >&2; exit 1; }
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb [signed-by=$KEYRING] $MIRROR sid main" > "$A/etc/sources.list.new"
if ! cmp -s "$A/etc/sources.list.new" "$A/etc/sources.list" 2>/dev/null; then
  mv "$A/etc/sources.list.new" "$A/etc/sources.list"; rm -f "$A/updated"
else rm -f "$A/etc/sources.list.new"; fi

O=(-o Dir::Etc::SourceList="$A/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
   -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
   -o Dir::State::Lists="$A/lists" -o Dir::State::status="$A/status"
   -o Dir::Cache="$A/cache" -o APT::Sandbox::User=root
   -o Acquire::Check-Valid-Until=false -o APT::Architecture=amd64 -o APT::Architectures::=amd64)
if [ ! -f "$A/updated" ] || [ "${FORCE:-0}" = 1 ]; then
  apt-get "${O[@]}" -q update
  touch "$A/updated"
fi

fetch_unpack() {   # fetch_unpack PKG... : download (if not yet) + unpack into $R
  local p f
  cd "$V/debs"
  for p in "$@"; do
    f=$(ls "${p}"_*.deb 2>/dev/null | head -1 || true)
    if [ -z "$f" ] || [ "${FORCE:-0}" = 1 ]; then
      rm -f "${p}"_*.deb
      apt-get "${O[@]}" -q download "$p/sid" >/dev/null
      f=$(ls "${p}"_*.deb | head -1)
    fi
    if [ ! -f "$V/debs/.unpacked.$f" ] || [ "${FORCE:-0}" = 1 ]; then
      dpkg-deb -x "$f" "$R"; touch "$V/debs/.unpacked.$f"
      echo "unpacked $f"
    fi
  done
}

# --- 1. the engine (sid llama.cpp 0.7.0 / ggml 0.27.0 + sid glibc/libstdc++) ---
if [ ! -x "$R/usr/bin/llama-server" ]; then
  if [ -x "$SRC_ENGINE/usr/bin/llama-server" ]; then
    echo "copying engine from $SRC_ENGINE"; cp -a "$SRC_ENGINE/." "$R/"
  else
    fetch_unpack libc6 libgcc-s1 libstdc++6 libgomp1 libssl3t64 libggml0 libggml0-backend-rpc \
                 libllama0 llama.cpp-tools llama.cpp-tools-extra
  fi
fi
# --- 2. Vulkan: ggml backend, loader, Mesa (lavapipe) and its library closure from sid ---
GGMLVER=$(ls "$L"/libggml.so.0.* | sed 's/.*libggml\.so\.//')
VKGGML=$(apt-cache "${O[@]}" show libggml0-backend-vulkan/sid | awk '/^Version:/{print $2; exit}')
case "$VKGGML" in "$GGMLVER"*) ;; *) echo "WARNING: libggml0-backend-vulkan $VKGGML vs engine libggml $GGMLVER" >&2;; esac
SKIP='^(libc6|libgcc-s1|libstdc\+\+6|gcc-[0-9]+-base|libgomp1|libggml0|libc-gconv-modules-extra|debconf|perl-base)$'
PKGS=$(apt-cache "${O[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
         --no-replaces --no-enhances --no-pre-depends libggml0-backend-vulkan libvulkan1 mesa-vulkan-drivers \
       | grep -v '^ ' | grep -v '^<' | sort -u | grep -Ev "$SKIP")
fetch_unpack $PKGS
# --- 3. private ICD manifest for lavapipe pointing at the unpacked driver ---
SRCJSON=$(ls "$R"/usr/share/vulkan/icd.d/lvp_icd*.json | head -1)
sed -E "s#\"library_path\": *\"[^\"]*\"#\"library_path\": \"$L/libvulkan_lvp.so\"#" "$SRCJSON" > "$V/icd/lvp_icd.json"
test -f "$L/libvulkan_lvp.so" && test -f "$L/ggml/backends0/libggml-vulkan.so"
# --- 4. check the library closure of the new objects ---
miss=$("$L/ld-linux-x86-64.so.2" --library-path "$L:$L/llama" --list "$L/libvulkan_lvp.so" "$L/ggml/backends0/libggml-vulkan.so" 2>&1 | grep 'not found' || true)
[ -z "$miss" ] || { echo "missing libraries:"; echo "$miss"; exit 1; }
# --- 5. optional LD_PRELOAD shim for simulating a small device (VK_FAKE_TOTAL_MIB / VK_FAKE_FREE_MIB) ---
mkdir -p "$V/src" "$V/lib"
cat > "$V/src/vkfakemem.c.new" <<'VKFAKEMEM_EOF'
/* vkfakemem.so - LD_PRELOAD shim: make Mesa lavapipe (libvulkan_lvp.so) see a smaller machine.
 *   VK_FAKE_TOTAL_MIB : heap size  (lavapipe takes it from sysconf(_SC_PHYS_PAGES))
 *   VK_FAKE_FREE_MIB  : budget     (lavapipe takes it from MemAvailable in /proc/meminfo)
 * Only calls made from libvulkan_lvp.so are affected; the CPU backend/host see the real values. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

static int from_lvp(void *ra) {
  Dl_info di;
  if (!ra || !dladdr(ra, &di) || !di.dli_fname) return 0;
  return strstr(di.dli_fname, "libvulkan_lvp") != NULL;
}
static long env_mib(const char *n) { const char *s = getenv(n); return s && *s ? atol(s) : -1; }

long sysconf(int name) {
  static long (*real)(int);
  if (!real) real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
  long t = env_mib("VK_FAKE_TOTAL_MIB");
  if (name == _SC_PHYS_PAGES && t > 0 && from_lvp(__builtin_return_address(0)))
    return (long)((t << 20) / real(_SC_PAGESIZE));
  return real(name);
}

static int fake_meminfo_fd(void) {
  long f = env_mib("VK_FAKE_FREE_MIB"), t = env_mib("VK_FAKE_TOTAL_MIB");
  if (f < 0) return -1;
  if (t < 0) t = f;
  char buf[256];
  int n = snprintf(buf, sizeof buf, "MemTotal:       %ld kB\nMemFree:        %ld kB\nMemAvailable:   %ld kB\n",
                   t * 1024, f * 1024, f * 1024);
  int fd = memfd_create("fake-meminfo", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (write(fd, buf, n) != n) { close(fd); return -1; }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

#define OPEN_WRAPPER(fn)                                                          \
int fn(const char *path, int flags, ...) {                                        \
  static int (*real)(const char *, int, ...);                                     \
  if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #fn);       \
  mode_t mode = 0;                                                                \
  if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); mode = va_arg(ap, mode_t); va_end(ap); } \
  if (path && strcmp(path, "/proc/meminfo") == 0 && from_lvp(__builtin_return_address(0))) { \
    int fd = fake_meminfo_fd(); if (fd >= 0) return fd;                           \
  }                                                                               \
  return real(path, flags, mode);                                                 \
}
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

/* ---- cumulative device-memory cap (VK_FAKE_TOTAL_MIB): lavapipe itself only rejects a *single*
 * allocation larger than the heap, so wrap vkAllocateMemory/vkFreeMemory as handed out by the loader. */
#include <pthread.h>
#include <stdint.h>
typedef int32_t VkResult_;
typedef void *VkHandle_;
typedef uint64_t VkDeviceMemory_;
typedef struct { int32_t sType; const void *pNext; uint64_t allocationSize; uint32_t memoryTypeIndex; } VkMemoryAllocateInfo_;
typedef void (*PFN_void_)(void);
typedef VkResult_ (*PFN_alloc_)(VkHandle_, const VkMemoryAllocateInfo_ *, const void *, VkDeviceMemory_ *);
typedef void (*PFN_free_)(VkHandle_, VkDeviceMemory_, const void *);
typedef PFN_void_ (*PFN_gpa_)(VkHandle_, const char *);

static PFN_alloc_ real_alloc; static PFN_free_ real_free; static PFN_gpa_ real_gdpa;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
#define NSLOT 65536
static VkDeviceMemory_ slot_mem[NSLOT]; static uint64_t slot_size[NSLOT]; static uint64_t used_bytes;

static VkResult_ my_alloc(VkHandle_ dev, const VkMemoryAllocateInfo_ *ai, const void *cb, VkDeviceMemory_ *mem) {
  long t = env_mib("VK_FAKE_TOTAL_MIB");
  uint64_t cap = t > 0 ? ((uint64_t)t << 20) : UINT64_MAX;
  pthread_mutex_lock(&mtx);
  if (used_bytes + ai->allocationSize > cap) {
    pthread_mutex_unlock(&mtx);
    if (getenv("VK_FAKE_VERBOSE")) fprintf(stderr, "vkfakemem: refusing vkAllocateMemory(%llu) used=%llu cap=%llu\n",
      (unsigned long long)ai->allocationSize, (unsigned long long)used_bytes, (unsigned long long)cap);
    return -2; /* VK_ERROR_OUT_OF_DEVICE_MEMORY */
  }
  used_bytes += ai->allocationSize;
  pthread_mutex_unlock(&mtx);
  VkResult_ r = real_alloc(dev, ai, cb, mem);
  pthread_mutex_lock(&mtx);
  if (r != 0) used_bytes -= ai->allocationSize;
  else { unsigned i = (unsigned)(*mem * 0x9E3779B97F4A7C15ull >> 48) % NSLOT;
         while (slot_mem[i]) i = (i + 1) % NSLOT; slot_mem[i] = *mem; slot_size[i] = ai->allocationSize; }
  pthread_mutex_unlock(&mtx);
  return r;
}
static void my_free(VkHandle_ dev, VkDeviceMemory_ mem, const void *cb) {
  if (mem) { pthread_mutex_lock(&mtx);
    unsigned i = (unsigned)(mem * 0x9E3779B97F4A7C15ull >> 48) % NSLOT;
    for (unsigned n = 0; n < NSLOT && slot_mem[i]; n++, i = (i + 1) % NSLOT)
      if (slot_mem[i] == mem) { used_bytes -= slot_size[i];  /* backward-shift delete */
        unsigned j = i; for (;;) { j = (j + 1) % NSLOT; if (!slot_mem[j]) break;
          unsigned h = (unsigned)(slot_mem[j] * 0x9E3779B97F4A7C15ull >> 48) % NSLOT;
          if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) { slot_mem[i] = slot_mem[j]; slot_size[i] = slot_size[j]; i = j; } }
        slot_mem[i] = 0; break; }
    pthread_mutex_unlock(&mtx); }
  real_free(dev, mem, cb);
}
static PFN_void_ my_gdpa(VkHandle_ dev, const char *name);
static PFN_void_ wrap(PFN_void_ real, const char *name) {
  if (!real || env_mib("VK_FAKE_TOTAL_MIB") <= 0) return real;
  if (!strcmp(name, "vkAllocateMemory")) { real_alloc = (PFN_alloc_)real; return (PFN_void_)my_alloc; }
  if (!strcmp(name, "vkFreeMemory"))     { real_free = (PFN_free_)real;  return (PFN_void_)my_free; }
  if (!strcmp(name, "vkGetDeviceProcAddr")) { real_gdpa = (PFN_gpa_)real; return (PFN_void_)my_gdpa; }
  return real;
}
static PFN_void_ my_gdpa(VkHandle_ dev, const char *name) { return wrap(real_gdpa(dev, name), name); }
static void *loader_sym(const char *sym) {  /* libvulkan.so.1 is dlopen'ed RTLD_LOCAL by ggml-vulkan */
  void *p = dlsym(RTLD_NEXT, sym);
  if (!p) { void *h = dlopen("libvulkan.so.1", RTLD_NOLOAD | RTLD_LAZY); if (h) { p = dlsym(h, sym); dlclose(h); } }
  return p;
}
/* resolve SYM as the caller's own object would (lavapipe/loader may call their own exported copy) */
static void *callers_sym(void *ra, const char *sym) {
  Dl_info di;
  if (ra && dladdr(ra, &di) && di.dli_fname && !strstr(di.dli_fname, "libggml-vulkan")) {
    void *h = dlopen(di.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
    if (h) { void *p = dlsym(h, sym); dlclose(h); if (p) return p; }
  }
  return NULL;
}
PFN_void_ vkGetInstanceProcAddr(VkHandle_ inst, const char *name) {
  static PFN_gpa_ loader;
  void *own = callers_sym(__builtin_return_address(0), "vkGetInstanceProcAddr");
  if (own && own != (void *)vkGetInstanceProcAddr) return ((PFN_gpa_)own)(inst, name);
  if (!loader) loader = (PFN_gpa_)loader_sym("vkGetInstanceProcAddr");
  return wrap(loader(inst, name), name);
}
PFN_void_ vkGetDeviceProcAddr(VkHandle_ dev, const char *name) {
  void *own = callers_sym(__builtin_return_address(0), "vkGetDeviceProcAddr");
  if (own && own != (void *)vkGetDeviceProcAddr) return ((PFN_gpa_)own)(dev, name);
  if (!real_gdpa) real_gdpa = (PFN_gpa_)loader_sym("vkGetDeviceProcAddr");
  return wrap(real_gdpa(dev, name), name);
}
VKFAKEMEM_EOF
if ! cmp -s "$V/src/vkfakemem.c.new" "$V/src/vkfakemem.c" 2>/dev/null || [ ! -f "$V/lib/vkfakemem.so" ]; then
  mv "$V/src/vkfakemem.c.new" "$V/src/vkfakemem.c"
  if command -v gcc >/dev/null; then gcc -O2 -shared -fPIC -o "$V/lib/vkfakemem.so" "$V/src/vkfakemem.c" -ldl -lpthread
  else echo "NOTE: no gcc - memory simulation shim not built (VK_FAKE_* unavailable)" >&2; fi
else rm -f "$V/src/vkfakemem.c.new"; fi
echo "OK: root=$R icd=$V/icd/lvp_icd.json"
