// Grid barrier latency on one GPU (ADR 0036): 98 blocks x 256 threads, 252 barriers in one cooperative
// launch, each round a write by thread 0 of every block and a read of every block's write after the
// barrier. Build and run on the GPU machine: nvcc -arch=sm_90 -O3 -o gb grid_barrier.cu && ./gb
// (figures of an H100: docs/results/basket-gpu-2026-12-05/s3-h100-b-steps/grid-barrier.txt).
#include <cstdio>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
typedef unsigned int u32;

__device__ __forceinline__ void sync_fence(u32* c, u32 target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(c, 1u);
        while (*(volatile u32*)c < target) {}
        __threadfence();
    }
    __syncthreads();
}
__device__ __forceinline__ void sync_acqrel(u32* c, u32 target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("red.release.gpu.global.add.u32 [%0], %1;" :: "l"(c), "r"(1u) : "memory");
        u32 v;
        do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(c) : "memory"); } while (v < target);
    }
    __syncthreads();
}
// Tags: block b writes its value and the round's tag into its own 16-byte slot of half (i & 1)
// (release store of the tag); thread t < nblocks of every block polls slot t's tag (acquire)
// until it is round i, then reads the value: no counter, one round trip.
__global__ void bench_tags(double* slots, double* data, int k, int nblocks) {
    double acc = 0.0;
    for (int i = 1; i <= k; ++i) {
        double* half = slots + (i & 1) * 2 * 1024;
        if (threadIdx.x == 0) {
            half[2 * blockIdx.x] = acc + i;
            unsigned long long tag = (unsigned long long)i;
            asm volatile("st.release.gpu.global.u64 [%0], %1;" :: "l"(half + 2 * blockIdx.x + 1), "l"(tag) : "memory");
        }
        if (threadIdx.x < nblocks) {
            unsigned long long seen;
            do { asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(seen) : "l"(half + 2 * threadIdx.x + 1) : "memory"); } while (seen != (unsigned long long)i);
            acc += half[2 * threadIdx.x];
        }
        __syncthreads();
    }
    if (acc == 12345.0) data[0] = acc;
}
template <int MODE>
__global__ void bench(u32* c, double* data, int k, int nblocks) {
    double acc = 0.0;
    for (int i = 1; i <= k; ++i) {
        if (threadIdx.x == 0) data[blockIdx.x + (i & 1) * 1024] = acc + i;  // a write each round, as the backward's partials
        if (MODE == 0) sync_fence(c, (u32)(nblocks * i));
        else if (MODE == 1) sync_acqrel(c, (u32)(nblocks * i));
        else if (MODE == 2) cg::this_grid().sync();
        else __syncthreads();
        if (threadIdx.x < nblocks) acc += data[threadIdx.x + (i & 1) * 1024];  // read every block's write
    }
    if (acc == 12345.0) data[0] = acc;
}
int main() {
    const int nblocks = 98, k = 252;
    u32* c; double* d;
    cudaMalloc(&c, 4); cudaMalloc(&d, 4096 * 8);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int mode = 0; mode < 4; ++mode) {
        for (int rep = 0; rep < 4; ++rep) {
            cudaMemset(c, 0, 4);
            int kk = k, nb = nblocks;
            void* args[] = {&c, &d, &kk, &nb};
            void* f = mode == 0 ? (void*)bench<0> : mode == 1 ? (void*)bench<1> : mode == 2 ? (void*)bench<2> : (void*)bench<3>;
            cudaEventRecord(a);
            cudaError_t e = cudaLaunchCooperativeKernel(f, nblocks, 256, args, 0, 0);
            cudaEventRecord(b); cudaEventSynchronize(b);
            float ms; cudaEventElapsedTime(&ms, a, b);
            printf("mode %d (%s) rep %d: %s, %d barriers in %.3f ms = %.2f us each\n", mode,
                   mode == 0 ? "threadfence+atomicAdd+volatile" : mode == 1 ? "red.release+ld.acquire" : mode == 2 ? "cg grid.sync" : "no grid barrier",
                   rep, cudaGetErrorString(e), k, ms, ms * 1000.0 / k);
        }
    }
    for (int rep = 0; rep < 4; ++rep) {
        double* slots; cudaMalloc(&slots, 4 * 1024 * 8 * 2); cudaMemset(slots, 0xff, 4 * 1024 * 8 * 2);
        int kk = k, nb = nblocks;
        void* args[] = {&slots, &d, &kk, &nb};
        cudaEventRecord(a);
        cudaError_t e = cudaLaunchCooperativeKernel((void*)bench_tags, nblocks, 256, args, 0, 0);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        printf("tags (st.release tag + ld.acquire poll per slot) rep %d: %s, %d rounds in %.3f ms = %.2f us each\n", rep, cudaGetErrorString(e), k, ms, ms * 1000.0 / k);
        cudaFree(slots);
    }
    return 0;
}
