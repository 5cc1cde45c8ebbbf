/* A fake libcuda.so.1 for testing libtenor_trace.so without a GPU: "device" memory is host
 * memory from malloc, and cuGetProcAddress hands back this library's own functions, as the real
 * driver does (linked -Bsymbolic: never through the dynamic linker). Sizes above 1 TiB fail with
 * CUDA_ERROR_OUT_OF_MEMORY (2). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long cuuint64_t;
#define OOM 2
#define NOT_FOUND 500
#define TOO_BIG (1ULL << 40)

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    if (n > TOO_BIG) return OOM;
    void *m = malloc(n ? n : 1);
    if (!m) return OOM;
    *p = (CUdeviceptr)m;
    return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)p); return 0; }
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, void *s) { (void)s; return cuMemAlloc_v2(p, n); }
CUresult cuMemFreeAsync(CUdeviceptr p, void *s) { (void)s; return cuMemFree_v2(p); }
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, void *pool, void *s) { (void)pool; (void)s; return cuMemAlloc_v2(p, n); }
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t n, void *s) { return cuMemAllocAsync(p, n, s); }
CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, void *s) { return cuMemFreeAsync(p, s); }
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t n, void *pool, void *s) { return cuMemAllocFromPoolAsync(p, n, pool, s); }

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, cuuint64_t flags, void *status) {
    (void)status;
    int ptsz = (flags & 2ULL) != 0;
    struct { const char *name; void *plain, *per_thread; } table[] = {
        {"cuMemAlloc", (void *)cuMemAlloc_v2, (void *)cuMemAlloc_v2},
        {"cuMemFree", (void *)cuMemFree_v2, (void *)cuMemFree_v2},
        {"cuMemAllocAsync", (void *)cuMemAllocAsync, (void *)cuMemAllocAsync_ptsz},
        {"cuMemFreeAsync", (void *)cuMemFreeAsync, (void *)cuMemFreeAsync_ptsz},
        {"cuMemAllocFromPoolAsync", (void *)cuMemAllocFromPoolAsync, (void *)cuMemAllocFromPoolAsync_ptsz},
        {"cuGetProcAddress", (void *)cuGetProcAddress_v2, (void *)cuGetProcAddress_v2},
    };
    if (version < 3020) return NOT_FOUND;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, sym) == 0) {
            *pfn = ptsz ? table[i].per_thread : table[i].plain;
            return 0;
        }
    *pfn = NULL;
    return NOT_FOUND;
}
