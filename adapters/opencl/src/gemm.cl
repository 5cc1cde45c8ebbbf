// Tenor's OpenCL gemm (the SYCL adapter's kernel in OpenCL C, docs/adr/0004-sycl-gemm.md):
// C = alpha op(A) op(B) + beta C, column-major as BLAS ?gemm. Each work-item computes 4x4 tiles
// of C in registers, striding over the tiles; with beta = 0, C is not read (BLAS semantics: C
// may hold NaN). TENOR_GEMM_T is the element type of each instantiation below.
#define TENOR_GEMM_BODY(T)                                                                         \
    ulong tiles_m = (m + 3) / 4;                                                                   \
    ulong tiles = tiles_m * ((n + 3) / 4);                                                         \
    for (ulong t = get_global_id(0); t < tiles; t += get_global_size(0)) {                         \
        ulong i0 = (t % tiles_m) * 4, j0 = (t / tiles_m) * 4;                                      \
        T acc[4][4];                                                                               \
        for (int r = 0; r < 4; ++r)                                                                \
            for (int s = 0; s < 4; ++s) acc[r][s] = (T)0;                                          \
        for (ulong p = 0; p < k; ++p) {                                                            \
            T av[4], bv[4];                                                                        \
            for (int r = 0; r < 4; ++r) {                                                          \
                ulong i = i0 + r;                                                                  \
                av[r] = i < m ? (ta ? a[p + i * lda] : a[i + p * lda]) : (T)0;                     \
            }                                                                                      \
            for (int s = 0; s < 4; ++s) {                                                          \
                ulong j = j0 + s;                                                                  \
                bv[s] = j < n ? (tb ? b[j + p * ldb] : b[p + j * ldb]) : (T)0;                     \
            }                                                                                      \
            for (int r = 0; r < 4; ++r)                                                            \
                for (int s = 0; s < 4; ++s) acc[r][s] += av[r] * bv[s];                            \
        }                                                                                          \
        for (int s = 0; s < 4; ++s) {                                                              \
            ulong j = j0 + s;                                                                      \
            if (j >= n) break;                                                                     \
            for (int r = 0; r < 4; ++r) {                                                          \
                ulong i = i0 + r;                                                                  \
                if (i >= m) break;                                                                 \
                T v = (T)alpha * acc[r][s];                                                        \
                if (beta != 0.0) v += (T)beta * c[i + j * ldc];                                    \
                c[i + j * ldc] = v;                                                                \
            }                                                                                      \
        }                                                                                          \
    }

__kernel void tenor_gemm_f64(uint ta, uint tb, ulong m, ulong n, ulong k, double alpha, __global const double* a,
                             ulong lda, __global const double* b, ulong ldb, double beta, __global double* c,
                             ulong ldc) {
    TENOR_GEMM_BODY(double)
}

__kernel void tenor_gemm_f32(uint ta, uint tb, ulong m, ulong n, ulong k, double alpha, __global const float* a,
                             ulong lda, __global const float* b, ulong ldb, double beta, __global float* c,
                             ulong ldc) {
    TENOR_GEMM_BODY(float)
}
