/* The C ABI contract of libtenor_allocator.so, exercised through the header as PyTorch and CuPy
 * call it. Run by tools/allocator/tests/contract.rs with TENOR_ALLOC_BACKEND=host (host memory,
 * tests only), TENOR_ALLOC_CAP=64M and each TENOR_ALLOC_STRATEGY. Exits 1 at the first failed
 * check, naming it. Mode "config": the environment holds a bad value; every call must say so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenor_allocator.h"

static int failed = 0;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "FAIL line %d: %s: ", __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

static char msg[512];
static int last(void) { return tenor_alloc_last_error(msg, sizeof msg); }

static int filled(const unsigned char *p, size_t n, unsigned char v) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

static tenor_alloc_stats_t stats(void) {
    tenor_alloc_stats_t s;
    CHECK(tenor_alloc_stats(&s) == TENOR_ALLOC_OK, "stats");
    return s;
}

int main(int argc, char **argv) {
    void *stream_a = (void *)0x1, *stream_b = (void *)0x2; /* any handle value under the host backend */
    if (argc > 1 && strcmp(argv[1], "config") == 0) {
        CHECK(tenor_torch_alloc(64, 0, stream_a) == NULL, "allocated with a bad configuration");
        CHECK(last() == TENOR_ALLOC_CONFIG, "code %d: %s", last(), msg);
        printf("config error: %s\n", msg);
        CHECK(tenor_alloc_init(0) == TENOR_ALLOC_CONFIG, "init");
        return 0;
    }
    CHECK(tenor_alloc_init(0) == TENOR_ALLOC_OK, "init: %s", (last(), msg));

    /* Two libraries' blocks, live across everything below. */
    unsigned char *t = tenor_torch_alloc(1000, 0, stream_a);
    CHECK(t != NULL && last() == TENOR_ALLOC_OK, "torch alloc: %s", msg);
    memset(t, 0xAB, 1000);
    unsigned char *c = (unsigned char *)tenor_cupy_malloc(0, 5000, 0);
    CHECK(c != NULL && last() == TENOR_ALLOC_OK, "cupy malloc: %s", msg);
    memset(c, 0xCD, 5000);
    CHECK(c + 5000 <= t || t + 1000 <= c, "blocks overlap: %p %p", (void *)t, (void *)c);
    tenor_alloc_stats_t before = stats();
    CHECK(before.allocs == 2 && before.live_blocks == 2 && before.used == 6000, "allocs %lu live %lu used %lu",
          (unsigned long)before.allocs, (unsigned long)before.live_blocks, (unsigned long)before.used);

    /* Zero bytes and a negative size: NULL, a code, nothing allocated. */
    CHECK(tenor_torch_alloc(0, 0, stream_a) == NULL && last() == TENOR_ALLOC_ZERO_BYTES, "torch 0: %s", msg);
    CHECK(tenor_cupy_malloc(0, 0, 0) == 0 && last() == TENOR_ALLOC_ZERO_BYTES, "cupy 0: %s", msg);
    CHECK(tenor_torch_alloc(-8, 0, stream_a) == NULL && last() == TENOR_ALLOC_BAD_ARGUMENT, "negative: %s", msg);
    /* Another device than the pool's. */
    CHECK(tenor_torch_alloc(64, 1, stream_a) == NULL && last() == TENOR_ALLOC_BAD_ARGUMENT, "device 1: %s", msg);
    CHECK(strstr(msg, "device 1") != NULL, "message names the device: %s", msg);

    /* A foreign pointer: ignored with a message naming it. */
    int local = 7;
    tenor_torch_free(&local, sizeof local, 0, stream_a);
    CHECK(last() == TENOR_ALLOC_FOREIGN_POINTER, "foreign: code %d %s", last(), msg);
    char want[64];
    snprintf(want, sizeof want, "0x%lx", (unsigned long)(uintptr_t)&local);
    CHECK(strstr(msg, want) != NULL, "message names the pointer %s: %s", want, msg);
    tenor_cupy_free(0, (intptr_t)&local, 0);
    CHECK(last() == TENOR_ALLOC_FOREIGN_POINTER, "cupy foreign: %s", msg);
    /* NULL is a no-op. */
    tenor_torch_free(NULL, 0, 0, stream_a);
    CHECK(last() == TENOR_ALLOC_OK, "free NULL: %s", msg);

    /* A double free: the first succeeds, the second is refused. */
    void *d = tenor_torch_alloc(256, 0, stream_b);
    CHECK(d != NULL, "alloc d: %s", msg);
    tenor_torch_free(d, 256, 0, stream_b);
    CHECK(last() == TENOR_ALLOC_OK, "free d: %s", msg);
    tenor_torch_free(d, 256, 0, stream_b);
    CHECK(last() == TENOR_ALLOC_DOUBLE_FREE, "double free: code %d %s", last(), msg);
    intptr_t e = tenor_cupy_malloc(0, 300, 0);
    tenor_cupy_free(0, e, 0);
    tenor_cupy_free(0, e, 0);
    CHECK(last() == TENOR_ALLOC_DOUBLE_FREE, "cupy double free: %s", msg);

    /* Out of memory under the 64 MiB cap: NULL with requested and available bytes. */
    CHECK(tenor_torch_alloc(100 << 20, 0, stream_a) == NULL && last() == TENOR_ALLOC_OUT_OF_MEMORY, "oom: %s", msg);
    CHECK(strstr(msg, "104857600") != NULL, "message names the request: %s", msg);
    CHECK(tenor_cupy_malloc(0, 65u << 20, 0) == 0 && last() == TENOR_ALLOC_OUT_OF_MEMORY, "cupy oom: %s", msg);

    /* Nothing corrupted: the live blocks kept their bytes, the counts are unchanged, and memory
     * still comes (and is reused) after every refusal. */
    CHECK(filled(t, 1000, 0xAB) && filled(c, 5000, 0xCD), "live blocks overwritten");
    tenor_alloc_stats_t after = stats();
    CHECK(after.live_blocks == 2 && after.used == 6000, "live %lu used %lu", (unsigned long)after.live_blocks,
          (unsigned long)after.used);
    CHECK(after.allocs == 4 && after.frees == 2, "allocs %lu frees %lu", (unsigned long)after.allocs,
          (unsigned long)after.frees);
    CHECK(after.zero_byte_requests == 2 && after.foreign_frees == 2 && after.double_frees == 2 &&
              after.out_of_memory == 2,
          "zero %lu foreign %lu double %lu oom %lu", (unsigned long)after.zero_byte_requests,
          (unsigned long)after.foreign_frees, (unsigned long)after.double_frees, (unsigned long)after.out_of_memory);
    void *big = tenor_torch_alloc(32 << 20, 0, stream_a);
    CHECK(big != NULL, "32 MiB under the cap after the refusals: %s", msg);
    memset(big, 0x11, 32 << 20);
    tenor_torch_free(big, 32 << 20, 0, stream_a);
    CHECK(filled(t, 1000, 0xAB) && filled(c, 5000, 0xCD), "live blocks overwritten");
    tenor_torch_free(t, 1000, 0, stream_a);
    tenor_cupy_free(0, (intptr_t)c, 0);
    CHECK(last() == TENOR_ALLOC_OK, "final frees: %s", msg);

    /* Statistics as JSON: length first, then the text. */
    ptrdiff_t n = tenor_alloc_stats_json(NULL, 0);
    CHECK(n > 0, "json length");
    char *json = malloc((size_t)n + 1);
    CHECK(tenor_alloc_stats_json(json, (size_t)n + 1) == n && strlen(json) == (size_t)n, "json");
    CHECK(strstr(json, "\"double_frees\":2") != NULL && strstr(json, "\"live_blocks\":0") != NULL, "%s", json);
    printf("%s\n", json);
    free(json);
    if (argc > 1) CHECK(tenor_alloc_write_stats(argv[1]) == TENOR_ALLOC_OK, "write stats: %s", (last(), msg));
    CHECK(tenor_alloc_stats(NULL) == TENOR_ALLOC_BAD_ARGUMENT, "stats(NULL)");
    return failed;
}
