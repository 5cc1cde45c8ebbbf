// AdaptiveCpp targets compared on the fused Monte Carlo kernels (ADR 0018, "measure and choose"):
// the same kernel units the adapter compiles (build.rs: OUT_DIR/acpp/<kernel>_<hash>.cpp, with
// their TENOR_ACPP_KERNEL launchers), linked into this program once per target
// (scripts/gpu-stacks.d/sycl.sh builds `acpp-targets-generic` and `acpp-targets-sm90`).
// For each kernel: the first launch and wait (cold: for the generic target this includes the
// JIT to PTX and the driver's PTX load), then the median of 7 warm launches; the price from
// the partials, for a check against the pilot's and Black-Scholes. One JSON line per kernel.
//
//   acpp-targets-<target> [european_pairs] [asian_pairs]   (defaults 2^29 and 2^22)
#include <sycl/sycl.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" void tenor_acpp_launch_mc_european(void *, uint64_t, uint32_t, const void *, size_t);
extern "C" void tenor_acpp_launch_mc_european_f32(void *, uint64_t, uint32_t, const void *, size_t);
extern "C" void tenor_acpp_launch_mc_asian(void *, uint64_t, uint32_t, const void *, size_t);
extern "C" void tenor_acpp_launch_mc_asian_f32(void *, uint64_t, uint32_t, const void *, size_t);

namespace {
struct arg {
    uint32_t kind, pad;
    uint64_t bits;
};
arg ptr(void *p) { return {0, 0, reinterpret_cast<uint64_t>(p)}; }
arg u32(uint32_t v) { return {1, 0, v}; }
arg u64(uint64_t v) { return {3, 0, v}; }
arg f32(float v) {
    uint32_t w;
    std::memcpy(&w, &v, 4);
    return {4, 0, w};
}
arg f64(double v) {
    uint64_t w;
    std::memcpy(&w, &v, 8);
    return {5, 0, w};
}
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

typedef void (*launch_fn)(void *, uint64_t, uint32_t, const void *, size_t);

// Times `launch` (cold, then 7 warm) and prints its JSON line; returns the mean of partials[0]
// over the work units (the price for mc_european: sum Y / pairs).
void run(sycl::queue &q, const char *target, const char *kernel, launch_fn launch, uint64_t pairs, uint32_t steps,
         size_t per_block, std::vector<arg> args) {
    const uint64_t block = 4096, local = 256;
    uint64_t groups = (pairs + block - 1) / block;
    double *partials = sycl::malloc_device<double>(groups * per_block, q);
    args[0] = ptr(partials);
    double t0 = now();
    launch(&q, groups, local, args.data(), args.size());
    q.wait_and_throw();
    double cold = now() - t0;
    std::vector<double> warm;
    for (int i = 0; i < 7; ++i) {
        double t = now();
        launch(&q, groups, local, args.data(), args.size());
        q.wait_and_throw();
        warm.push_back(now() - t);
    }
    std::sort(warm.begin(), warm.end());
    std::vector<double> host(groups * per_block);
    q.memcpy(host.data(), partials, host.size() * sizeof(double)).wait();
    double sum = 0;
    for (uint64_t g = 0; g < groups; ++g) sum += host[g * per_block];
    sycl::free(partials, q);
    double med = warm[3];
    double work = static_cast<double>(pairs) * 2.0 * (steps == 0 ? 1.0 : steps);
    std::printf("{\"target\": \"%s\", \"kernel\": \"%s\", \"pairs\": %llu, \"steps\": %u, \"cold_s\": %.6f, "
                "\"warm_median_s\": %.6f, \"warm_min_s\": %.6f, \"rate\": %.6e, \"unit\": \"%s\", \"price\": %.8f}\n",
                target, kernel, static_cast<unsigned long long>(pairs), steps, cold, med, warm[0], work / med,
                steps == 0 ? "paths/s" : "path-steps/s", sum / static_cast<double>(pairs));
    std::fflush(stdout);
}
}  // namespace

int main(int argc, char **argv) {
    uint64_t eu = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1ull << 29);
    uint64_t as = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (1ull << 22);
    try {
        sycl::queue q{sycl::gpu_selector_v, sycl::property::queue::in_order()};
        const char *target = TENOR_ACPP_BENCH_TARGET;
        std::fprintf(stderr, "acpp-targets (%s) on %s\n", target,
                     q.get_device().get_info<sycl::info::device::name>().c_str());
        // Spot 100, strike 100, r 5 %, vol 20 %, T 1: Black-Scholes call 10.4506.
        double s = 100, k = 100, r = 0.05, v = 0.2, t = 1.0;
        double drift = (r - 0.5 * v * v) * t, vst = v * std::sqrt(t), disc = std::exp(-r * t);
        uint64_t seed = 42;
        run(q, target, "mc_european", tenor_acpp_launch_mc_european, eu, 0, 2,
            {arg{}, u64(seed), u64(eu), f64(s), f64(k), u32(1), f64(drift), f64(vst), f64(disc)});
        run(q, target, "mc_european_f32", tenor_acpp_launch_mc_european_f32, eu, 0, 2,
            {arg{}, u64(seed), u64(eu), f32(s), f32(k), u32(1), f32(drift), f32(vst), f32(disc)});
        const uint32_t steps = 252;
        double dt = t / steps, ddt = (r - 0.5 * v * v) * dt, vdt = v * std::sqrt(dt);
        run(q, target, "mc_asian", tenor_acpp_launch_mc_asian, as, steps, 5,
            {arg{}, u64(seed), u64(as), u32(steps), f64(s), f64(k), u32(1), u32(0), f64(ddt), f64(vdt), f64(ddt),
             f64(vdt), f64(disc)});
        run(q, target, "mc_asian_f32", tenor_acpp_launch_mc_asian_f32, as, steps, 5,
            {arg{}, u64(seed), u64(as), u32(steps), f32(s), f32(k), u32(1), u32(0), f32(ddt), f32(vdt), f32(ddt),
             f32(vdt), f32(disc)});
    } catch (const std::exception &e) {
        std::fprintf(stderr, "acpp-targets: %s\n", e.what());
        return 1;
    }
    return 0;
}
