/* libtenor_trace.so: records the device allocations and frees of an unmodified CUDA program
 * into Tenor's trace format (docs/allocators.md, "Trace format"), loaded with LD_PRELOAD
 * (or `tenor alloc record`-style: `LD_PRELOAD=libtenor_trace.so TENOR_TRACE_OUT=run.trace prog`).
 *
 * Entry points recorded:
 *   runtime  cudaMalloc, cudaFree, cudaMallocAsync, cudaFreeAsync, cudaMallocFromPoolAsync
 *   driver   cuMemAlloc (v1), cuMemAlloc_v2, cuMemFree (v1), cuMemFree_v2, cuMemAllocAsync,
 *            cuMemFreeAsync, cuMemAllocFromPoolAsync (and their _ptsz per-thread-stream forms)
 * The CUDA runtime does not call the driver through the dynamic linker: it dlopen()s libcuda and
 * asks cuGetProcAddress for every entry point, so symbol interposition alone misses them. This
 * library therefore also interposes dlsym (a driver symbol looked up in any handle comes back as
 * the wrapper) and cuGetProcAddress / cuGetProcAddress_v2 (the pointer handed back for a
 * recorded entry point is the wrapper, the real one kept for it). A runtime call made inside
 * cudaMalloc & co. is recorded once, by the runtime wrapper (a thread-local guard).
 *
 * Job boundaries: tenor_job_begin(id) / tenor_job_end(), and NVTX ranges (nvtxRangePushA /
 * nvtxRangePop, forwarded to the real NVTX library when there is one): the outermost range of a
 * thread opens a new job (ids 1, 2, ... in order of opening) and its close restores the job
 * that was current before (0: none).
 *
 * Output: TENOR_TRACE_OUT (default tenor-<pid>.trace in the working directory), written at exit
 * and on SIGINT/SIGTERM (then the signal's previous disposition is restored and the signal
 * raised again, so the exit status is unchanged), through a temporary file in the same folder
 * (OUT.tenor-tmp-<16 random hex digits>, created exclusively) renamed into place. Events go to per-thread buffers; a global lock orders them (sequence
 * number and time taken under it) and keeps the pointer -> (block, size) map, so a free carries
 * the bytes of its allocation. Frees of pointers this library did not see allocated (NULL, or
 * allocated before it loaded) are not recorded. The calls themselves are passed through
 * unchanged: same arguments, same result. The first traced process sets TENOR_TRACE_ROOT_PID
 * (its only change to the environment); a program it forks or starts writes OUT.<pid> instead,
 * and only when it recorded events, so a child never replaces the parent's trace.
 * Limit: a dlsym(RTLD_NEXT, ...) made by the program is resolved relative to this library.
 *
 * Build: gcc -O2 -shared -fPIC -o libtenor_trace.so tenor_trace.c -ldl -lpthread
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef int cudaError_t;
typedef void *cudaStream_t;
typedef void *cudaMemPool_t;
typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef unsigned int CUdeviceptr_v1;
typedef void *CUstream;
typedef void *CUmemoryPool;
typedef unsigned long long cuuint64_t;

enum { OP_ALLOC = 0, OP_FREE = 1, OP_FAIL = 2 };
static const char *const OP_NAME[] = {"alloc", "free", "fail"};

struct event {
    uint64_t seq, time_ns, bytes, stream, job, block;
};

struct tbuf {
    struct tbuf *next;
    uint32_t thread;
    uint32_t nvtx_depth;
    uint64_t job;
    uint64_t job_before_nvtx; /* restored when the outermost NVTX range closes */
    size_t len, cap, pos; /* pos: merge cursor at flush */
    struct event *ev;
    unsigned char *op;
};

/* ---- global state ---- */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tbuf *g_threads;         /* every thread's buffer, never freed */
static uint64_t g_seq, g_next_block = 1, g_next_job;
static uint32_t g_next_thread;
static struct timespec g_start;
static volatile sig_atomic_t g_flushed;
static char g_out[4096];
static int g_child; /* a process started by a traced one: writes OUT.<pid>, only with events */
static __thread struct tbuf *t_buf;
static __thread int t_inside; /* >0 while inside a recorded runtime call */

/* pointer -> (block, bytes): open addressing, linear probing, backward-shift deletion */
struct slot { uint64_t ptr, block, bytes; };
static struct slot *g_map;
static size_t g_cap, g_used;

static size_t hash_ptr(uint64_t p) { p ^= p >> 33; p *= 0xff51afd7ed558ccdULL; p ^= p >> 33; return (size_t)p; }

static int map_grow(void) {
    size_t ncap = g_cap ? g_cap * 2 : 1024;
    struct slot *n = calloc(ncap, sizeof *n);
    if (!n) return -1;
    for (size_t i = 0; i < g_cap; i++) {
        if (!g_map[i].ptr) continue;
        size_t j = hash_ptr(g_map[i].ptr) & (ncap - 1);
        while (n[j].ptr) j = (j + 1) & (ncap - 1);
        n[j] = g_map[i];
    }
    free(g_map);
    g_map = n;
    g_cap = ncap;
    return 0;
}

static int map_put(uint64_t ptr, uint64_t block, uint64_t bytes) {
    if ((g_used + 1) * 2 > g_cap && map_grow() != 0) return -1;
    size_t j = hash_ptr(ptr) & (g_cap - 1);
    while (g_map[j].ptr && g_map[j].ptr != ptr) j = (j + 1) & (g_cap - 1);
    if (!g_map[j].ptr) g_used++;
    g_map[j] = (struct slot){ptr, block, bytes};
    return 0;
}

static int map_take(uint64_t ptr, uint64_t *block, uint64_t *bytes) {
    if (!g_cap || !ptr) return 0;
    size_t j = hash_ptr(ptr) & (g_cap - 1);
    while (g_map[j].ptr && g_map[j].ptr != ptr) j = (j + 1) & (g_cap - 1);
    if (!g_map[j].ptr) return 0;
    *block = g_map[j].block;
    *bytes = g_map[j].bytes;
    /* backward-shift deletion keeps every probe chain unbroken */
    size_t i = j;
    for (;;) {
        g_map[i].ptr = 0;
        size_t k = i;
        for (;;) {
            k = (k + 1) & (g_cap - 1);
            if (!g_map[k].ptr) { g_used--; return 1; }
            size_t home = hash_ptr(g_map[k].ptr) & (g_cap - 1);
            /* move k into i unless home lies cyclically in (i, k] */
            int in_range = (i <= k) ? (i < home && home <= k) : (i < home || home <= k);
            if (!in_range) break;
        }
        g_map[i] = g_map[k];
        i = k;
    }
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    int64_t s = (int64_t)t.tv_sec - (int64_t)g_start.tv_sec;
    int64_t ns = (int64_t)t.tv_nsec - (int64_t)g_start.tv_nsec;
    int64_t v = s * 1000000000LL + ns;
    return v < 0 ? 0 : (uint64_t)v;
}

/* the calling thread's buffer; call with g_lock held */
static struct tbuf *my_buf(void) {
    if (t_buf) return t_buf;
    struct tbuf *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->thread = g_next_thread++;
    b->next = g_threads;
    g_threads = b;
    t_buf = b;
    return b;
}

/* appends one event; call with g_lock held. Returns 0, or -1 when out of host memory (the event
 * is then lost, never the program's call). */
static int push(int op, uint64_t bytes, uint64_t stream, uint64_t block) {
    struct tbuf *b = my_buf();
    if (!b || g_flushed) return -1;
    if (b->len == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 4096;
        struct event *ne = realloc(b->ev, ncap * sizeof *ne);
        if (!ne) return -1;
        b->ev = ne;
        unsigned char *no = realloc(b->op, ncap);
        if (!no) return -1;
        b->op = no;
        b->cap = ncap;
    }
    b->ev[b->len] = (struct event){g_seq++, now_ns(), bytes, stream, b->job, block};
    b->op[b->len] = (unsigned char)op;
    b->len++;
    return 0;
}

static void record_alloc(int ok, uint64_t ptr, uint64_t bytes, uint64_t stream) {
    pthread_mutex_lock(&g_lock);
    if (ok && ptr) {
        uint64_t block = g_next_block++;
        if (map_put(ptr, block, bytes) == 0) push(OP_ALLOC, bytes, stream, block);
    } else if (!ok) {
        push(OP_FAIL, bytes, stream, 0);
    }
    pthread_mutex_unlock(&g_lock);
}

static void record_free(uint64_t ptr, uint64_t stream) {
    pthread_mutex_lock(&g_lock);
    uint64_t block, bytes;
    if (map_take(ptr, &block, &bytes)) push(OP_FREE, bytes, stream, block);
    pthread_mutex_unlock(&g_lock);
}

/* ---- output ---- */
static size_t put_u64(char *p, uint64_t v) {
    char tmp[24];
    size_t n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    for (size_t i = 0; i < n; i++) p[i] = tmp[n - 1 - i];
    return n;
}

static int write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 16 hex digits of operating-system randomness into `out` (not terminated); 0 on success.
 * Async-signal-safe (getrandom(2) as a system call, else a read of /dev/urandom). */
static int random_hex(char *out) {
    unsigned char b[8];
    size_t got = 0;
    while (got < sizeof b) {
        long n = syscall(SYS_getrandom, b + got, sizeof b - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    if (got < sizeof b) {
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd < 0) return -1;
        while (got < sizeof b) {
            ssize_t n = read(fd, b + got, sizeof b - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += (size_t)n;
        }
        close(fd);
        if (got < sizeof b) return -1;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof b; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    return 0;
}

/* merges the thread buffers by sequence number and writes the trace atomically */
static void flush_trace(void) {
    if (g_flushed) return;
    g_flushed = 1;
    if (g_child) {
        size_t events = 0;
        for (struct tbuf *b = g_threads; b; b = b->next) events += b->len;
        if (!events) return;
    }
    /* The temporary file is created exclusively (O_EXCL: a link planted at the name is never
     * followed) under 64 random bits (getrandom(2)), a new name when one is taken: in a folder
     * other users can write, a guessable name (it was OUT.tmp.<pid>) let them redirect the write
     * into any file this process may write (ADR 0029). */
    char tmp[4200];
    size_t ol = strlen(g_out);
    memcpy(tmp, g_out, ol);
    memcpy(tmp + ol, ".tenor-tmp-", 11);
    int fd = -1;
    for (int tries = 0; tries < 64 && fd < 0; tries++) {
        if (random_hex(tmp + ol + 11) != 0) return;
        tmp[ol + 11 + 16] = 0;
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) return;
    }
    if (fd < 0) return;
    static const char head[] = "# tenor-alloc trace v1\n# recorded by libtenor_trace.so\ntime_ns,op,bytes,stream,job,block,thread\n";
    int bad = write_all(fd, head, sizeof head - 1);
    for (struct tbuf *b = g_threads; b; b = b->next) b->pos = 0;
    char line[200];
    for (;;) {
        struct tbuf *best = NULL;
        for (struct tbuf *b = g_threads; b; b = b->next)
            if (b->pos < b->len && (!best || b->ev[b->pos].seq < best->ev[best->pos].seq)) best = b;
        if (!best || bad) break;
        const struct event *e = &best->ev[best->pos];
        const char *op = OP_NAME[best->op[best->pos]];
        best->pos++;
        size_t n = put_u64(line, e->time_ns);
        line[n++] = ',';
        size_t k = strlen(op);
        memcpy(line + n, op, k);
        n += k;
        line[n++] = ',';
        n += put_u64(line + n, e->bytes);
        line[n++] = ',';
        n += put_u64(line + n, e->stream);
        line[n++] = ',';
        n += put_u64(line + n, e->job);
        line[n++] = ',';
        n += put_u64(line + n, e->block);
        line[n++] = ',';
        n += put_u64(line + n, best->thread);
        line[n++] = '\n';
        bad = write_all(fd, line, n);
    }
    if (fsync(fd) != 0) bad = 1;
    if (close(fd) != 0) bad = 1;
    if (bad || rename(tmp, g_out) != 0) unlink(tmp);
}

static struct sigaction g_old_int, g_old_term;

static void on_signal(int sig) {
    /* best effort: the interrupted thread may hold the lock; then the events are written as
     * they stand (a torn last event is impossible: len is bumped after the event is stored) */
    int locked = pthread_mutex_trylock(&g_lock) == 0;
    flush_trace();
    if (locked) pthread_mutex_unlock(&g_lock);
    sigaction(sig, sig == SIGINT ? &g_old_int : &g_old_term, NULL);
    raise(sig);
}

/* a forked child starts with no events of its own and writes OUT.<pid> (the parent's events
 * stay the parent's) */
static void child_out(void) {
    size_t ol = strlen(g_out);
    if (ol + 24 < sizeof g_out) {
        g_out[ol] = '.';
        g_out[ol + 1 + put_u64(g_out + ol + 1, (uint64_t)getpid())] = 0;
    }
    g_child = 1;
}

static void after_fork_child(void) {
    for (struct tbuf *b = g_threads; b; b = b->next) b->len = 0;
    g_used = 0;
    if (g_map) memset(g_map, 0, g_cap * sizeof *g_map);
    child_out();
    pthread_mutex_unlock(&g_lock);
}
static void before_fork(void) { pthread_mutex_lock(&g_lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&g_lock); }

static void at_exit_flush(void) {
    pthread_mutex_lock(&g_lock);
    flush_trace();
    pthread_mutex_unlock(&g_lock);
}

__attribute__((constructor)) static void tenor_trace_init(void) {
    clock_gettime(CLOCK_MONOTONIC, &g_start);
    const char *out = getenv("TENOR_TRACE_OUT");
    if (out && *out && strlen(out) < sizeof g_out)
        strcpy(g_out, out);
    else
        snprintf(g_out, sizeof g_out, "tenor-%d.trace", (int)getpid());
    /* The first traced process of a tree owns TENOR_TRACE_OUT; a program it starts (which
     * inherits LD_PRELOAD) writes OUT.<pid>, and only if it allocated. */
    char pid[24];
    pid[put_u64(pid, (uint64_t)getpid())] = 0;
    const char *root = getenv("TENOR_TRACE_ROOT_PID");
    if (!root)
        setenv("TENOR_TRACE_ROOT_PID", pid, 0);
    else if (strcmp(root, pid) != 0)
        child_out();
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    atexit(at_exit_flush);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* only where the program left the default: a handler it installed stays its own */
    struct sigaction cur;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler == SIG_DFL) sigaction(SIGINT, &sa, &g_old_int);
    if (sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler == SIG_DFL) sigaction(SIGTERM, &sa, &g_old_term);
}

__attribute__((destructor)) static void tenor_trace_fini(void) { at_exit_flush(); }

/* ---- real symbols ---- */
typedef void *(*dlsym_fn)(void *, const char *);
static dlsym_fn real_dlsym_fn(void) {
    static dlsym_fn f;
    if (!f) {
        f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!f) f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    }
    return f;
}

/* the real entry point of each wrapper: found through RTLD_NEXT, or remembered when dlsym or
 * cuGetProcAddress handed us one */
#define REAL(name) real_##name
#define DECLARE_REAL(ret, name, args) \
    typedef ret(*name##_t) args;        \
    static name##_t real_##name;        \
    static name##_t get_##name(void) {  \
        if (!real_##name) { dlsym_fn d = real_dlsym_fn(); if (d) real_##name = (name##_t)d(RTLD_NEXT, #name); } \
        return real_##name;             \
    }

DECLARE_REAL(cudaError_t, cudaMalloc, (void **, size_t))
DECLARE_REAL(cudaError_t, cudaFree, (void *))
DECLARE_REAL(cudaError_t, cudaMallocAsync, (void **, size_t, cudaStream_t))
DECLARE_REAL(cudaError_t, cudaFreeAsync, (void *, cudaStream_t))
DECLARE_REAL(cudaError_t, cudaMallocFromPoolAsync, (void **, size_t, cudaMemPool_t, cudaStream_t))
DECLARE_REAL(CUresult, cuMemAlloc, (CUdeviceptr_v1 *, unsigned int))
DECLARE_REAL(CUresult, cuMemFree, (CUdeviceptr_v1))
DECLARE_REAL(CUresult, cuMemAlloc_v2, (CUdeviceptr *, size_t))
DECLARE_REAL(CUresult, cuMemFree_v2, (CUdeviceptr))
DECLARE_REAL(CUresult, cuMemAllocAsync, (CUdeviceptr *, size_t, CUstream))
DECLARE_REAL(CUresult, cuMemFreeAsync, (CUdeviceptr, CUstream))
DECLARE_REAL(CUresult, cuMemAllocFromPoolAsync, (CUdeviceptr *, size_t, CUmemoryPool, CUstream))
DECLARE_REAL(CUresult, cuMemAllocAsync_ptsz, (CUdeviceptr *, size_t, CUstream))
DECLARE_REAL(CUresult, cuMemFreeAsync_ptsz, (CUdeviceptr, CUstream))
DECLARE_REAL(CUresult, cuMemAllocFromPoolAsync_ptsz, (CUdeviceptr *, size_t, CUmemoryPool, CUstream))
DECLARE_REAL(CUresult, cuGetProcAddress, (const char *, void **, int, cuuint64_t))
DECLARE_REAL(CUresult, cuGetProcAddress_v2, (const char *, void **, int, cuuint64_t, void *))
DECLARE_REAL(int, nvtxRangePushA, (const char *))
DECLARE_REAL(int, nvtxRangePop, (void))

#define CUDA_ERROR_NOT_FOUND_RT 500 /* cudaErrorSymbolNotFound */
#define CUDA_ERROR_NOT_FOUND_DRV 500 /* CUDA_ERROR_NOT_FOUND */

/* ---- runtime wrappers ---- */
cudaError_t cudaMalloc(void **p, size_t bytes) {
    cudaMalloc_t f = get_cudaMalloc();
    if (!f) return CUDA_ERROR_NOT_FOUND_RT;
    t_inside++;
    cudaError_t r = f(p, bytes);
    t_inside--;
    if (!t_inside) record_alloc(r == 0, r == 0 && p ? (uint64_t)(uintptr_t)*p : 0, bytes, 0);
    return r;
}
cudaError_t cudaFree(void *ptr) {
    cudaFree_t f = get_cudaFree();
    if (!f) return CUDA_ERROR_NOT_FOUND_RT;
    if (!t_inside) record_free((uint64_t)(uintptr_t)ptr, 0);
    t_inside++;
    cudaError_t r = f(ptr);
    t_inside--;
    return r;
}
cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t s) {
    cudaMallocAsync_t f = get_cudaMallocAsync();
    if (!f) return CUDA_ERROR_NOT_FOUND_RT;
    t_inside++;
    cudaError_t r = f(p, bytes, s);
    t_inside--;
    if (!t_inside) record_alloc(r == 0, r == 0 && p ? (uint64_t)(uintptr_t)*p : 0, bytes, (uint64_t)(uintptr_t)s);
    return r;
}
cudaError_t cudaFreeAsync(void *ptr, cudaStream_t s) {
    cudaFreeAsync_t f = get_cudaFreeAsync();
    if (!f) return CUDA_ERROR_NOT_FOUND_RT;
    if (!t_inside) record_free((uint64_t)(uintptr_t)ptr, (uint64_t)(uintptr_t)s);
    t_inside++;
    cudaError_t r = f(ptr, s);
    t_inside--;
    return r;
}
cudaError_t cudaMallocFromPoolAsync(void **p, size_t bytes, cudaMemPool_t pool, cudaStream_t s) {
    cudaMallocFromPoolAsync_t f = get_cudaMallocFromPoolAsync();
    if (!f) return CUDA_ERROR_NOT_FOUND_RT;
    t_inside++;
    cudaError_t r = f(p, bytes, pool, s);
    t_inside--;
    if (!t_inside) record_alloc(r == 0, r == 0 && p ? (uint64_t)(uintptr_t)*p : 0, bytes, (uint64_t)(uintptr_t)s);
    return r;
}

/* ---- driver wrappers ---- */
#define ALLOC_WRAP(name, rec_stream, params, call_args)                                  \
    CUresult name params {                                                                \
        name##_t f = get_##name();                                                        \
        if (!f) return CUDA_ERROR_NOT_FOUND_DRV;                                          \
        CUresult r = f call_args;                                                         \
        if (!t_inside) record_alloc(r == 0, r == 0 && p ? (uint64_t)*p : 0, bytes, rec_stream); \
        return r;                                                                         \
    }
#define FREE_WRAP(name, rec_stream, params, call_args)                                   \
    CUresult name params {                                                                \
        name##_t f = get_##name();                                                        \
        if (!f) return CUDA_ERROR_NOT_FOUND_DRV;                                          \
        if (!t_inside) record_free((uint64_t)ptr, rec_stream);                            \
        return f call_args;                                                               \
    }

ALLOC_WRAP(cuMemAlloc, 0, (CUdeviceptr_v1 * p, unsigned int bytes), (p, bytes))
FREE_WRAP(cuMemFree, 0, (CUdeviceptr_v1 ptr), (ptr))
ALLOC_WRAP(cuMemAlloc_v2, 0, (CUdeviceptr * p, size_t bytes), (p, bytes))
FREE_WRAP(cuMemFree_v2, 0, (CUdeviceptr ptr), (ptr))
ALLOC_WRAP(cuMemAllocAsync, (uint64_t)(uintptr_t)s, (CUdeviceptr * p, size_t bytes, CUstream s), (p, bytes, s))
FREE_WRAP(cuMemFreeAsync, (uint64_t)(uintptr_t)s, (CUdeviceptr ptr, CUstream s), (ptr, s))
ALLOC_WRAP(cuMemAllocFromPoolAsync, (uint64_t)(uintptr_t)s, (CUdeviceptr * p, size_t bytes, CUmemoryPool pool, CUstream s), (p, bytes, pool, s))
ALLOC_WRAP(cuMemAllocAsync_ptsz, (uint64_t)(uintptr_t)s, (CUdeviceptr * p, size_t bytes, CUstream s), (p, bytes, s))
FREE_WRAP(cuMemFreeAsync_ptsz, (uint64_t)(uintptr_t)s, (CUdeviceptr ptr, CUstream s), (ptr, s))
ALLOC_WRAP(cuMemAllocFromPoolAsync_ptsz, (uint64_t)(uintptr_t)s, (CUdeviceptr * p, size_t bytes, CUmemoryPool pool, CUstream s), (p, bytes, pool, s))

/* ---- symbol table for dlsym / cuGetProcAddress ---- */
CUresult cuGetProcAddress(const char *sym, void **pfn, int version, cuuint64_t flags);
CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, cuuint64_t flags, void *status);
struct hook { const char *name; void *wrapper; void **real; };
#define HOOK(sym) {#sym, (void *)sym, (void **)&real_##sym}
static const struct hook HOOKS[] = {
    HOOK(cudaMalloc), HOOK(cudaFree), HOOK(cudaMallocAsync), HOOK(cudaFreeAsync), HOOK(cudaMallocFromPoolAsync),
    HOOK(cuMemAlloc), HOOK(cuMemFree), HOOK(cuMemAlloc_v2), HOOK(cuMemFree_v2),
    HOOK(cuMemAllocAsync), HOOK(cuMemFreeAsync), HOOK(cuMemAllocFromPoolAsync),
    HOOK(cuMemAllocAsync_ptsz), HOOK(cuMemFreeAsync_ptsz), HOOK(cuMemAllocFromPoolAsync_ptsz),
    HOOK(cuGetProcAddress), HOOK(cuGetProcAddress_v2),
};

static const struct hook *find_hook(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof HOOKS / sizeof HOOKS[0]; i++)
        if (strcmp(HOOKS[i].name, name) == 0) return &HOOKS[i];
    return NULL;
}

/* cuGetProcAddress takes the base name ("cuMemAlloc") and a CUDA version; which ABI it hands
 * back follows the version (v2 from 3.2) and the per-thread-stream flag (_ptsz). */
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM 2ULL
static const struct hook *proc_hook(const char *sym, int version, cuuint64_t flags) {
    char name[128];
    if (!sym || strlen(sym) > 100) return NULL;
    strcpy(name, sym);
    int ptsz = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    if ((strcmp(sym, "cuMemAlloc") == 0 || strcmp(sym, "cuMemFree") == 0) && version >= 3020) strcat(name, "_v2");
    if (ptsz && (strcmp(sym, "cuMemAllocAsync") == 0 || strcmp(sym, "cuMemFreeAsync") == 0 ||
                 strcmp(sym, "cuMemAllocFromPoolAsync") == 0))
        strcat(name, "_ptsz");
    if (strcmp(sym, "cuGetProcAddress") == 0 && version >= 12000) strcat(name, "_v2");
    return find_hook(name);
}

static void swap_in(const struct hook *h, void **pfn) {
    if (!h || !pfn || !*pfn || *pfn == h->wrapper) return;
    *h->real = *pfn;
    *pfn = h->wrapper;
}

CUresult cuGetProcAddress(const char *sym, void **pfn, int version, cuuint64_t flags) {
    cuGetProcAddress_t f = get_cuGetProcAddress();
    if (!f) return CUDA_ERROR_NOT_FOUND_DRV;
    CUresult r = f(sym, pfn, version, flags);
    if (r == 0) swap_in(proc_hook(sym, version, flags), pfn);
    return r;
}

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, cuuint64_t flags, void *status) {
    cuGetProcAddress_v2_t f = get_cuGetProcAddress_v2();
    if (!f) return CUDA_ERROR_NOT_FOUND_DRV;
    CUresult r = f(sym, pfn, version, flags, status);
    if (r == 0) swap_in(proc_hook(sym, version, flags), pfn);
    return r;
}

void *dlsym(void *handle, const char *name) {
    dlsym_fn d = real_dlsym_fn();
    if (!d) return NULL;
    void *p = d(handle, name);
    const struct hook *h = find_hook(name);
    if (p && h && handle != RTLD_NEXT) {
        if (p == h->wrapper) return p;
        *h->real = p;
        return h->wrapper;
    }
    return p;
}

/* ---- jobs ---- */
void tenor_job_begin(unsigned long long job) {
    pthread_mutex_lock(&g_lock);
    struct tbuf *b = my_buf();
    if (b) b->job = job;
    pthread_mutex_unlock(&g_lock);
}
void tenor_job_end(void) { tenor_job_begin(0); }

int nvtxRangePushA(const char *message) {
    pthread_mutex_lock(&g_lock);
    struct tbuf *b = my_buf();
    if (b && b->nvtx_depth++ == 0) {
        b->job_before_nvtx = b->job;
        b->job = ++g_next_job;
    }
    int depth = b ? (int)b->nvtx_depth - 1 : 0;
    pthread_mutex_unlock(&g_lock);
    nvtxRangePushA_t f = get_nvtxRangePushA();
    return f ? f(message) : depth;
}
int nvtxRangePop(void) {
    pthread_mutex_lock(&g_lock);
    struct tbuf *b = my_buf();
    int depth = -2;
    if (b && b->nvtx_depth > 0) {
        depth = (int)--b->nvtx_depth;
        if (depth == 0) b->job = b->job_before_nvtx;
    }
    pthread_mutex_unlock(&g_lock);
    nvtxRangePop_t f = get_nvtxRangePop();
    return f ? f() : depth;
}
