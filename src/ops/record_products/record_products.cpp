// Record products: validation, the cpu chunks, dispatch (reference.cpp, cpu.cpp, cuda.cu).
#include "panoramix/ops/record_products.hpp"

#include <algorithm>

#include "ops/record_products/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {

record_operand::record_operand(const executor& exec, const record_design_view& v) : exec_(exec), v_(v) {
  PMX_EXPECTS(v.records >= 0 && v.t >= 1 && v.t <= 30 && v.fixed >= 0 && v.animals >= 0 && v.blocks >= 0,
              "a record design of valid sizes (1..30 traits)");
  PMX_EXPECTS(v.records == 0 || (v.animal && v.block && v.rinv && v.slot_start), "a record design with its arrays");
  PMX_EXPECTS(v.entries() == 0 || (v.column && v.value), "design entries with columns and values");
  // Chunks of records on animal boundaries (a fixed count: results independent of the threads).
  const int64_t records = v.records;
  const int64_t chunks = std::clamp<int64_t>(records / 2048, 1, 64);
  chunk_start_.push_back(0);
  for (int64_t c = 1; c < chunks; ++c) {
    int64_t s = records * c / chunks;
    while (s > chunk_start_.back() && s < records && v.animal[s] == v.animal[s - 1]) ++s;
    if (s > chunk_start_.back() && s < records) chunk_start_.push_back(s);
  }
  chunk_start_.push_back(records);
  if (exec.kind() == backend::cuda && records > 0) device_.reset(kernels::cuda::upload_records(exec, v));
}
record_operand::~record_operand() = default;
record_operand::record_operand(record_operand&&) noexcept = default;
record_operand& record_operand::operator=(record_operand&&) noexcept = default;
void record_operand::device_copy_deleter::operator()(device_copy* d) const { kernels::cuda::release_records(d); }

void record_multiply(const record_operand& op, const double* beta, const double* a, double* y_beta, double* y_a) {
  const auto& v = op.design();
  if (v.animals * v.t + v.fixed == 0) return;
  PMX_EXPECTS((beta && y_beta) || v.fixed == 0, "beta and y_beta are not null");
  PMX_EXPECTS((a && y_a) || v.animals == 0, "a and y_a are not null");
  switch (op.exec().kind()) {
    case backend::reference: return kernels::reference::record_multiply(op, beta, a, y_beta, y_a);
    case backend::cpu: return kernels::cpu::record_multiply(op, beta, a, y_beta, y_a);
    case backend::cuda: return kernels::cuda::record_multiply(op, beta, a, y_beta, y_a);
  }
}

}  // namespace pmx
