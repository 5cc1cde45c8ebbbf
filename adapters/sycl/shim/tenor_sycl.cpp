// Tenor's C ABI over a SYCL 2020 runtime, see tenor_sycl.h. One source for both
// implementations the adapter builds with (build.rs, TENOR_SYCL_IMPL):
//
// - Intel DPC++ (default): host code only, compiled by g++ against the runtime's headers;
//   device code is compiled at run time with sycl_ext_oneapi_kernel_compiler (Khronos SYCL 2020
//   and the oneAPI extension specifications: kernel_compiler, free_function_kernels,
//   enqueue_barrier, async_alloc).
// - AdaptiveCpp (TENOR_SYCL_IMPL=acpp, __ADAPTIVECPP__): compiled by acpp; the built-in kernels
//   were compiled ahead of time into the same library (build.rs, one translation unit per
//   kernel, each ending in TENOR_ACPP_KERNEL launchers: shim/tenor_sycl_acpp.hpp) and are found
//   by name and the hash of their translation unit; any other source (an in-house kernel) is
//   compiled by acpp at run time into a shared library, kept in a kernel cache and dlopen'ed.
//   Barriers are AdaptiveCpp custom operations; there is no stream-ordered allocation.
//   The differences are the #if TENOR_SYCL_ACPP blocks below.
#include "tenor_sycl.h"

#include <sycl/sycl.hpp>
#if defined(__ADAPTIVECPP__)
#define TENOR_SYCL_ACPP 1
#include <hipSYCL/runtime/error.hpp>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#else
#include <sycl/ext/oneapi/experimental/async_alloc/async_alloc.hpp>
#endif

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#if !defined(TENOR_SYCL_ACPP)
namespace syclex = sycl::ext::oneapi::experimental;
#endif

namespace {

thread_local std::string g_error;

// Sets the thread's message. Call it inside guard(): building `msg` may throw (bad_alloc),
// and guard turns that into a status; the move assignment itself cannot throw.
tsy_status fail(tsy_status s, std::string msg) noexcept {
    g_error = std::move(msg);
    return s;
}

// Sets the message from a C string without letting a failed host allocation escape: the
// message is then left empty, the status still says what happened.
tsy_status fail_noexcept(tsy_status s, const char *msg) noexcept {
    try {
        g_error = msg;
    } catch (...) {
        g_error.clear();
    }
    return s;
}

tsy_status from_sycl(const sycl::exception &e) noexcept {
    tsy_status s = TSY_ERR_SYCL;
    if (e.code() == sycl::errc::memory_allocation) s = TSY_ERR_OUT_OF_MEMORY;
    if (e.code() == sycl::errc::build) s = TSY_ERR_COMPILE;
    if (e.code() == sycl::errc::feature_not_supported) s = TSY_ERR_UNSUPPORTED;
    try {
        return fail(s, std::string(e.what()) + " (sycl errc " + std::to_string(e.code().value()) + ")");
    } catch (...) {
        return fail_noexcept(s, e.what());
    }
}

// Runs f, turning every exception into a status and a message: nothing crosses the C ABI.
// Every extern "C" function's whole body runs under it, argument checks included (their
// messages are std::strings, whose construction may throw).
template <class F>
tsy_status guard(F &&f) noexcept {
    try {
        return f();
    } catch (const sycl::exception &e) {
        return from_sycl(e);
    } catch (const std::bad_alloc &) {
        return fail_noexcept(TSY_ERR_OUT_OF_MEMORY, "host allocation failed (std::bad_alloc)");
    } catch (const std::exception &e) {
        return fail_noexcept(TSY_ERR_OTHER, e.what());
    } catch (...) {
        return fail_noexcept(TSY_ERR_OTHER, "unknown C++ exception");
    }
}

// Parses the N of "index:N": decimal digits only, at least one, nothing after them, no
// overflow. False for anything else ("index:foo", "index:", "index:1x", "index:-1").
bool parse_index(const std::string &digits, size_t *out) noexcept {
    if (digits.empty()) return false;
    for (unsigned char c : digits)
        if (!std::isdigit(c)) return false;
    errno = 0;
    char *end = nullptr;
    unsigned long long v = std::strtoull(digits.c_str(), &end, 10);
    if (errno == ERANGE || end != digits.c_str() + digits.size() || v > SIZE_MAX) return false;
    *out = static_cast<size_t>(v);
    return true;
}

// Selects Intel's OpenCL CPU runtime shipped beside libsycl (the PyPI intel-opencl-rt wheel)
// unless the user chose ICDs already. Must run before the first platform query.
void init_environment() {
    static std::once_flag once;
    std::call_once(once, [] {
#ifdef TENOR_SYCL_LIBDIR
        std::string ocl = std::string(TENOR_SYCL_LIBDIR) + "/libintelocl.so";
        FILE *f = std::fopen(ocl.c_str(), "rb");
        if (f != nullptr) {
            std::fclose(f);
            setenv("OCL_ICD_FILENAMES", ocl.c_str(), 0);
        }
#endif
    });
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

void copy_str(char *dst, size_t cap, const std::string &s) {
    if (cap == 0) return;
    size_t n = std::min(cap - 1, s.size());
    std::memcpy(dst, s.data(), n);
    dst[n] = '\0';
}

// Work whose completion releases a resource: a staged host copy or a USM block whose free
// was ordered after the queue's prior work.
struct Deferred {
    sycl::event done;
    void *usm;
    std::unique_ptr<char[]> staging;
    bool released = false;  // usm freed and staging dropped; the entry only waits to be erased
};

bool complete(const sycl::event &e) {
    return e.get_info<sycl::info::event::command_execution_status>() ==
           sycl::info::event_command_status::complete;
}

// An event completing when all work enqueued so far on the in-order queue q has, after `dep`
// when given (enqueue_barrier; AdaptiveCpp: an empty custom operation, what its own
// queue::get_wait_list uses as an asynchronous barrier).
sycl::event barrier(sycl::queue &q, const sycl::event *dep = nullptr) {
#if defined(TENOR_SYCL_ACPP)
    return q.submit([&](sycl::handler &h) {
        if (dep != nullptr) h.depends_on(*dep);
        h.AdaptiveCpp_enqueue_custom_operation([](sycl::interop_handle &) {});
    });
#else
    if (dep != nullptr) return q.ext_oneapi_submit_barrier({*dep});
    return q.ext_oneapi_submit_barrier();
#endif
}

#if defined(TENOR_SYCL_ACPP)
// A kernel's launcher: TENOR_ACPP_KERNEL(name) in shim/tenor_sycl_acpp.hpp.
typedef void (*acpp_launch_fn)(void *queue, uint64_t groups, uint32_t local, const void *args, size_t nargs);

// FNV-1a, 64 bits: the key of a translation unit (the same function as acpp_unit.rs's fnv1a64,
// which build.rs used to name the units it compiled).
uint64_t fnv1a64(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s != '\0'; ++s) {
        h ^= static_cast<unsigned char>(*s);
        h *= 0x100000001b3ull;
    }
    return h;
}
#endif

}  // namespace

struct tsy_device {
    sycl::device dev;
    sycl::context ctx;
    std::mutex mu;
    std::vector<std::string> async_errors;
    std::atomic<bool> lost_async{false};  // an asynchronous error whose message could not be kept
    std::vector<Deferred> deferred;

    // Releases the resources whose work completed (all of them with wait_all).
    //
    // Exception-safe: an entry is marked released (its pointer cleared) before anything else
    // can throw, and the released entries are erased on every exit, so when wait() or
    // complete() throws part-way the list holds only entries not yet freed: no double free on
    // the next reap. The erase moves events and unique_ptrs, which cannot throw.
    void reap(bool wait_all) {
        std::lock_guard<std::mutex> lock(mu);
        auto erase_released = [this]() noexcept {
            deferred.erase(std::remove_if(deferred.begin(), deferred.end(),
                                          [](const Deferred &d) noexcept { return d.released; }),
                           deferred.end());
        };
        try {
            for (auto &d : deferred) {
                if (wait_all) d.done.wait();
                if (!wait_all && !complete(d.done)) continue;
                void *usm = d.usm;
                d.usm = nullptr;
                d.staging.reset();
                d.released = true;
                if (usm != nullptr) sycl::free(usm, ctx);
            }
        } catch (...) {
            erase_released();
            throw;
        }
        erase_released();
    }
    void defer(sycl::event e, void *usm, std::unique_ptr<char[]> staging) {
        std::lock_guard<std::mutex> lock(mu);
        deferred.push_back(Deferred{std::move(e), usm, std::move(staging)});
    }
    // Called from the queue's async_handler, which must not throw: a message that cannot be
    // kept (no host memory, or a mutex error) is replaced by a fixed one, or at worst lost.
    void keep_async(const char *what, int code) noexcept {
        try {
            std::string msg = std::string(what) + (code != 0 ? " (sycl errc " + std::to_string(code) + ")" : "");
            std::lock_guard<std::mutex> lock(mu);
            async_errors.push_back(std::move(msg));
        } catch (...) {
            lost_async = true;
        }
    }
    // Call under guard(): it builds strings and locks the mutex.
    tsy_status take_async() {
        std::lock_guard<std::mutex> lock(mu);
        if (lost_async.exchange(false) && async_errors.empty())
            return fail(TSY_ERR_ASYNC, "an asynchronous SYCL error whose message could not be kept");
        if (async_errors.empty()) return TSY_OK;
        std::string first = async_errors.front();
        size_t more = async_errors.size() - 1;
        async_errors.clear();
        if (more > 0) first += " (and " + std::to_string(more) + " more asynchronous errors)";
        return fail(TSY_ERR_ASYNC, first);
    }
};

struct tsy_queue {
    tsy_device *owner;
    sycl::queue q;
};

struct tsy_event {
    tsy_device *owner;
    sycl::event ev;
    // AdaptiveCpp: the queue it was recorded on. Its events carry no async_handler
    // (event::wait_and_throw calls an empty one), so a wait delivers the runtime's
    // asynchronous errors through the queue's handler instead (throw_asynchronous).
    sycl::queue queue;
};

namespace {
// Waits for ev, then hands asynchronous errors to the queue's async_handler (kept on the device).
void wait_and_deliver(tsy_event *ev) {
#if defined(TENOR_SYCL_ACPP)
    ev->ev.wait();
    ev->queue.throw_asynchronous();
#else
    ev->ev.wait_and_throw();
#endif
}
}  // namespace

struct tsy_usm {
    void *ptr;
    size_t bytes;
    bool async;
};

struct tsy_bundle {
#if defined(TENOR_SYCL_ACPP)
    acpp_launch_fn launch;
    void *library;  // the dlopen handle of a run-time compiled kernel (never closed), or null
#else
    sycl::kernel kernel;
#endif
};

#if defined(TENOR_SYCL_ACPP)
// The table build.rs generated: every built-in kernel, with the hash of its translation unit.
struct tenor_acpp_builtin {
    const char *name;
    uint64_t unit_hash;
    acpp_launch_fn launch;
};
extern "C" const tenor_acpp_builtin tenor_acpp_builtins[];
extern "C" const size_t tenor_acpp_builtin_count;

namespace {
std::string env_or(const char *name, const std::string &fallback) {
    const char *v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

bool exists(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

// The kernel cache of run-time compiled units: TENOR_ACPP_KERNEL_CACHE, else
// $HOME/.cache/tenor/acpp-kernels (one <hash>.so per translation unit and target list).
std::string kernel_cache() {
    return env_or("TENOR_ACPP_KERNEL_CACHE", env_or("HOME", "/tmp") + "/.cache/tenor/acpp-kernels");
}

// Compiles `source` with acpp into the kernel cache (or takes it from there), dlopens it and
// finds `name`'s launcher. Call under guard().
tsy_status build_at_run_time(const char *source, const char *name, tsy_bundle **out) {
    std::string targets = TENOR_ACPP_TARGETS;
    char key[40];
    std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(fnv1a64(source) ^ fnv1a64(targets.c_str())));
    std::string dir = kernel_cache();
    std::string lib = dir + "/" + key + ".so";
    if (!exists(lib)) {
        std::string root = env_or("TENOR_ACPP_ROOT", TENOR_ACPP_ROOT);
        std::string acpp = root + "/bin/acpp";
        if (!exists(acpp))
            return fail(TSY_ERR_COMPILE, std::string("kernel ") + name + ": not built in, not in the kernel cache (" + lib +
                                             ") and no AdaptiveCpp compiler to build it at " + acpp +
                                             " (set TENOR_ACPP_ROOT, or fill the cache where acpp exists)");
        std::string mk = "mkdir -p '" + dir + "'";
        if (std::system(mk.c_str()) != 0) return fail(TSY_ERR_COMPILE, "cannot create the kernel cache " + dir);
        std::string src = dir + "/" + key + ".cpp";
        std::string tmp = dir + "/" + key + "." + std::to_string(::getpid()) + ".tmp.so";
        std::string log = dir + "/" + key + ".log";
        {
            std::ofstream f(src, std::ios::binary | std::ios::trunc);
            f << source;
            if (!f) return fail(TSY_ERR_COMPILE, "cannot write " + src);
        }
        std::string cmd = "'" + acpp + "' -O3 -std=c++17 --acpp-targets='" + targets + "' -fPIC -shared -o '" + tmp +
                          "' '" + src + "' >'" + log + "' 2>&1";
        int rc = std::system(cmd.c_str());
        if (rc != 0) {
            std::ifstream l(log);
            std::stringstream text;
            text << l.rdbuf();
            std::remove(tmp.c_str());
            return fail(TSY_ERR_COMPILE, std::string("acpp failed on kernel ") + name + " (" + src + "):\n" + text.str());
        }
        // Atomic: another process sees the whole library or none.
        if (std::rename(tmp.c_str(), lib.c_str()) != 0) return fail(TSY_ERR_COMPILE, "cannot move " + tmp + " to " + lib);
    }
    void *h = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
        const char *e = ::dlerror();
        return fail(TSY_ERR_COMPILE, "dlopen " + lib + ": " + (e != nullptr ? e : "unknown error"));
    }
    std::string sym = std::string("tenor_acpp_launch_") + name;
    void *f = ::dlsym(h, sym.c_str());
    if (f == nullptr) return fail(TSY_ERR_NOT_FOUND, std::string("the source defines no kernel named ") + name);
    *out = new tsy_bundle{reinterpret_cast<acpp_launch_fn>(f), h};
    return TSY_OK;
}
}  // namespace
#endif

extern "C" {

const char *tsy_last_error(void) noexcept { return g_error.c_str(); }

tsy_status tsy_device_count(size_t *out) noexcept {
    return guard([&] {
        if (out == nullptr) return fail(TSY_ERR_INVALID, "tsy_device_count: null out");
        init_environment();
        *out = sycl::device::get_devices().size();
        return TSY_OK;
    });
}

tsy_status tsy_device_name(size_t index, char *buf, size_t len) noexcept {
    return guard([&] {
        if (buf == nullptr) return fail(TSY_ERR_INVALID, "tsy_device_name: null buffer");
        init_environment();
        auto devs = sycl::device::get_devices();
        if (index >= devs.size())
            return fail(TSY_ERR_NOT_FOUND, "device index " + std::to_string(index) + " of " +
                                               std::to_string(devs.size()));
        const sycl::device &d = devs[index];
        std::string s = d.get_info<sycl::info::device::name>() + " [" +
                        d.get_platform().get_info<sycl::info::platform::name>() + "]";
        copy_str(buf, len, s);
        return TSY_OK;
    });
}

tsy_status tsy_device_open(const char *selector, tsy_device **out) noexcept {
    return guard([&] {
        if (selector == nullptr || out == nullptr) return fail(TSY_ERR_INVALID, "tsy_device_open: null argument");
        init_environment();
        std::string sel = lower(selector);
        auto devs = sycl::device::get_devices();
        const sycl::device *chosen = nullptr;
        sycl::device dflt;
        if (sel == "default" || sel.empty()) {
            dflt = sycl::device(sycl::default_selector_v);
            chosen = &dflt;
        } else if (sel.rfind("index:", 0) == 0) {
            size_t i = 0;
            if (!parse_index(sel.substr(6), &i))
                return fail(TSY_ERR_INVALID, "SYCL device selector \"" + std::string(selector) +
                                                 "\": the index after \"index:\" must be decimal digits");
            if (i < devs.size()) chosen = &devs[i];
        } else {
            for (const auto &d : devs) {
                bool hit = (sel == "cpu" && d.is_cpu()) || (sel == "gpu" && d.is_gpu()) ||
                           (sel != "cpu" && sel != "gpu" &&
                            lower(d.get_info<sycl::info::device::name>()).find(sel) != std::string::npos);
                if (hit) {
                    chosen = &d;
                    break;
                }
            }
        }
        if (chosen == nullptr) {
            std::string names;
            for (const auto &d : devs) names += (names.empty() ? "" : ", ") + d.get_info<sycl::info::device::name>();
            return fail(TSY_ERR_NOT_FOUND, "no SYCL device matches \"" + std::string(selector) + "\" (devices: " +
                                               (names.empty() ? std::string("none") : names) + ")");
        }
        auto d = std::make_unique<tsy_device>();
        d->dev = *chosen;
#if defined(TENOR_SYCL_ACPP)
        // AdaptiveCpp's contexts hold no state of their own: memory, events and kernels of
        // one backend device are valid across them.
        d->ctx = sycl::context(*chosen);
#else
        // The platform's default context: every tsy_device of one SYCL device shares it, so
        // kernel bundles and events are valid across them.
        d->ctx = chosen->get_platform().ext_oneapi_get_default_context();
#endif
        *out = d.release();
        return TSY_OK;
    });
}

tsy_status tsy_device_info(const tsy_device *dev, tsy_info *out) noexcept {
    return guard([&] {
        if (dev == nullptr || out == nullptr) return fail(TSY_ERR_INVALID, "tsy_device_info: null argument");
        const sycl::device &d = dev->dev;
        std::memset(out, 0, sizeof(*out));
        copy_str(out->name, sizeof(out->name), d.get_info<sycl::info::device::name>());
        copy_str(out->vendor, sizeof(out->vendor), d.get_info<sycl::info::device::vendor>());
        copy_str(out->platform, sizeof(out->platform), d.get_platform().get_info<sycl::info::platform::name>());
        copy_str(out->driver_version, sizeof(out->driver_version), d.get_info<sycl::info::device::driver_version>());
        copy_str(out->backend_version, sizeof(out->backend_version), d.get_info<sycl::info::device::version>());
        out->global_mem_bytes = d.get_info<sycl::info::device::global_mem_size>();
        out->compute_units = d.get_info<sycl::info::device::max_compute_units>();
        out->max_work_group_size = static_cast<uint32_t>(d.get_info<sycl::info::device::max_work_group_size>());
        out->fp64 = d.has(sycl::aspect::fp64);
        out->usm_device = d.has(sycl::aspect::usm_device_allocations);
#if defined(TENOR_SYCL_ACPP)
        // No stream-ordered allocation; kernels are built in or compiled by acpp (or taken
        // from the kernel cache): tsy_bundle_build says which when one is missing.
        out->async_alloc = 0;
        out->kernel_compiler = 1;
#else
        out->async_alloc = d.has(sycl::aspect::ext_oneapi_async_memory_alloc);
        out->kernel_compiler = const_cast<sycl::device &>(d).ext_oneapi_can_build(syclex::source_language::sycl);
#endif
        out->is_cpu = d.is_cpu();
        out->is_gpu = d.is_gpu();
        out->identity = static_cast<uint64_t>(std::hash<sycl::device>{}(d));
        return TSY_OK;
    });
}

tsy_status tsy_device_take_async(tsy_device *dev) noexcept {
    return guard([&] {
        if (dev == nullptr) return fail(TSY_ERR_INVALID, "tsy_device_take_async: null device");
        return dev->take_async();
    });
}

void tsy_device_close(tsy_device *dev) noexcept {
    if (dev == nullptr) return;
    (void)guard([&] {
        dev->reap(true);
        return TSY_OK;
    });
    delete dev;
}

tsy_status tsy_queue_create(tsy_device *dev, tsy_queue **out) noexcept {
    return guard([&] {
        if (dev == nullptr || out == nullptr) return fail(TSY_ERR_INVALID, "tsy_queue_create: null argument");
        // Asynchronous errors are kept on the device, never thrown: the handler must not throw
        // (keep_async is noexcept).
        auto handler = [dev](sycl::exception_list list) noexcept {
            for (const auto &ep : list) {
                try {
                    std::rethrow_exception(ep);
                } catch (const sycl::exception &e) {
                    dev->keep_async(e.what(), e.code().value());
                } catch (const std::exception &e) {
                    dev->keep_async(e.what(), 0);
                } catch (...) {
                    dev->keep_async("unknown asynchronous exception", 0);
                }
            }
        };
        auto q = std::make_unique<tsy_queue>(
            tsy_queue{dev, sycl::queue(dev->ctx, dev->dev, handler, sycl::property_list{sycl::property::queue::in_order()})});
        *out = q.release();
        return TSY_OK;
    });
}

tsy_status tsy_queue_wait(tsy_queue *q) noexcept {
    return guard([&] {
        if (q == nullptr) return fail(TSY_ERR_INVALID, "tsy_queue_wait: null queue");
        q->q.wait_and_throw();
        q->owner->reap(false);
        return q->owner->take_async();
    });
}

tsy_status tsy_queue_record(tsy_queue *q, tsy_event **out) noexcept {
    return guard([&] {
        if (q == nullptr || out == nullptr) return fail(TSY_ERR_INVALID, "tsy_queue_record: null argument");
        auto e = std::make_unique<tsy_event>(tsy_event{q->owner, barrier(q->q), q->q});
        *out = e.release();
        return TSY_OK;
    });
}

tsy_status tsy_queue_wait_event(tsy_queue *q, const tsy_event *ev) noexcept {
    return guard([&] {
        if (q == nullptr || ev == nullptr) return fail(TSY_ERR_INVALID, "tsy_queue_wait_event: null argument");
        barrier(q->q, &ev->ev);
        return TSY_OK;
    });
}

void tsy_queue_destroy(tsy_queue *q) noexcept {
    if (q == nullptr) return;
    (void)guard([&] {
        q->q.wait();
        return TSY_OK;
    });
    delete q;
}

tsy_status tsy_queue_fail_async(tsy_queue *q, const char *message) noexcept {
    return guard([&] {
        if (q == nullptr || message == nullptr) return fail(TSY_ERR_INVALID, "tsy_queue_fail_async: null argument");
        std::string msg(message);
#if defined(TENOR_SYCL_ACPP)
        // AdaptiveCpp has no host_task, and an exception thrown in a custom operation ends the
        // process (its worker thread does not catch it): the custom operation registers the
        // error in the runtime's asynchronous error queue instead, as AdaptiveCpp's backends do
        // with theirs (hipSYCL/runtime/error.hpp); the next wait hands it to the async_handler.
        q->q.submit([&](sycl::handler &h) {
            h.AdaptiveCpp_enqueue_custom_operation([msg](sycl::interop_handle &) {
                hipsycl::rt::register_error(__acpp_here(), hipsycl::rt::error_info{msg});
            });
        });
#else
        q->q.submit([&](sycl::handler &h) { h.host_task([msg] { throw std::runtime_error(msg); }); });
#endif
        return TSY_OK;
    });
}

tsy_status tsy_event_wait(tsy_event *ev) noexcept {
    return guard([&] {
        if (ev == nullptr) return fail(TSY_ERR_INVALID, "tsy_event_wait: null event");
        wait_and_deliver(ev);
        return ev->owner->take_async();
    });
}

tsy_status tsy_event_wait_keep(tsy_event *ev) noexcept {
    return guard([&] {
        if (ev == nullptr) return fail(TSY_ERR_INVALID, "tsy_event_wait_keep: null event");
        wait_and_deliver(ev);
        return TSY_OK;
    });
}

tsy_status tsy_event_query(const tsy_event *ev, int *done) noexcept {
    return guard([&] {
        if (ev == nullptr || done == nullptr) return fail(TSY_ERR_INVALID, "tsy_event_query: null argument");
        *done = complete(ev->ev) ? 1 : 0;
        return TSY_OK;
    });
}

void tsy_event_destroy(tsy_event *ev) noexcept { delete ev; }

tsy_status tsy_usm_alloc(tsy_queue *q, size_t bytes, int async, tsy_usm **out) noexcept {
    return guard([&] {
        if (q == nullptr || out == nullptr) return fail(TSY_ERR_INVALID, "tsy_usm_alloc: null argument");
        q->owner->reap(false);
        void *p = nullptr;
        if (async != 0) {
#if defined(TENOR_SYCL_ACPP)
            return fail(TSY_ERR_UNSUPPORTED, "stream-ordered allocation (async_alloc) is not in AdaptiveCpp");
#else
            p = syclex::async_malloc(q->q, sycl::usm::alloc::device, bytes);
#endif
        } else {
            p = sycl::malloc_device(bytes, q->owner->dev, q->owner->ctx);
        }
        if (p == nullptr)
            return fail(TSY_ERR_OUT_OF_MEMORY, "USM device allocation of " + std::to_string(bytes) + " bytes failed");
        *out = new tsy_usm{p, bytes, async != 0};
        return TSY_OK;
    });
}

uint64_t tsy_usm_address(const tsy_usm *m) noexcept { return m == nullptr ? 0 : reinterpret_cast<uint64_t>(m->ptr); }

tsy_status tsy_usm_free(tsy_queue *q, tsy_usm *m) noexcept {
    return guard([&] {
        if (q == nullptr || m == nullptr) return fail(TSY_ERR_INVALID, "tsy_usm_free: null argument");
        if (m->async) {
#if !defined(TENOR_SYCL_ACPP)
            syclex::async_free(q->q, m->ptr);
#endif
        } else {
            // Stream-ordered release: the memory goes back once the queue's prior work is done.
            q->owner->defer(barrier(q->q), m->ptr, nullptr);
        }
        delete m;
        return TSY_OK;
    });
}

tsy_status tsy_copy_h2d(tsy_queue *q, uint64_t dst, const void *src, size_t len) noexcept {
    return guard([&] {
        if (q == nullptr || (src == nullptr && len > 0)) return fail(TSY_ERR_INVALID, "tsy_copy_h2d: null argument");
        if (len == 0) return TSY_OK;
        std::unique_ptr<char[]> stage(new char[len]);
        std::memcpy(stage.get(), src, len);
        sycl::event e = q->q.memcpy(reinterpret_cast<void *>(dst), stage.get(), len);
        q->owner->defer(std::move(e), nullptr, std::move(stage));
        return TSY_OK;
    });
}

tsy_status tsy_copy_d2h(tsy_queue *q, void *dst, uint64_t src, size_t len, tsy_event **out) noexcept {
    return guard([&] {
        if (q == nullptr || out == nullptr || (dst == nullptr && len > 0))
            return fail(TSY_ERR_INVALID, "tsy_copy_d2h: null argument");
        sycl::event e = len == 0 ? barrier(q->q)
                                 : q->q.memcpy(dst, reinterpret_cast<const void *>(src), len);
        *out = new tsy_event{q->owner, std::move(e), q->q};
        return TSY_OK;
    });
}

tsy_status tsy_bundle_build(tsy_device *dev, const char *source, const char *name, tsy_bundle **out) noexcept {
    return guard([&] {
        if (dev == nullptr || source == nullptr || name == nullptr || out == nullptr)
            return fail(TSY_ERR_INVALID, "tsy_bundle_build: null argument");
#if defined(TENOR_SYCL_ACPP)
        uint64_t h = fnv1a64(source);
        for (size_t i = 0; i < tenor_acpp_builtin_count; ++i) {
            const tenor_acpp_builtin &b = tenor_acpp_builtins[i];
            if (b.unit_hash == h && std::strcmp(b.name, name) == 0) {
                *out = new tsy_bundle{b.launch, nullptr};
                return TSY_OK;
            }
        }
        return build_at_run_time(source, name, out);
#else
        std::string log;
        tsy_status s = guard([&] {
            if (!dev->dev.ext_oneapi_can_build(syclex::source_language::sycl))
                return fail(TSY_ERR_UNSUPPORTED, "device cannot build SYCL source (kernel_compiler)");
            auto src = syclex::create_kernel_bundle_from_source(dev->ctx, syclex::source_language::sycl,
                                                                std::string(source));
            auto exe =
                syclex::build(src, std::vector<sycl::device>{dev->dev}, syclex::properties{syclex::save_log{&log}});
            if (!exe.ext_oneapi_has_kernel(name))
                return fail(TSY_ERR_NOT_FOUND, std::string("the source defines no kernel named ") + name);
            *out = new tsy_bundle{exe.ext_oneapi_get_kernel(name)};
            return TSY_OK;
        });
        if (s == TSY_ERR_COMPILE && !log.empty()) g_error += "\n" + log;
        return s;
#endif
    });
}

void tsy_bundle_destroy(tsy_bundle *b) noexcept { delete b; }

tsy_status tsy_launch(tsy_queue *q, const tsy_bundle *b, uint64_t groups, uint32_t local, const tsy_arg *args,
                      size_t nargs) noexcept {
    return guard([&] {
        if (q == nullptr || b == nullptr || (args == nullptr && nargs > 0) || local == 0)
            return fail(TSY_ERR_INVALID, "tsy_launch: null argument or zero work-group size");
        for (size_t i = 0; i < nargs; ++i)
            if (args[i].kind > TSY_ARG_F64)
                return fail(TSY_ERR_INVALID, "tsy_launch: argument " + std::to_string(i) + " has unknown kind " +
                                                 std::to_string(args[i].kind));
        if (groups == 0) return TSY_OK;
#if defined(TENOR_SYCL_ACPP)
        b->launch(&q->q, groups, local, args, nargs);
#else
        q->q.submit([&](sycl::handler &h) {
            for (size_t i = 0; i < nargs; ++i) {
                uint64_t v = args[i].bits;
                switch (args[i].kind) {
                    case TSY_ARG_PTR: h.set_arg(static_cast<int>(i), reinterpret_cast<void *>(v)); break;
                    case TSY_ARG_U32: h.set_arg(static_cast<int>(i), static_cast<uint32_t>(v)); break;
                    case TSY_ARG_I32: h.set_arg(static_cast<int>(i), static_cast<int32_t>(static_cast<uint32_t>(v))); break;
                    case TSY_ARG_U64: h.set_arg(static_cast<int>(i), v); break;
                    case TSY_ARG_F32: {
                        uint32_t w = static_cast<uint32_t>(v);
                        float f;
                        std::memcpy(&f, &w, 4);
                        h.set_arg(static_cast<int>(i), f);
                        break;
                    }
                    default: {
                        double d;
                        std::memcpy(&d, &v, 8);
                        h.set_arg(static_cast<int>(i), d);
                        break;
                    }
                }
            }
            h.parallel_for(sycl::nd_range<1>(sycl::range<1>(groups * local), sycl::range<1>(local)), b->kernel);
        });
#endif
        return TSY_OK;
    });
}

}  // extern "C"
