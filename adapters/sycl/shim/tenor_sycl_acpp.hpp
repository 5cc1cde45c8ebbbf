
// ---- Tenor's AdaptiveCpp launchers (adapters/sycl/shim/tenor_sycl_acpp.hpp) -----------------
// Appended by the SYCL adapter (src/imp/acpp_unit.rs) to a kernel's translation unit when the
// adapter is built with AdaptiveCpp, followed by one TENOR_ACPP_KERNEL(name) per kernel.
// AdaptiveCpp has neither free-function kernels nor handler::set_arg: the launcher checks each
// positional tsy_arg against the kernel function's parameter type (deduced from the function),
// converts it, and calls the function from a parallel_for over the nd_range. The kernel reads
// its nd_item through tenor::item() (kernels/common/prelude.hpp), as under DPC++.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tenor_acpp {

// The layout of tsy_arg (tenor_sycl.h): kind, padding, the value's bits.
struct arg {
    uint32_t kind;
    uint32_t pad;
    uint64_t bits;
};

template <class T>
constexpr uint32_t kind_of() {
    if constexpr (std::is_pointer_v<T>) return 0;
    else if constexpr (std::is_same_v<T, uint32_t>) return 1;
    else if constexpr (std::is_same_v<T, int32_t>) return 2;
    else if constexpr (std::is_same_v<T, uint64_t>) return 3;
    else if constexpr (std::is_same_v<T, float>) return 4;
    else if constexpr (std::is_same_v<T, double>) return 5;
    else return 99;
}

// Argument i of kernel `name` as T, or std::invalid_argument naming both kinds.
template <class T>
T take(const arg &a, size_t i, const char *name) {
    static_assert(kind_of<T>() != 99, "kernel parameters are pointers, uint32_t, int32_t, uint64_t, float or double");
    if (a.kind != kind_of<T>())
        throw std::invalid_argument(std::string(name) + ": argument " + std::to_string(i) + " has kind " +
                                    std::to_string(a.kind) + ", the kernel's parameter is of kind " +
                                    std::to_string(kind_of<T>()) + " (tsy_arg_kind)");
    if constexpr (std::is_pointer_v<T>) {
        return reinterpret_cast<T>(static_cast<uintptr_t>(a.bits));
    } else if constexpr (std::is_same_v<T, float>) {
        uint32_t w = static_cast<uint32_t>(a.bits);
        float f;
        std::memcpy(&f, &w, sizeof f);
        return f;
    } else if constexpr (std::is_same_v<T, double>) {
        double d;
        std::memcpy(&d, &a.bits, sizeof d);
        return d;
    } else {
        return static_cast<T>(a.bits);
    }
}

// A trivially copyable tuple (the kernel lambda captures it by value).
template <size_t I, class T>
struct leaf {
    T value;
};
template <class Seq, class... T>
struct pack;
template <size_t... I, class... T>
struct pack<std::index_sequence<I...>, T...> : leaf<I, T>... {};
template <size_t I, class T>
T get(const leaf<I, T> &l) {
    return l.value;
}

template <auto F>
struct kernel;
template <class... A, void (*F)(A...)>
struct kernel<F> {
    using values = pack<std::index_sequence_for<A...>, std::decay_t<A>...>;
    template <size_t... I>
    static void submit(sycl::queue &q, uint64_t groups, uint32_t local, const arg *args, const char *name,
                       std::index_sequence<I...>) {
        values v{{take<std::decay_t<A>>(args[I], I, name)}...};
        q.submit([&](sycl::handler &h) {
            // Work-group scratch of local-range doubles: tenor::group_sum's local memory under
            // the generic target (kernels/common/prelude.hpp).
            sycl::local_accessor<double, 1> scratch(sycl::range<1>(local), h);
            h.parallel_for(sycl::nd_range<1>(sycl::range<1>(groups * local), sycl::range<1>(local)),
                           [=](sycl::nd_item<1>) {
                               (void)scratch;
                               F(get<I>(v)...);
                           });
        });
    }
    static void launch(void *queue, uint64_t groups, uint32_t local, const void *args, size_t nargs,
                       const char *name) {
        if (nargs != sizeof...(A))
            throw std::invalid_argument(std::string(name) + ": " + std::to_string(nargs) + " arguments given, the kernel takes " +
                                        std::to_string(sizeof...(A)));
        submit(*static_cast<sycl::queue *>(queue), groups, local, static_cast<const arg *>(args), name,
               std::index_sequence_for<A...>{});
    }
};

}  // namespace tenor_acpp

// The launcher of kernel function `name`: tenor_acpp_launch_<name>(queue, groups, local, args,
// nargs). Throws (sycl::exception, std::invalid_argument) into the shim's guard, never further.
#define TENOR_ACPP_KERNEL(name)                                                                      \
    extern "C" void tenor_acpp_launch_##name(void *queue, uint64_t groups, uint32_t local, const void *args, \
                                             size_t nargs) {                                         \
        tenor_acpp::kernel<&name>::launch(queue, groups, local, args, nargs, #name);                \
    }
