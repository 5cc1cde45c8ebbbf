// A small C++ CUDA program that allocates like a pricing library, for recording with
// libtenor_trace.so on the GPU machine (scripts/gpu-alloc): per trading day, a calibrated curve
// (long-lived, cudaMalloc, kept for the rest of the run) is allocated between the per-job scratch
// buffers (cudaMallocAsync on one of 4 streams: paths, payoffs, a reduction buffer) of that day's
// jobs, and each job is marked with tenor_job_begin/tenor_job_end when the interposer is loaded
// (looked up with dlsym, so the program runs the same without it).
//   pricing_lib run [DAYS]   prints the book's PV checksum ("pv <value>")
//   pricing_lib bench N      N cudaMallocAsync + cudaFreeAsync pairs of 256 B on one stream,
//                            synchronised every 1000; prints "<ns> ns per pair"
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

__global__ void fill(double *x, size_t n, double v) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = v + 1e-9 * (double)(i % 1000);
}
__global__ void payoff(const double *paths, const double *curve, double *out, size_t n, double strike) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double s = paths[i] * curve[i % 64];
        out[i] = s > strike ? s - strike : 0.0;
    }
}
__global__ void sum(const double *x, size_t n, double *acc) {
    double local = 0;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) local += x[i];
    atomicAdd(acc, local);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "run";
    auto job_begin = reinterpret_cast<void (*)(unsigned long long)>(dlsym(RTLD_DEFAULT, "tenor_job_begin"));
    auto job_end = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "tenor_job_end"));
    CHECK(cudaSetDevice(0));
    if (std::strcmp(mode, "bench") == 0 && argc > 2) {
        long n = std::atol(argv[2]);
        cudaStream_t s;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        void *p;
        CHECK(cudaMallocAsync(&p, 256, s));  // warm the pool
        CHECK(cudaFreeAsync(p, s));
        CHECK(cudaStreamSynchronize(s));
        auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < n; i++) {
            CHECK(cudaMallocAsync(&p, 256, s));
            CHECK(cudaFreeAsync(p, s));
            if (i % 1000 == 999) CHECK(cudaStreamSynchronize(s));
        }
        CHECK(cudaStreamSynchronize(s));
        double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
        std::printf("%.1f ns per pair\n", ns);
        return 0;
    }
    int days = argc > 2 ? std::atoi(argv[2]) : 20;
    const int streams_n = 4, jobs_per_day = 12;
    cudaStream_t streams[streams_n];
    for (auto &s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<double *> curves;
    double *acc;
    CHECK(cudaMalloc(&acc, sizeof(double) * jobs_per_day));
    double pv = 0;
    unsigned long long job = 0;
    for (int d = 0; d < days; d++) {
        CHECK(cudaMemset(acc, 0, sizeof(double) * jobs_per_day));
        for (int j = 0; j < jobs_per_day; j++) {
            if (job_begin) job_begin(++job);
            cudaStream_t s = streams[j % streams_n];
            // sizes vary by job: 2^14 .. 2^20 paths
            size_t n = size_t(1) << (14 + (j * 7 + d) % 7);
            double *paths, *out;
            CHECK(cudaMallocAsync(&paths, n * sizeof(double), s));
            CHECK(cudaMallocAsync(&out, n * sizeof(double), s));
            if (j == jobs_per_day / 2) {
                // the day's calibrated curve, allocated mid-day between scratch buffers and kept
                double *curve;
                CHECK(cudaMalloc(&curve, 64 * sizeof(double) + 4096 * (d % 3)));
                fill<<<1, 64>>>(curve, 64, 1.0);
                CHECK(cudaDeviceSynchronize());
                curves.push_back(curve);
            }
            fill<<<256, 256, 0, s>>>(paths, n, 100.0 + j);
            payoff<<<256, 256, 0, s>>>(paths, curves.empty() ? paths : curves.back(), out, n, 100.0);
            sum<<<64, 256, 0, s>>>(out, n, acc + j);
            CHECK(cudaFreeAsync(out, s));
            CHECK(cudaFreeAsync(paths, s));
            if (job_end) job_end();
        }
        CHECK(cudaDeviceSynchronize());
        double host[jobs_per_day];
        CHECK(cudaMemcpy(host, acc, sizeof host, cudaMemcpyDeviceToHost));
        for (double v : host) pv += v;
    }
    for (double *c : curves) CHECK(cudaFree(c));
    CHECK(cudaFree(acc));
    std::printf("pv %.6e\n", pv);
    return 0;
}
