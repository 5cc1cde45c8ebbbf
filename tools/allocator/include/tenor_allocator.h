/* libtenor_allocator.so: Tenor's allocation strategies over Tenor's own CUDA pool, behind the hooks
 * of PyTorch (torch.cuda.memory.CUDAPluggableAllocator) and CuPy
 * (cupy.cuda.memory.CFunctionAllocator), so every library in a process draws from one pool.
 * Source: tools/allocator (Rust); configuration by TENOR_ALLOC_* variables, see docs/allocators.md.
 *
 * Contract: no function aborts or unwinds. A failed call returns NULL / 0 / a code, leaves the
 * allocator unchanged, and sets the calling thread's last error (tenor_alloc_last_error). */
#ifndef TENOR_ALLOC_H
#define TENOR_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result codes. */
typedef enum {
    TENOR_ALLOC_OK = 0,
    TENOR_ALLOC_ZERO_BYTES = 1,      /* request for 0 bytes: NULL, nothing allocated */
    TENOR_ALLOC_OUT_OF_MEMORY = 2,   /* device or TENOR_ALLOC_CAP full: NULL */
    TENOR_ALLOC_DOUBLE_FREE = 3,     /* pointer freed twice: ignored */
    TENOR_ALLOC_FOREIGN_POINTER = 4, /* pointer never handed out here: ignored */
    TENOR_ALLOC_CONFIG = 5,          /* a TENOR_ALLOC_* variable is not accepted */
    TENOR_ALLOC_BACKEND = 6,         /* device or driver error */
    TENOR_ALLOC_PANIC = 7,           /* internal error caught at the boundary */
    TENOR_ALLOC_BAD_ARGUMENT = 8,    /* negative size, other device, NULL output */
    TENOR_ALLOC_IO = 9               /* statistics file not written */
} tenor_alloc_code_t;

/* Statistics (bytes unless a count). */
typedef struct {
    uint64_t allocs, frees, failures;
    uint64_t used, peak_used, reserved, peak_reserved, live_blocks;
    uint64_t zero_byte_requests, out_of_memory, double_frees, foreign_frees;
} tenor_alloc_stats_t;

/* Opens the allocator on `device` now (else the first allocation does). */
int tenor_alloc_init(int device);

/* PyTorch CUDAPluggableAllocator hooks. `stream` is a cudaStream_t. */
void *tenor_torch_alloc(ssize_t size, int device, void *stream);
void tenor_torch_free(void *ptr, ssize_t size, int device, void *stream);

/* CuPy CFunctionAllocator hooks (param unused; blocks ordered on the legacy default stream). */
intptr_t tenor_cupy_malloc(intptr_t param, size_t size, int device_id);
void tenor_cupy_free(intptr_t param, intptr_t ptr, int device_id);

/* Statistics: struct, JSON (returns its length; written with NUL when len exceeds it), file. */
int tenor_alloc_stats(tenor_alloc_stats_t *out);
ptrdiff_t tenor_alloc_stats_json(char *buf, size_t len);
int tenor_alloc_write_stats(const char *path);

/* The calling thread's last result code; its message copied (truncated) into buf. */
int tenor_alloc_last_error(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
