/* A fake libcudart.so for testing libtenor_trace.so: like the real runtime it dlopen()s
 * libcuda.so.1, looks up only cuGetProcAddress_v2 with dlsym and obtains every other driver
 * entry point from it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef CUresult (*gpa_t)(const char *, void **, int, unsigned long long, void *);
typedef CUresult (*alloc_t)(CUdeviceptr *, size_t);
typedef CUresult (*free_t)(CUdeviceptr);
typedef CUresult (*alloc_async_t)(CUdeviceptr *, size_t, void *);
typedef CUresult (*free_async_t)(CUdeviceptr, void *);
typedef CUresult (*alloc_pool_t)(CUdeviceptr *, size_t, void *, void *);

static alloc_t d_alloc;
static free_t d_free;
static alloc_async_t d_alloc_async;
static free_async_t d_free_async;
static alloc_pool_t d_alloc_pool;

static int init(void) {
    if (d_alloc) return 0;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return 3;
    gpa_t gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
    if (!gpa) return 3;
    void *f;
    if (gpa("cuMemAlloc", &f, 13000, 0, NULL)) return 3;
    d_alloc = (alloc_t)f;
    if (gpa("cuMemFree", &f, 13000, 0, NULL)) return 3;
    d_free = (free_t)f;
    if (gpa("cuMemAllocAsync", &f, 13000, 0, NULL)) return 3;
    d_alloc_async = (alloc_async_t)f;
    if (gpa("cuMemFreeAsync", &f, 13000, 0, NULL)) return 3;
    d_free_async = (free_async_t)f;
    if (gpa("cuMemAllocFromPoolAsync", &f, 13000, 0, NULL)) return 3;
    d_alloc_pool = (alloc_pool_t)f;
    return 0;
}

int cudaMalloc(void **p, size_t n) {
    int e = init();
    if (e) return e;
    CUdeviceptr d = 0;
    if (d_alloc(&d, n)) return 2; /* cudaErrorMemoryAllocation */
    *p = (void *)d;
    return 0;
}
int cudaFree(void *p) {
    int e = init();
    if (e) return e;
    return p ? (d_free((CUdeviceptr)p) ? 1 : 0) : 0;
}
int cudaMallocAsync(void **p, size_t n, void *s) {
    int e = init();
    if (e) return e;
    CUdeviceptr d = 0;
    if (d_alloc_async(&d, n, s)) return 2;
    *p = (void *)d;
    return 0;
}
int cudaFreeAsync(void *p, void *s) {
    int e = init();
    if (e) return e;
    return d_free_async((CUdeviceptr)p, s) ? 1 : 0;
}
int cudaMallocFromPoolAsync(void **p, size_t n, void *pool, void *s) {
    int e = init();
    if (e) return e;
    CUdeviceptr d = 0;
    if (d_alloc_pool(&d, n, pool, s)) return 2;
    *p = (void *)d;
    return 0;
}
