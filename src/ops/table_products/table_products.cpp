#include "panoramix/ops/table_products.hpp"

#include "ops/table_products/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {
namespace {
void check_tables(const variant_major_view& g, std::span<const code_table> tables) {
  PMX_EXPECTS(static_cast<int64_t>(tables.size()) == g.n_variants, "one code table per variant");
}
}  // namespace

void table_crossprod(const executor& exec, const variant_major_view& g,
                     std::span<const code_table> tables, double* C, int64_t ld) {
  check_tables(g, tables);
  PMX_EXPECTS(ld >= g.n_samples, "leading dimension smaller than the sample count");
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::table_crossprod(exec, g, tables, C, ld);
    case backend::cpu: return kernels::cpu::table_crossprod(exec, g, tables, C, ld);
    case backend::cuda: return kernels::cuda::table_crossprod(exec, g, tables, C, ld);
  }
}

void table_rowsums(const executor& exec, const variant_major_view& g,
                   std::span<const code_table> tables, std::span<double> y) {
  check_tables(g, tables);
  PMX_EXPECTS(static_cast<int64_t>(y.size()) == g.n_samples, "one output per sample");
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::table_rowsums(exec, g, tables, y);
    case backend::cpu: return kernels::cpu::table_rowsums(exec, g, tables, y);
    case backend::cuda: return kernels::cuda::table_rowsums(exec, g, tables, y);
  }
}

void missing_crossprod(const executor& exec, const variant_major_view& g,
                       std::span<const code_table> tables, std::span<const double> r, double* Y,
                       double* R, int64_t ld) {
  check_tables(g, tables);
  PMX_EXPECTS(static_cast<int64_t>(r.size()) == g.n_variants, "one r per variant");
  PMX_EXPECTS(ld >= g.n_samples, "leading dimension smaller than the sample count");
  switch (exec.kind()) {
    case backend::reference: return kernels::reference::missing_crossprod(exec, g, tables, r, Y, R, ld);
    case backend::cpu: return kernels::cpu::missing_crossprod(exec, g, tables, r, Y, R, ld);
    case backend::cuda: return kernels::cuda::missing_crossprod(exec, g, tables, r, Y, R, ld);
  }
}

}  // namespace pmx
