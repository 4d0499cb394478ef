// CUDA crossprod: exact integer sums from bit planes on binary tensor cores (cuda_planes.cuh
// describes the planes and the product kernels, cuda_product.cu implements them).
//
// Host side of one call. The rows come from host memory as 2-bit codes; they travel 2 bits per
// call (pinned staging, filled by host threads while the previous piece copies) and become planes
// on the device. The outputs live on the device as int32 tiles, zeroed, accumulated by the
// product kernels, downloaded and added (+=) into the caller's host arrays.
//
// Memory budget (executor setting, PMX_CUDA_MEMORY_MB, or free memory minus a margin): the call
// is planned as
//   column chunks of kc columns                      (each chunk: its own planes, its own download)
//     x plane groups of ga rows of A / gb rows of B  (planes of one group of each side resident)
//       x output tiles of ta x tb                    (one int32 buffer per requested output)
// starting from one chunk, one group and one tile, and halving the largest consumer until the
// plan fits. Symmetric calls visit only tiles that hold lower-triangle pairs for S and N.
#include <algorithm>
#include <string>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/host_transfer.hpp"
#include "ops/crossprod/cuda_planes.cuh"
#include "ops/crossprod/kernels.hpp"
#include "panoramix/error.hpp"

namespace pmx::kernels::cuda {
namespace {

using detail::cuda_context;
using namespace cuda_detail;

constexpr int64_t pad256(int64_t x) { return (x + 255) / 256 * 256; }
constexpr int64_t pad512(int64_t x) { return (x + 511) / 512 * 512; }
int64_t halve256(int64_t x) { return std::max<int64_t>(256, pad256((x + 1) / 2)); }

enum output_id { o_S, o_N, o_U, o_V, o_Ut, o_Vt, n_outputs };
// Scratch slots of the context.
enum slot_id { slot_raw0, slot_raw1, slot_planes_a, slot_planes_b, slot_out0 };

struct job {
  const packed_rows_view* A;
  const packed_rows_view* B;  // == A when symmetric
  bool symmetric;
  int32_t* host[n_outputs];
  int64_t ld;
  std::vector<product> products_sn, products_uv;  // S/N (lower triangle when symmetric); U/V/Ut/Vt
  unsigned mask_a = 0, mask_b = 0;
  int n_out = 0;
};

struct plan {
  int64_t kc, ga, gb, ta, tb, slab;
};

int64_t plan_bytes(const job& j, const plan& p) {
  const bool shared_b = j.symmetric && p.ga >= j.A->n_rows;  // one group: B planes are A's
  const int64_t planes = plane_bytes(j.mask_a, p.ga, p.kc) + (shared_b ? 0 : plane_bytes(j.mask_b, p.gb, p.kc));
  const int64_t outs = j.n_out * pad256(p.ta) * pad256(p.tb) * 4;
  return planes + outs + 2 * p.slab;
}

plan make_plan(const job& j, int64_t budget) {
  const int64_t na = j.A->n_rows, nb = j.B->n_rows, k = j.A->n_cols;
  plan p{k, na, nb, na, nb, 0};
  auto slab_for = [&](const plan& q) {
    const int64_t row = (std::min(q.kc, k) + 31) / 32 * 8;  // one row of 2-bit codes of a chunk
    return std::max(row, std::min<int64_t>(int64_t{64} << 20, budget / 16));
  };
  for (;;) {
    p.slab = slab_for(p);
    if (plan_bytes(j, p) <= budget) return p;
    const int64_t outs = j.n_out * pad256(p.ta) * pad256(p.tb) * 4;
    const int64_t planes = plan_bytes(j, p) - outs - 2 * p.slab;
    if (outs >= planes && std::max(p.ta, p.tb) > 256) {
      if (j.symmetric) p.ta = p.tb = halve256(p.ta);
      else if (p.ta >= p.tb) p.ta = halve256(p.ta);
      else p.tb = halve256(p.tb);
    } else if (p.kc > 65536) {
      p.kc = pad512((p.kc + 1) / 2);
    } else if (std::max(p.ga, p.gb) > 256) {
      if (j.symmetric) p.ga = p.gb = halve256(p.ga);
      else if (p.ga >= p.gb) p.ga = halve256(p.ga);
      else p.gb = halve256(p.gb);
      p.ta = std::min(p.ta, p.ga), p.tb = std::min(p.tb, p.gb);
    } else if (p.kc > 512) {
      p.kc = pad512((p.kc + 1) / 2);
    } else if (std::max(p.ta, p.tb) > 256) {
      if (p.ta >= p.tb) p.ta = halve256(p.ta);
      else p.tb = halve256(p.tb);
      if (j.symmetric) p.ta = p.tb = std::min(p.ta, p.tb);
    } else {
      throw unsupported_error("crossprod (cuda): a device memory budget of " + std::to_string(budget >> 20) +
                              " MiB is too small (this call needs at least " +
                              std::to_string((plan_bytes(j, p) >> 20) + 1) + " MiB)");
    }
  }
}

// Uploads rows [row0, row0 + rows) x columns [col0, col0 + cols) of v and builds their planes.
void load_planes(cuda_context& c, const packed_rows_view& v, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 plane_set& ps, const plan& p, int threads) {
  const int64_t w0 = col0 / 32, nw = (cols + 31) / 32;
  const size_t item = static_cast<size_t>(nw) * 8;
  const int64_t piece = std::max<int64_t>(1, std::min<int64_t>(p.slab, int64_t{64} << 20) / static_cast<int64_t>(item));
  void* ring[2] = {c.slot(slot_raw0), c.slot(slot_raw1)};
  detail::stream_to_device(
      c, rows, piece, item, [&](int64_t, int64_t k) { return ring[k & 1]; },
      [&](void* pinned, int64_t first, int64_t count) {
        detail::gather_row_words(v, row0 + first, count, w0, nw, static_cast<uint64_t*>(pinned), threads);
      },
      [&](const void* dev, int64_t first, int64_t count) {
        build_planes(static_cast<const uint64_t*>(dev), nw, count, first, cols, ps, c.stream);
      });
  zero_padding_rows(ps, rows, c.stream);
}

// The outputs a product feeds, with their multipliers: U = H + D and V = H + 3D (x² = x + 2d), and
// likewise for the transposed side; U alone when V is not asked for.
int targets_of(product pr, const job& j, int32_t* const* dev_out, product_target* t, bool* used) {
  int nt = 0;
  auto add = [&](int o, int mult) {
    if (!j.host[o]) return;
    t[nt++] = {dev_out[o], mult};
    used[o] = true;
  };
  switch (pr) {
    case product::S: add(o_S, 1); break;
    case product::N: add(o_N, 1); break;
    case product::U: add(o_U, 1); break;
    case product::Ut: add(o_Ut, 1); break;
    case product::H: add(o_U, 1), add(o_V, 1); break;
    case product::D: add(o_U, 1), add(o_V, 3); break;
    case product::Ht: add(o_Ut, 1), add(o_Vt, 1); break;
    case product::Dt: add(o_Ut, 1), add(o_Vt, 3); break;
  }
  return nt;
}

// One output tile: rows [a_glob, a_glob + ta_rows) of A (plane rows from ta0 of pa) against rows
// [b_glob, b_glob + tb_rows) of B (plane rows from tb0 of pb): zero, accumulate, download, add.
void run_tile(cuda_context& c, const executor& exec, const job& j, const std::vector<product>& todo,
              int32_t* const* dev_out, int64_t ldo, const plane_set& pa, int64_t ta0, int64_t ta_rows,
              int64_t a_glob, const plane_set& pb, int64_t tb0, int64_t tb_rows, int64_t b_glob) {
  bool used[n_outputs] = {};
  product_target t[2];
  for (product pr : todo) targets_of(pr, j, dev_out, t, used);
  for (int o = 0; o < n_outputs; ++o)
    if (used[o])
      PMX_CUDA_CHECK(cudaMemsetAsync(dev_out[o], 0, static_cast<size_t>(pad256(ta_rows) * ldo * 4), c.stream));
  for (product pr : todo) {
    const int nt = targets_of(pr, j, dev_out, t, used);
    const bool sn = pr == product::S || pr == product::N;
    run_product(pr, pa, ta0, ta_rows, pb, tb0, tb_rows, j.symmetric && sn, a_glob, b_glob, t, nt, ldo, c.stream,
                mma_kind_of(exec.tuning().binary_mma));
  }
  for (int o = 0; o < n_outputs; ++o) {
    if (!used[o]) continue;
    const bool lower = j.symmetric && (o == o_S || o == o_N);  // S, N: lower triangle only
    int32_t* host = j.host[o];
    // A lower-triangle piece of rows [first, first + count) needs columns up to its last diagonal.
    auto width = [&](int64_t first, int64_t count) {
      const int64_t cols = lower ? std::clamp<int64_t>(a_glob + first + count - b_glob, 0, tb_rows) : tb_rows;
      return static_cast<size_t>(cols) * 4;
    };
    detail::stream_rows_to_host(c, dev_out[o], static_cast<size_t>(ldo) * 4, static_cast<size_t>(tb_rows) * 4,
                                ta_rows, width, [&](const void* src, int64_t first, int64_t count, size_t bytes) {
                                  const auto cols = static_cast<int64_t>(bytes / 4);
                                  detail::add_rows(host + (a_glob + first) * j.ld + b_glob, j.ld,
                                                   static_cast<const int32_t*>(src), cols, count, cols, lower,
                                                   a_glob + first, b_glob, exec.threads());
                                });
  }
}

void run(const executor& exec, job& j) {
  const packed_rows_view& A = *j.A;
  const packed_rows_view& B = *j.B;
  if (A.n_rows == 0 || B.n_rows == 0 || A.n_cols == 0) return;
  detail::cuda_scope scope(exec);
  cuda_context& c = scope.ctx;
  const int64_t budget = detail::device_budget(exec, c);
  const plan p = make_plan(j, budget);

  // Scratch: raw ring, planes of the A group, planes of the B group, one buffer per output.
  const bool shared_b = j.symmetric && p.ga >= A.n_rows;
  std::vector<size_t> sizes(int{slot_out0} + int{n_outputs}, 0);
  sizes[slot_raw0] = sizes[slot_raw1] = static_cast<size_t>(p.slab);
  sizes[slot_planes_a] = static_cast<size_t>(plane_bytes(j.mask_a, p.ga, p.kc));
  sizes[slot_planes_b] = shared_b ? 0 : static_cast<size_t>(plane_bytes(j.mask_b, p.gb, p.kc));
  const int64_t ldo = pad256(p.tb);
  for (int o = 0; o < n_outputs; ++o)
    if (j.host[o]) sizes[slot_out0 + o] = static_cast<size_t>(pad256(p.ta) * ldo * 4);
  c.reserve_scratch(sizes, budget);
  int32_t* dev_out[n_outputs] = {};
  for (int o = 0; o < n_outputs; ++o)
    if (j.host[o]) dev_out[o] = static_cast<int32_t*>(c.slot(slot_out0 + o));

  const int64_t k = A.n_cols;
  const int64_t groups_a = (A.n_rows + p.ga - 1) / p.ga, groups_b = (B.n_rows + p.gb - 1) / p.gb;
  for (int64_t col0 = 0; col0 < k; col0 += p.kc) {
    const int64_t cols = std::min(p.kc, k - col0);
    plane_set pa = make_plane_set(c.slot(slot_planes_a), j.mask_a, std::min(p.ga, A.n_rows), cols);
    plane_set pb = shared_b ? pa : make_plane_set(c.slot(slot_planes_b), j.mask_b, std::min(p.gb, B.n_rows), cols);
    int64_t loaded_b = -1;  // the B group whose planes pb holds for this chunk
    for (int64_t I = 0; I < groups_a; ++I) {
      const int64_t ga0 = I * p.ga, ga_rows = std::min(p.ga, A.n_rows - ga0);
      load_planes(c, A, ga0, ga_rows, col0, cols, pa, p, exec.threads());
      for (int64_t J = 0; J < groups_b; ++J) {
        const int64_t gb0 = J * p.gb, gb_rows = std::min(p.gb, B.n_rows - gb0);
        // Symmetric: S and N only where the group pair holds lower-triangle pairs.
        const bool sn_group = !j.symmetric || gb0 <= ga0 + ga_rows - 1;
        if (!sn_group && j.products_uv.empty()) continue;
        const plane_set* planes_b = &pa;
        if (!(j.symmetric && J == I)) {
          if (loaded_b != J) load_planes(c, B, gb0, gb_rows, col0, cols, pb, p, exec.threads());
          loaded_b = J;
          planes_b = &pb;
        }
        for (int64_t ta0 = 0; ta0 < ga_rows; ta0 += p.ta) {
          const int64_t ta_rows = std::min(p.ta, ga_rows - ta0), a_glob = ga0 + ta0;
          for (int64_t tb0 = 0; tb0 < gb_rows; tb0 += p.tb) {
            const int64_t tb_rows = std::min(p.tb, gb_rows - tb0), b_glob = gb0 + tb0;
            std::vector<product> todo;
            if (!j.symmetric || b_glob <= a_glob + ta_rows - 1) todo = j.products_sn;
            todo.insert(todo.end(), j.products_uv.begin(), j.products_uv.end());
            if (todo.empty()) continue;
            run_tile(c, exec, j, todo, dev_out, ldo, pa, ta0, ta_rows, a_glob, *planes_b, tb0, tb_rows, b_glob);
          }
        }
      }
    }
  }
  PMX_CUDA_CHECK(cudaStreamSynchronize(c.stream));
}

job make_job(const packed_rows_view& A, const packed_rows_view& B, const crossprod_outputs& out, bool symmetric) {
  job j{&A, &B, symmetric, {out.S, out.N, out.U, out.V, out.Ut, out.Vt}, out.ld, {}, {}};
  if (out.S) j.products_sn.push_back(product::S);
  if (out.N) j.products_sn.push_back(product::N);
  // V needs x² = h + 3d per column on top of U's h + d: two single-pair products serve both.
  if (out.V) j.products_uv.push_back(product::H), j.products_uv.push_back(product::D);
  else if (out.U) j.products_uv.push_back(product::U);
  if (out.Vt) j.products_uv.push_back(product::Ht), j.products_uv.push_back(product::Dt);
  else if (out.Ut) j.products_uv.push_back(product::Ut);
  for (product pr : j.products_sn) j.mask_a |= planes_of_a(pr), j.mask_b |= planes_of_b(pr);
  for (product pr : j.products_uv) j.mask_a |= planes_of_a(pr), j.mask_b |= planes_of_b(pr);
  if (symmetric) j.mask_a = j.mask_b = j.mask_a | j.mask_b;  // one set serves both sides
  for (int o = 0; o < n_outputs; ++o) j.n_out += j.host[o] != nullptr;
  return j;
}

}  // namespace

void crossprod(const executor& exec, const packed_rows_view& A, const packed_rows_view& B,
               const crossprod_outputs& out) {
  job j = make_job(A, B, out, false);
  run(exec, j);
}

void crossprod_symmetric(const executor& exec, const packed_rows_view& A, const crossprod_outputs& out) {
  job j = make_job(A, A, out, true);
  run(exec, j);
}

// The sparse companion sums read a host table in small pieces: the host kernel of the executor.
missing_sums_fn missing_sums_kernel(const executor& exec) { return cpu::missing_sums_kernel(exec.host()); }

}  // namespace pmx::kernels::cuda
