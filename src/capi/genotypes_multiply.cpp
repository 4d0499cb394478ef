// The products: out ← op(Z)·in + β·out on a handle, row-major straight into the op, column-major
// through row-major copies.
#include <algorithm>
#include <cstdint>
#include <shared_mutex>
#include <vector>

#include "capi/genotypes.hpp"
#include "capi/memory_space.hpp"
#include "capi/status.hpp"

using namespace pmx::capi;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

struct matrix_arg {
  const char* name;     // "in" / "out"
  const char* ld_name;  // "ld_in" / "ld_out"
  const void* ptr;
  int64_t rows, ld;
  const char* rows_name;  // what the row count is, for messages
};

/// Elements spanned by a matrix (first to last element + 1), for the overlap test.
int64_t extent(const matrix_arg& m, int64_t l, bool row_major) {
  if (m.rows == 0 || l == 0) return 0;
  return row_major ? (m.rows - 1) * m.ld + l : (l - 1) * m.ld + m.rows;
}

void check_matrix(const matrix_arg& m, int64_t l, bool row_major) {
  require(m.ptr != nullptr || l == 0 || m.rows == 0, PMX_E_NULL_ARGUMENT, std::string(m.name) + " is NULL");
  if (row_major)
    require(m.ld >= std::max<int64_t>(1, l), PMX_E_INVALID_ARGUMENT,
            std::string(m.ld_name) + " is " + str(m.ld) + ", but row-major " + m.name + " has l = " + str(l) +
                " columns: " + m.ld_name + " must be >= max(1, l)");
  else
    require(m.ld >= std::max<int64_t>(1, m.rows), PMX_E_INVALID_ARGUMENT,
            std::string(m.ld_name) + " is " + str(m.ld) + ", but column-major " + m.name + " has " + str(m.rows) +
                " rows (" + m.rows_name + "): " + m.ld_name + " must be >= max(1, rows)");
}

/// dst (row-major, ld = l) ← src (column-major, leading dimension ld), rows × l.
void to_row_major(const double* src, int64_t ld, int64_t rows, int64_t l, double* dst, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (rows * l > (1 << 18))
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < l; ++c) dst[r * l + c] = src[r + c * ld];
}

/// dst (column-major, leading dimension ld) ← src (row-major, ld = l), rows × l.
void to_col_major(const double* src, int64_t rows, int64_t l, double* dst, int64_t ld, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (rows * l > (1 << 18))
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < l; ++c) dst[r + c * ld] = src[r * l + c];
}

}  // namespace

extern "C" {

int pmx_genotypes_multiply(pmx_genotypes* g, int trans, int layout, int64_t l, const double* in,
                           int64_t ld_in, double beta, double* out, int64_t ld_out) {
  if (!g) return PMX_E_NULL_ARGUMENT;
  return guarded(g->messages, "pmx_genotypes_multiply", [&] {
    require(trans == PMX_NO_TRANS || trans == PMX_TRANS, PMX_E_INVALID_ARGUMENT,
            "trans " + str(trans) + " is not a pmx_trans value (0 PMX_NO_TRANS, 1 PMX_TRANS)");
    require(layout == PMX_ROW_MAJOR || layout == PMX_COL_MAJOR, PMX_E_INVALID_ARGUMENT,
            "layout " + str(layout) + " is not a pmx_layout value (0 PMX_ROW_MAJOR, 1 PMX_COL_MAJOR)");
    require(l >= 0, PMX_E_INVALID_ARGUMENT, "l is " + str(l) + "; the number of columns must be >= 0");
    const bool transposed = trans == PMX_TRANS, row_major = layout == PMX_ROW_MAJOR;
    const int64_t n = g->n_samples(), k = g->n_variants();
    const char* samples = "n_samples = number of kept samples";
    const char* variants = "n_variants = number of kept variants";
    const matrix_arg a{"in", "ld_in", in, transposed ? n : k, ld_in, transposed ? samples : variants};
    const matrix_arg y{"out", "ld_out", out, transposed ? k : n, ld_out, transposed ? variants : samples};
    check_matrix(a, l, row_major);
    check_matrix(y, l, row_major);
    {
      // Address ranges compared as integers (pointers into different arrays do not compare in C++).
      const auto a0 = reinterpret_cast<uintptr_t>(in), y0 = reinterpret_cast<uintptr_t>(out);
      const auto ea = static_cast<uintptr_t>(extent(a, l, row_major)) * sizeof(double),
                 ey = static_cast<uintptr_t>(extent(y, l, row_major)) * sizeof(double);
      require(ea == 0 || ey == 0 || a0 + ea <= y0 || y0 + ey <= a0, PMX_E_INVALID_ARGUMENT,
              "in and out overlap; the product needs separate memory");
    }

    std::shared_lock lock(g->mutex);
    require(g->have_frequencies, PMX_E_STATE,
            "no allele frequencies yet: call pmx_genotypes_compute_frequencies or "
            "pmx_genotypes_set_frequencies first");
    if (l == 0) return;  // no column to touch (handles keep at least one sample and variant)
    const pmx::gemm_centring centring{g->p_op, g->s_op};
    auto product = [&](const double* x, int64_t ldx, double* z, int64_t ldz) {
      if (transposed) pmx::gemm_transposed(*g->operand, centring, l, x, ldx, beta, z, ldz);
      else pmx::gemm(*g->operand, centring, l, x, ldx, beta, z, ldz);
    };

    if (row_major) return product(in, ld_in, out, ld_out);
    const bool cuda = g->exec.kind() == pmx::backend::cuda;
    require(!(cuda && (is_device_pointer(in) || is_device_pointer(out))), PMX_E_UNSUPPORTED,
            "PMX_COL_MAJOR takes host memory only, and in or out is device memory: pass device "
            "matrices as PMX_ROW_MAJOR");
    // One column: column-major and row-major with ld = 1 are the same memory.
    if (l == 1) return product(in, 1, out, 1);
    const int threads = g->exec.threads();
    std::vector<double> x(static_cast<size_t>(a.rows * l)), z(static_cast<size_t>(y.rows * l));
    to_row_major(in, ld_in, a.rows, l, x.data(), threads);
    if (beta != 0.0) to_row_major(out, ld_out, y.rows, l, z.data(), threads);
    product(x.data(), l, z.data(), l);
    to_col_major(z.data(), y.rows, l, out, ld_out, threads);
  });
}

}  // extern "C"
