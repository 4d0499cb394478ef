// Pedigree BLUP: H = A, so the genetic part of the mixed model equations is (A⁻¹ ⊗ G0⁻¹)g,
// applied as A⁻¹ (g G0⁻¹) with g the n × t animal-major block: one sparse product per iteration
// (A⁻¹ by Henderson's rules with inbreeding, both triangles laid out once; on the GPU for cuda
// executors, ainv_product, which takes the solver's vectors in device memory too).
#include "panoramix/error.hpp"
#include "single_step_terms.hpp"

namespace pmx::detail {
namespace {

class pblup_term final : public genetic_term {
 public:
  pblup_term(const sparse_symmetric& ainv, const ainv_product& op, int t, int threads)
      : ainv_(ainv), op_(op), t_(t), threads_(threads) {}
  void apply(const double* V, double* Y) override {
    const stopwatch w;
    op_.apply(t_, V, Y, threads_);
    pedigree_seconds += w.seconds();
  }
  bool takes_device_vectors() const override { return op_.on_device(); }
  std::vector<double> diagonal() const override {
    std::vector<double> d(ainv_.n);
    for (int64_t i = 0; i < ainv_.n; ++i) d[i] = ainv_.value[ainv_.row_start[i + 1] - 1];
    return d;
  }

 private:
  const sparse_symmetric& ainv_;
  const ainv_product& op_;
  int t_, threads_;
};

}  // namespace

std::unique_ptr<genetic_term> make_pblup_term(const sparse_symmetric& ainv, const ainv_product& op, int t,
                                              int threads) {
  for (int64_t i = 0; i < ainv.n; ++i)
    PMX_EXPECTS(ainv.row_start[i + 1] > ainv.row_start[i] && ainv.col[ainv.row_start[i + 1] - 1] == i,
                "A-inverse stores its diagonal last in each row");
  return std::make_unique<pblup_term>(ainv, op, t, threads);
}

}  // namespace pmx::detail
