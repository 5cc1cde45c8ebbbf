/* Tenor's C ABI over the SYCL 2020 runtime (Intel DPC++).
 *
 * Opaque handles: tsy_device (a device and its context), tsy_queue (an in-order queue: a Tenor
 * stream), tsy_event, tsy_usm (a USM device allocation) and tsy_bundle (a kernel compiled at run
 * time with the sycl_ext_oneapi_kernel_compiler extension). Every function returns a tsy_status;
 * on failure tsy_last_error() gives the message (thread-local, valid until the next call on the
 * same thread). No C++ exception crosses this interface: synchronous exceptions are caught in
 * each function and asynchronous ones (the queue's async_handler) are kept on the device and
 * returned by the next wait or synchronisation.
 */
#ifndef TENOR_SYCL_H
#define TENOR_SYCL_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
/* Every function is noexcept: its body runs under a catch-all, so no exception can unwind into
 * the caller (a Rust frame, where that would be undefined behaviour). */
#define TSY_NOEXCEPT noexcept
extern "C" {
#else
#define TSY_NOEXCEPT
#endif

typedef enum tsy_status {
    TSY_OK = 0,
    TSY_ERR_SYCL = 1,        /* a sycl::exception (synchronous) */
    TSY_ERR_ASYNC = 2,       /* an asynchronous sycl::exception, reported at a wait */
    TSY_ERR_INVALID = 3,     /* a bad argument (null handle, unknown argument kind) */
    TSY_ERR_NOT_FOUND = 4,   /* no device matches the selector */
    TSY_ERR_COMPILE = 5,     /* the kernel source did not compile (message holds the log) */
    TSY_ERR_OUT_OF_MEMORY = 6,
    TSY_ERR_UNSUPPORTED = 7,
    TSY_ERR_OTHER = 8        /* a std::exception or an unknown exception */
} tsy_status;

typedef struct tsy_device tsy_device;
typedef struct tsy_queue tsy_queue;
typedef struct tsy_event tsy_event;
typedef struct tsy_usm tsy_usm;
typedef struct tsy_bundle tsy_bundle;

/* Device description; strings are NUL-terminated and truncated to fit. */
typedef struct tsy_info {
    char name[256];
    char vendor[128];
    char platform[256];
    char driver_version[128];
    char backend_version[128];
    uint64_t global_mem_bytes;
    uint32_t compute_units;
    uint32_t max_work_group_size;
    uint32_t fp64;             /* aspect::fp64 */
    uint32_t usm_device;       /* aspect::usm_device_allocations */
    uint32_t async_alloc;      /* aspect::ext_oneapi_async_memory_alloc */
    uint32_t kernel_compiler;  /* can build source_language::sycl */
    uint32_t is_cpu;
    uint32_t is_gpu;
    uint64_t identity;         /* std::hash<sycl::device>: equal for the same device (SYCL 2020 4.5.2) */
} tsy_info;

/* Positional kernel argument. */
typedef enum tsy_arg_kind { TSY_ARG_PTR = 0, TSY_ARG_U32 = 1, TSY_ARG_I32 = 2, TSY_ARG_U64 = 3, TSY_ARG_F32 = 4, TSY_ARG_F64 = 5 } tsy_arg_kind;
typedef struct tsy_arg {
    uint32_t kind;   /* tsy_arg_kind */
    uint32_t pad;
    uint64_t bits;   /* the value's bits: a device address, an integer, or an IEEE float's bits */
} tsy_arg;

const char *tsy_last_error(void) TSY_NOEXCEPT;

/* Devices: number of devices, the name of device `index` (copied into buf), opening one by
 * selector: "cpu", "gpu", "default", "index:N", or a case-insensitive substring of the name. */
tsy_status tsy_device_count(size_t *out) TSY_NOEXCEPT;
tsy_status tsy_device_name(size_t index, char *buf, size_t len) TSY_NOEXCEPT;
tsy_status tsy_device_open(const char *selector, tsy_device **out) TSY_NOEXCEPT;
tsy_status tsy_device_info(const tsy_device *dev, tsy_info *out) TSY_NOEXCEPT;
/* Takes the first asynchronous error kept on the device (TSY_OK when none). */
tsy_status tsy_device_take_async(tsy_device *dev) TSY_NOEXCEPT;
void tsy_device_close(tsy_device *dev) TSY_NOEXCEPT;

/* In-order queues. */
tsy_status tsy_queue_create(tsy_device *dev, tsy_queue **out) TSY_NOEXCEPT;
tsy_status tsy_queue_wait(tsy_queue *q) TSY_NOEXCEPT;
/* An event completing when all work enqueued so far on q has (a barrier). */
tsy_status tsy_queue_record(tsy_queue *q, tsy_event **out) TSY_NOEXCEPT;
/* Later work on q waits for ev (an event of any queue of the same context). */
tsy_status tsy_queue_wait_event(tsy_queue *q, const tsy_event *ev) TSY_NOEXCEPT;
void tsy_queue_destroy(tsy_queue *q) TSY_NOEXCEPT;
/* Enqueues a host task that throws std::runtime_error(message): a genuine asynchronous error,
 * which the runtime delivers to the queue's async_handler and the next wait returns as
 * TSY_ERR_ASYNC. For tests of that path: we found no kernel or launch that makes the OpenCL
 * CPU device report an asynchronous error. */
tsy_status tsy_queue_fail_async(tsy_queue *q, const char *message) TSY_NOEXCEPT;

tsy_status tsy_event_wait(tsy_event *ev) TSY_NOEXCEPT;
/* Waits without taking the device's kept asynchronous errors (they stay for the next wait). */
tsy_status tsy_event_wait_keep(tsy_event *ev) TSY_NOEXCEPT;
tsy_status tsy_event_query(const tsy_event *ev, int *complete) TSY_NOEXCEPT;
void tsy_event_destroy(tsy_event *ev) TSY_NOEXCEPT;

/* USM device memory. With async != 0 the allocation and the free are stream-ordered on q
 * (sycl_ext_oneapi_async_alloc; only where the device has the aspect). Otherwise malloc_device,
 * and the free waits for the work enqueued so far on q before releasing the memory. */
tsy_status tsy_usm_alloc(tsy_queue *q, size_t bytes, int async, tsy_usm **out) TSY_NOEXCEPT;
uint64_t tsy_usm_address(const tsy_usm *m) TSY_NOEXCEPT;
tsy_status tsy_usm_free(tsy_queue *q, tsy_usm *m) TSY_NOEXCEPT;

/* Copies. h2d copies src into a staging buffer before it returns; d2h writes into dst, which
 * must stay valid until *out (the copy's event) completes. */
tsy_status tsy_copy_h2d(tsy_queue *q, uint64_t dst, const void *src, size_t len) TSY_NOEXCEPT;
tsy_status tsy_copy_d2h(tsy_queue *q, void *dst, uint64_t src, size_t len, tsy_event **out) TSY_NOEXCEPT;

/* Kernels: source is a complete SYCL translation unit defining an extern "C" free-function
 * kernel named `name` with the nd_range_kernel<1> property. */
tsy_status tsy_bundle_build(tsy_device *dev, const char *source, const char *name, tsy_bundle **out) TSY_NOEXCEPT;
void tsy_bundle_destroy(tsy_bundle *b) TSY_NOEXCEPT;
/* Launches over `groups` work-groups of `local` work-items. */
tsy_status tsy_launch(tsy_queue *q, const tsy_bundle *b, uint64_t groups, uint32_t local, const tsy_arg *args,
                      size_t nargs) TSY_NOEXCEPT;

#ifdef __cplusplus
}
#endif
#endif
