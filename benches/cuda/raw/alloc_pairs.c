/*
 * alloc_pairs: an independent check of tenor-benches-cuda's allocation baselines, in plain C on
 * the CUDA driver API (libcuda.so.1 opened with dlopen: no Rust, no cudarc, no Tenor code, no
 * CUDA headers needed to build it).
 *
 * Host microseconds per allocate + free pair, on one non-blocking stream: a batch of 1000 pairs
 * (allocate, then free at once), then one cuStreamSynchronize; median of 15 batches after two
 * warm-up batches. Sizes 256 B to 64 MiB in steps of 4x.
 *
 *   cuMemAlloc_v2 / cuMemFree_v2, alone: nothing else in the process holds device memory.
 *   cuMemAlloc_v2 / cuMemFree_v2, beside one resident 256 B cuMemAlloc block.
 *   cuMemAllocAsync / cuMemFreeAsync on the device's default pool, release threshold UINT64_MAX
 *   (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD; CUDA Driver API reference, "Stream Ordered Memory
 *   Allocator").
 *
 * Build: gcc -O2 -o alloc-pairs-raw alloc_pairs.c -ldl     (scripts/gpu-check build does this)
 * Run:   ./alloc-pairs-raw                                  (prints a Markdown table)
 * Exit status 1 with the failing call and its CUresult on any driver error.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef void *CUmemoryPool;
typedef unsigned long long CUdeviceptr;

#define API(name, args) typedef CUresult(*name##_t) args; static name##_t name;
API(cuInit, (unsigned))
API(cuDeviceGet, (CUdevice *, int))
API(cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))
API(cuCtxSetCurrent, (CUcontext))
API(cuStreamCreate, (CUstream *, unsigned))
API(cuStreamSynchronize, (CUstream))
API(cuMemAlloc_v2, (CUdeviceptr *, size_t))
API(cuMemFree_v2, (CUdeviceptr))
API(cuMemAllocAsync, (CUdeviceptr *, size_t, CUstream))
API(cuMemFreeAsync, (CUdeviceptr, CUstream))
API(cuDeviceGetDefaultMemPool, (CUmemoryPool *, CUdevice))
API(cuMemPoolSetAttribute, (CUmemoryPool, int, void *))
API(cuMemPoolTrimTo, (CUmemoryPool, size_t))

enum { BATCH = 1000, REPS = 15, WARM = 2, SIZES = 10 };
enum { CU_STREAM_NON_BLOCKING = 1, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4 };

#define CHECK(call)                                                              \
    do {                                                                         \
        CUresult r_ = (call);                                                    \
        if (r_ != 0) {                                                           \
            fprintf(stderr, "error: %s returned CUresult %d\n", #call, r_);      \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static CUstream stream;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median microseconds per pair; `pooled` picks cuMemAllocAsync/cuMemFreeAsync. */
static double pair_us(size_t bytes, int pooled) {
    double v[WARM + REPS];
    for (int it = 0; it < WARM + REPS; it++) {
        double t0 = now_us();
        for (int i = 0; i < BATCH; i++) {
            CUdeviceptr p;
            if (pooled) {
                CHECK(cuMemAllocAsync(&p, bytes, stream));
                CHECK(cuMemFreeAsync(p, stream));
            } else {
                CHECK(cuMemAlloc_v2(&p, bytes));
                CHECK(cuMemFree_v2(p));
            }
        }
        CHECK(cuStreamSynchronize(stream));
        v[it] = (now_us() - t0) / BATCH;
    }
    qsort(v + WARM, REPS, sizeof v[0], cmp);
    return v[WARM + REPS / 2];
}

int main(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "error: cannot load libcuda.so.1: %s\n", dlerror());
        return 1;
    }
#define LOAD(name)                                                   \
    if (!(name = (name##_t)dlsym(lib, #name))) {                     \
        fprintf(stderr, "error: libcuda.so.1 lacks %s\n", #name);    \
        return 1;                                                    \
    }
    LOAD(cuInit) LOAD(cuDeviceGet) LOAD(cuDevicePrimaryCtxRetain) LOAD(cuCtxSetCurrent)
    LOAD(cuStreamCreate) LOAD(cuStreamSynchronize) LOAD(cuMemAlloc_v2) LOAD(cuMemFree_v2)
    LOAD(cuMemAllocAsync) LOAD(cuMemFreeAsync) LOAD(cuDeviceGetDefaultMemPool)
    LOAD(cuMemPoolSetAttribute) LOAD(cuMemPoolTrimTo)

    CUdevice dev;
    CUcontext ctx;
    CUmemoryPool pool;
    unsigned long long max = UINT64_MAX;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CHECK(cuDeviceGetDefaultMemPool(&pool, dev));
    CHECK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &max));

    double alone[SIZES], beside[SIZES], pooled[SIZES];
    for (int e = 0; e < SIZES; e++) alone[e] = pair_us((size_t)256 << (2 * e), 0);
    CUdeviceptr resident;
    CHECK(cuMemAlloc_v2(&resident, 256));
    for (int e = 0; e < SIZES; e++) beside[e] = pair_us((size_t)256 << (2 * e), 0);
    CHECK(cuMemFree_v2(resident));
    for (int e = 0; e < SIZES; e++) pooled[e] = pair_us((size_t)256 << (2 * e), 1);
    CHECK(cuMemPoolTrimTo(pool, 0));

    printf("| bytes | cuMemAlloc alone | cuMemAlloc beside a resident 256 B block | default pool, threshold max "
           "| x alone | x beside |\n| --- | --- | --- | --- | --- | --- |\n");
    for (int e = 0; e < SIZES; e++)
        printf("| %zu | %.3f | %.3f | %.3f | %.1fx | %.1fx |\n", (size_t)256 << (2 * e), alone[e], beside[e],
               pooled[e], alone[e] / pooled[e], beside[e] / pooled[e]);
    return 0;
}
