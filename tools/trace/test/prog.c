/* The program the trace tests record: allocates like a pricing library through the fake
 * runtime (linked), the fake driver looked up with dlsym, and cuGetProcAddress_v2 directly.
 * Prints "ok <checksum>" (the same with and without libtenor_trace.so loaded).
 *   prog run          the scripted sequence (tests/preload.rs lists what it must record)
 *   prog term         allocates 100 bytes, then raises SIGTERM (dies by the signal)
 *   prog fork         allocates 100 bytes, forks a child that allocates 200 and exits, runs
 *                     `true` through system(), frees the 100 bytes
 *   prog bench N      N cudaMallocAsync + cudaFreeAsync pairs of 256 bytes; prints ns per pair */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int cudaMalloc(void **, size_t);
int cudaFree(void *);
int cudaMallocAsync(void **, size_t, void *);
int cudaFreeAsync(void *, void *);
int cudaMallocFromPoolAsync(void **, size_t, void *, void *);

typedef int (*alloc_async_t)(unsigned long long *, size_t, void *);
typedef int (*free_async_t)(unsigned long long, void *);
typedef int (*alloc_pool_t)(unsigned long long *, size_t, void *, void *);
typedef int (*gpa_t)(const char *, void **, int, unsigned long long, void *);

static uint64_t checksum;

static void job(unsigned long long id) {
    void (*begin)(unsigned long long) = (void (*)(unsigned long long))dlsym(RTLD_DEFAULT, "tenor_job_begin");
    void (*end)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "tenor_job_end");
    if (id && begin) begin(id);
    if (!id && end) end();
}
static void nvtx(const char *name) {
    int (*push)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "nvtxRangePushA");
    int (*pop)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "nvtxRangePop");
    if (name && push) push(name);
    if (!name && pop) pop();
}
static void use(void *p, size_t n, int v) {
    memset(p, v, n);
    checksum = checksum * 31 + ((unsigned char *)p)[n - 1] + n;
}

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 3; i++) {
        void *p = NULL;
        checksum += (uint64_t)cudaMalloc(&p, 512);
        if (p) { memset(p, i, 512); cudaFree(p); }
    }
    return NULL;
}

static int run(void) {
    void *curve = NULL, *scratch = NULL, *big = NULL;
    job(7);
    checksum += (uint64_t)cudaMalloc(&curve, 1000);
    use(curve, 1000, 1);
    checksum += (uint64_t)cudaMallocAsync(&scratch, 2048, (void *)0x11);
    use(scratch, 2048, 2);
    checksum += (uint64_t)cudaFreeAsync(scratch, (void *)0x11);
    checksum += (uint64_t)cudaFree(NULL);
    nvtx("price");
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return 3;
    alloc_async_t aa = (alloc_async_t)dlsym(h, "cuMemAllocAsync");
    free_async_t fa = (free_async_t)dlsym(h, "cuMemFreeAsync");
    gpa_t gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
    if (!aa || !fa || !gpa) return 3;
    unsigned long long d = 0;
    checksum += (uint64_t)aa(&d, 4096, (void *)0x22);
    use((void *)d, 4096, 3);
    checksum += (uint64_t)fa(d, (void *)0x22);
    void *f = NULL;
    checksum += (uint64_t)gpa("cuMemAllocFromPoolAsync", &f, 13000, 2 /* per-thread stream */, NULL);
    if (!f) return 3;
    checksum += (uint64_t)((alloc_pool_t)f)(&d, 8192, (void *)0x5, (void *)0x33);
    use((void *)d, 8192, 4);
    checksum += (uint64_t)fa(d, (void *)0x33);
    nvtx(NULL);
    checksum += (uint64_t)cudaMalloc(&big, 1ULL << 41); /* refused: out of memory (2) */
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    checksum += (uint64_t)cudaMallocFromPoolAsync(&scratch, 300, (void *)0x5, (void *)0x11);
    use(scratch, 300, 5);
    checksum += (uint64_t)cudaFreeAsync(scratch, (void *)0x11);
    checksum += (uint64_t)cudaFree(curve);
    job(0);
    printf("ok %llu\n", (unsigned long long)checksum);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "run";
    if (strcmp(mode, "run") == 0) return run();
    if (strcmp(mode, "term") == 0) {
        void *p = NULL;
        cudaMalloc(&p, 100);
        fflush(stdout);
        raise(SIGTERM);
        return 0;
    }
    if (strcmp(mode, "fork") == 0) {
        void *p = NULL, *q = NULL;
        if (cudaMalloc(&p, 100)) return 3;
        pid_t child = fork();
        if (child == 0) {
            int r = cudaMalloc(&q, 200);
            exit(r);
        }
        int st = 0;
        waitpid(child, &st, 0);
        if (system("true") != 0) return 4;
        cudaFree(p);
        printf("ok child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return 0;
    }
    if (strcmp(mode, "bench") == 0 && argc > 2) {
        long n = atol(argv[2]);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (long i = 0; i < n; i++) {
            void *p = NULL;
            cudaMallocAsync(&p, 256, (void *)0x11);
            cudaFreeAsync(p, (void *)0x11);
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n;
        printf("%.1f ns per pair\n", ns);
        return 0;
    }
    fprintf(stderr, "usage: prog run | term | bench N\n");
    return 2;
}
