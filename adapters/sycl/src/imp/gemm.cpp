// Tenor's SYCL gemm (docs/adr/0004-sycl-gemm.md): C = alpha op(A) op(B) + beta C, column-major
// as BLAS ?gemm. Each work-item computes 4x4 tiles of C in registers, striding over the tiles;
// with beta = 0, C is not read (BLAS semantics: C may hold NaN).
template <typename T>
inline void tenor_gemm(uint32_t ta, uint32_t tb, uint64_t m, uint64_t n, uint64_t k, double alpha, const T *a,
                       uint64_t lda, const T *b, uint64_t ldb, double beta, T *c, uint64_t ldc) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t tiles_m = (m + 3) / 4;
    uint64_t tiles = tiles_m * ((n + 3) / 4);
    // The global id and range from the group and local ones (the same values; spelled so that
    // no launch offset is read).
    uint64_t local = it.get_local_range(0);
    uint64_t first = static_cast<uint64_t>(it.get_group(0)) * local + it.get_local_id(0);
    uint64_t stride = static_cast<uint64_t>(it.get_group_range(0)) * local;
    for (uint64_t t = first; t < tiles; t += stride) {
        uint64_t i0 = (t % tiles_m) * 4, j0 = (t / tiles_m) * 4;
        T acc[4][4] = {};
        for (uint64_t p = 0; p < k; ++p) {
            T av[4], bv[4];
            for (int r = 0; r < 4; ++r) {
                uint64_t i = i0 + r;
                av[r] = i < m ? (ta ? a[p + i * lda] : a[i + p * lda]) : T(0);
            }
            for (int s = 0; s < 4; ++s) {
                uint64_t j = j0 + s;
                bv[s] = j < n ? (tb ? b[j + p * ldb] : b[p + j * ldb]) : T(0);
            }
            for (int r = 0; r < 4; ++r)
                for (int s = 0; s < 4; ++s) acc[r][s] += av[r] * bv[s];
        }
        for (int s = 0; s < 4; ++s) {
            uint64_t j = j0 + s;
            if (j >= n) break;
            for (int r = 0; r < 4; ++r) {
                uint64_t i = i0 + r;
                if (i >= m) break;
                T v = static_cast<T>(alpha) * acc[r][s];
                if (beta != 0.0) v += static_cast<T>(beta) * c[i + j * ldc];
                c[i + j * ldc] = v;
            }
        }
    }
}

extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void tenor_gemm_f64(uint32_t ta, uint32_t tb, uint64_t m, uint64_t n, uint64_t k, double alpha, double *a,
                    uint64_t lda, double *b, uint64_t ldb, double beta, double *c, uint64_t ldc) {
    tenor_gemm<double>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void tenor_gemm_f32(uint32_t ta, uint32_t tb, uint64_t m, uint64_t n, uint64_t k, double alpha, float *a,
                    uint64_t lda, float *b, uint64_t ldb, double beta, float *c, uint64_t ldc) {
    tenor_gemm<float>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
