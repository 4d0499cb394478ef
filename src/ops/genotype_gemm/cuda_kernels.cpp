// The CUDA gemm kernels with the op's C++20 signatures, forwarding to the device code.
#include "ops/genotype_gemm/cuda_detail.hpp"
#include "ops/genotype_gemm/kernels.hpp"

namespace pmx {
struct gemm_operand::device_copy {
  kernels::cuda_detail::resident_genotypes* genotypes = nullptr;
};
}  // namespace pmx

namespace pmx::kernels::cuda {

gemm_operand::device_copy* upload(const executor& exec, const variant_major_view& g) {
  auto* r = cuda_detail::upload_genotypes(exec, g);
  return new gemm_operand::device_copy{r};
}

void release(gemm_operand::device_copy* d) noexcept {
  if (!d) return;
  cuda_detail::release_genotypes(d->genotypes);
  delete d;
}

namespace {
void run(const gemm_operand& g, bool transposed, const gemm_centring& c, int64_t l, const double* in,
         int64_t ld_in, double beta, double* out, int64_t ld_out) {
  cuda_detail::genotype_gemm(g.exec(), g.device() ? g.device()->genotypes : nullptr, g.view(), transposed,
                             c.p.data(), c.scale.empty() ? nullptr : c.scale.data(), l, in, ld_in, beta, out,
                             ld_out, g.accuracy() == gemm_accuracy::normwise);
}
}  // namespace

void gemm(const gemm_operand& g, const gemm_centring& centring, int64_t l, const double* lambda,
          int64_t ld_lambda, double beta, double* Y, int64_t ld_y) {
  run(g, false, centring, l, lambda, ld_lambda, beta, Y, ld_y);
}

void gemm_transposed(const gemm_operand& g, const gemm_centring& centring, int64_t l,
                     const double* lambda, int64_t ld_lambda, double beta, double* W, int64_t ld_w) {
  run(g, true, centring, l, lambda, ld_lambda, beta, W, ld_w);
}

}  // namespace pmx::kernels::cuda
