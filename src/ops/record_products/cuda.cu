// Record products on the GPU. Uploaded once: the records' animals, R⁻¹ blocks and design (by
// slots), X's transpose (entries by column, in slot order, cut into segments of at most 4,096
// entries that never span two columns) and the record range of each animal with records. A
// product: q per record (one thread each), y_a per (animal, trait) summing its records in order,
// y_β as one fixed tree per segment and one thread per column adding its segments in order.
#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_context.hpp"
#include "ops/record_products/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx {
struct record_operand::device_copy {
  int64_t segments = 0, with_records = 0;  // column segments; animals with records
  detail::device_buffer animal, block, rinv, slot_start, column, value;  // the view's arrays
  detail::device_buffer by_col_slot, by_col_value, segment_start, column_segment;  // Xᵀ
  detail::device_buffer owner, owner_start;  // animals with records, their first record
  detail::device_buffer q, partial;          // per product: q (records × t), segment sums
};
}  // namespace pmx

namespace pmx::kernels::cuda {
namespace {

constexpr int64_t segment_entries = 4096;
constexpr int threads = 256;

unsigned blocks_for(int64_t work) {
  return static_cast<unsigned>(std::clamp<int64_t>((work + threads - 1) / threads, 1, 65535 * 16));
}

// q_r = R_r⁻¹ (X_r β + a_animal(r)), zero for the traits record r does not have.
__global__ void record_q(int64_t records, int t, const int64_t* __restrict__ animal, const int32_t* __restrict__ block,
                         const double* __restrict__ rinv, const int64_t* __restrict__ slot, const int32_t* __restrict__ col,
                         const double* __restrict__ val, const double* __restrict__ beta, const double* __restrict__ a,
                         double* __restrict__ q) {
  for (int64_t r = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; r < records; r += int64_t{gridDim.x} * blockDim.x) {
    double e[30];
    const int64_t an = animal[r];
    const int64_t* s = slot + r * t;
    for (int k = 0; k < t; ++k) {
      double v = a[an * t + k];
      for (int64_t j = s[k]; j < s[k + 1]; ++j) v += val[j] * beta[col[j]];
      e[k] = v;
    }
    const double* R = rinv + int64_t{block[r]} * t * t;
    for (int k = 0; k < t; ++k) {
      double v = 0;
      for (int l = 0; l < t; ++l)
        if (s[l] != s[l + 1]) v += R[k * t + l] * e[l];
      q[r * t + k] = s[k] != s[k + 1] ? v : 0.0;
    }
  }
}

// y_a(owner u, trait k) = Σ over u's records of q (y_a zeroed before).
__global__ void animal_sums(int64_t owners, int t, const int64_t* __restrict__ owner, const int64_t* __restrict__ start,
                            const double* __restrict__ q, double* __restrict__ y_a) {
  for (int64_t id = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; id < owners * t; id += int64_t{gridDim.x} * blockDim.x) {
    const int64_t u = id / t;
    const int k = static_cast<int>(id - u * t);
    double s = 0;
    for (int64_t r = start[u]; r < start[u + 1]; ++r) s += q[r * t + k];
    y_a[owner[u] * t + k] = s;
  }
}

// partial[g] = Σ over segment g's entries of value · q[slot] (a fixed tree per block).
__global__ void segment_sums(const int64_t* __restrict__ seg, const int64_t* __restrict__ slot,
                             const double* __restrict__ val, const double* __restrict__ q, double* __restrict__ partial) {
  __shared__ double part[threads];
  double s = 0;
  for (int64_t j = seg[blockIdx.x] + threadIdx.x; j < seg[blockIdx.x + 1]; j += threads) s += val[j] * q[slot[j]];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = threads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = part[0];
}

__global__ void column_sums(int64_t p, const int64_t* __restrict__ column_segment, const double* __restrict__ partial,
                            double* __restrict__ y_beta) {
  for (int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; c < p; c += int64_t{gridDim.x} * blockDim.x) {
    double s = 0;
    for (int64_t g = column_segment[c]; g < column_segment[c + 1]; ++g) s += partial[g];
    y_beta[c] = s;
  }
}

template <class T>
void upload(detail::device_buffer& dst, const T* src, int64_t count) {
  dst.reserve(std::max<size_t>(static_cast<size_t>(count) * sizeof(T), 1));
  if (count > 0) PMX_CUDA_CHECK(cudaMemcpy(dst.get(), src, static_cast<size_t>(count) * sizeof(T), cudaMemcpyHostToDevice));
}

template <class T>
const T* as(const detail::device_buffer& b) {
  return static_cast<const T*>(b.get());
}

}  // namespace

record_operand::device_copy* upload_records(const executor& exec, const record_design_view& v) {
  detail::cuda_scope scope(exec);
  const int t = v.t;
  const int64_t R = v.records, slots = R * t, nnz = v.entries(), p = v.fixed;
  // X by columns in slot order (counting sort), and each column's segments.
  std::vector<int64_t> col_start(p + 1, 0);
  for (int64_t j = 0; j < nnz; ++j) ++col_start[v.column[j] + 1];
  for (int64_t c = 0; c < p; ++c) col_start[c + 1] += col_start[c];
  std::vector<int64_t> by_slot(nnz), fill(col_start.begin(), col_start.end() - 1);
  std::vector<double> by_value(nnz);
  for (int64_t s = 0; s < slots; ++s)
    for (int64_t j = v.slot_start[s]; j < v.slot_start[s + 1]; ++j) {
      const int64_t at = fill[v.column[j]]++;
      by_slot[at] = s;
      by_value[at] = v.value[j];
    }
  std::vector<int64_t> segment_start, column_segment(p + 1, 0);
  for (int64_t c = 0; c < p; ++c) {
    column_segment[c] = static_cast<int64_t>(segment_start.size());
    for (int64_t j = col_start[c]; j < col_start[c + 1]; j += segment_entries) segment_start.push_back(j);
  }
  column_segment[p] = static_cast<int64_t>(segment_start.size());
  const int64_t segments = static_cast<int64_t>(segment_start.size());
  segment_start.push_back(nnz);
  // The animals with records and their first record.
  std::vector<int64_t> owner, owner_start;
  for (int64_t r = 0; r < R; ++r)
    if (r == 0 || v.animal[r] != v.animal[r - 1]) owner.push_back(v.animal[r]), owner_start.push_back(r);
  owner_start.push_back(R);
  const int64_t owners = static_cast<int64_t>(owner.size());
  const int64_t need = R * (8 + 4) + v.blocks * t * t * 8 + (slots + 1) * 8 + nnz * (4 + 8) + nnz * (8 + 8) +
                       (segments + 1 + p + 1) * 8 + (2 * owners + 1) * 8 + slots * 8 + segments * 8;
  if (need > detail::device_budget(exec, scope.ctx))
    throw unsupported_error("record products: the records (" + std::to_string(need >> 20) +
                            " MiB with their transpose) do not fit the device memory budget");
  auto d = std::make_unique<record_operand::device_copy>();
  d->segments = segments;
  d->with_records = owners;
  upload(d->animal, v.animal, R);
  upload(d->block, v.block, R);
  upload(d->rinv, v.rinv, v.blocks * t * t);
  upload(d->slot_start, v.slot_start, slots + 1);
  upload(d->column, v.column, nnz);
  upload(d->value, v.value, nnz);
  upload(d->by_col_slot, by_slot.data(), nnz);
  upload(d->by_col_value, by_value.data(), nnz);
  upload(d->segment_start, segment_start.data(), segments + 1);
  upload(d->column_segment, column_segment.data(), p + 1);
  upload(d->owner, owner.data(), owners);
  upload(d->owner_start, owner_start.data(), owners + 1);
  d->q.reserve(std::max<size_t>(static_cast<size_t>(slots) * 8, 1));
  d->partial.reserve(std::max<size_t>(static_cast<size_t>(segments) * 8, 1));
  // cudaMemcpy from pageable memory may return before its DMA lands; the products run on the
  // executor's non-blocking stream.
  PMX_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  return d.release();
}

void release_records(record_operand::device_copy* d) noexcept { delete d; }

void record_multiply(const record_operand& op, const double* beta, const double* a, double* y_beta, double* y_a) {
  detail::cuda_scope scope(op.exec());
  cudaStream_t stream = scope.ctx.stream;
  const auto& v = op.design();
  const int t = v.t;
  PMX_CUDA_CHECK(cudaMemsetAsync(y_a, 0, static_cast<size_t>(v.animals * t) * 8, stream));
  if (!op.device()) {  // no records
    if (v.fixed > 0) PMX_CUDA_CHECK(cudaMemsetAsync(y_beta, 0, static_cast<size_t>(v.fixed) * 8, stream));
    PMX_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  const auto& d = *op.device();
  double* q = static_cast<double*>(d.q.get());
  double* partial = static_cast<double*>(d.partial.get());
  record_q<<<blocks_for(v.records), threads, 0, stream>>>(v.records, t, as<int64_t>(d.animal), as<int32_t>(d.block),
                                                            as<double>(d.rinv), as<int64_t>(d.slot_start),
                                                            as<int32_t>(d.column), as<double>(d.value), beta, a, q);
  PMX_CUDA_CHECK_LAUNCH();
  animal_sums<<<blocks_for(d.with_records * t), threads, 0, stream>>>(d.with_records, t, as<int64_t>(d.owner),
                                                                      as<int64_t>(d.owner_start), q, y_a);
  PMX_CUDA_CHECK_LAUNCH();
  if (d.segments > 0) {
    segment_sums<<<static_cast<unsigned>(d.segments), threads, 0, stream>>>(
        as<int64_t>(d.segment_start), as<int64_t>(d.by_col_slot), as<double>(d.by_col_value), q, partial);
    PMX_CUDA_CHECK_LAUNCH();
  }
  if (v.fixed > 0) {
    column_sums<<<blocks_for(v.fixed), threads, 0, stream>>>(v.fixed, as<int64_t>(d.column_segment), partial, y_beta);
    PMX_CUDA_CHECK_LAUNCH();
  }
  PMX_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace pmx::kernels::cuda
