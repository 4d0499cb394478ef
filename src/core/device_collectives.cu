#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda_context.hpp"
#include "core/device_collectives.hpp"
#include "panoramix/error.hpp"

#if PMX_HAVE_NCCL
#include <nccl.h>
#endif

namespace pmx::detail {
namespace {

// Adds the ranks' contributions in rank order (one rounding per addition, as the host route) and
// writes them with β W into the strided W. gathered holds `ranks` blocks of m values: the values
// [first, first + m) of each rank's dense rows × cols contribution.
__global__ void add_in_rank_order(const double* __restrict__ gathered, int64_t m, int ranks, int64_t first,
                                  int64_t cols, double beta, double* __restrict__ W, int64_t ld_w) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  double acc = gathered[i];
  for (int r = 1; r < ranks; ++r) acc = __dadd_rn(acc, gathered[r * m + i]);
  const int64_t e = first + i;
  double* w = W + (e / cols) * ld_w + e % cols;
  *w = beta == 0.0 ? acc : __dadd_rn(acc, __dmul_rn(beta, *w));
}

// data[i] = Σ_r (rank r's contribution to element i), in rank order: this rank's own from data,
// the others' from received (ranks blocks of m values; this rank's block unused).
template <class T>
__global__ void add_received_in_rank_order(const T* __restrict__ received, int64_t m, int ranks, int me,
                                           T* __restrict__ data) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  T acc = me == 0 ? data[i] : received[i];
  for (int r = 1; r < ranks; ++r) {
    const T v = r == me ? data[i] : received[r * m + i];
    if constexpr (std::is_same_v<T, double>) acc = __dadd_rn(acc, v);
    else acc += v;
  }
  data[i] = acc;
}

#if PMX_HAVE_NCCL
// NCCL is loaded on first use, like the math libraries (cuda_libraries.hpp says why): a build
// with it runs where it is absent as long as no run spans several GPUs.
struct nccl_functions {
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) init_rank = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclReduce) reduce = nullptr;
  decltype(&ncclCommDestroy) destroy = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
};

const nccl_functions& nccl() {
  static const nccl_functions f = [] {
    void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen(PMX_CUDA_LIBRARY_DIR "/libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      throw error(std::string("NCCL (libnccl.so.2) cannot be loaded for a run over several GPUs: ") + dlerror());
    nccl_functions n;
    auto find = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn) throw error(std::string("NCCL: libnccl.so.2 lacks ") + name);
    };
    find(n.get_unique_id, "ncclGetUniqueId");
    find(n.init_rank, "ncclCommInitRank");
    find(n.all_gather, "ncclAllGather");
    find(n.broadcast, "ncclBroadcast");
    find(n.reduce, "ncclReduce");
    find(n.destroy, "ncclCommDestroy");
    find(n.error_string, "ncclGetErrorString");
    find(n.send, "ncclSend");
    find(n.recv, "ncclRecv");
    find(n.group_start, "ncclGroupStart");
    find(n.group_end, "ncclGroupEnd");
    return n;
  }();
  return f;
}

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw error(std::string("NCCL: ") + what + " failed: " + nccl().error_string(r));
}

// The executor's NCCL communicator: rank 0 makes the id, MPI carries it to every rank.
ncclComm_t nccl_comm(const executor& exec, cuda_context& ctx) {
  if (!ctx.nccl) {
    const communicator& comm = exec.comm();
    ncclUniqueId id{};
    if (comm.rank() == 0) nccl_check(nccl().get_unique_id(&id), "ncclGetUniqueId");
    comm.broadcast(&id, sizeof id, 0);
    ncclComm_t c = nullptr;
    nccl_check(nccl().init_rank(&c, comm.size(), id, comm.rank()), "ncclCommInitRank");
    ctx.nccl = std::shared_ptr<void>(c, [](void* p) { nccl().destroy(static_cast<ncclComm_t>(p)); });
  }
  return static_cast<ncclComm_t>(ctx.nccl.get());
}
#endif

void launch_add(const double* gathered, int64_t m, int ranks, int64_t first, int64_t cols, double beta,
                double* W, int64_t ld_w, cudaStream_t stream) {
  const int threads = 256;
  add_in_rank_order<<<static_cast<unsigned>((m + threads - 1) / threads), threads, 0, stream>>>(
      gathered, m, ranks, first, cols, beta, W, ld_w);
  PMX_CUDA_CHECK_LAUNCH();
}

template <class T>
void device_sum_to_owners(const executor& exec, T* data, const int64_t* first) {
  const communicator& comm = exec.comm();
  const int P = comm.size(), me = comm.rank();
  if (P == 1) return;
  if (!is_device_pointer(data)) return comm.sum_to_owners(data, first);
  cuda_scope scope(exec);
  cuda_context& ctx = scope.ctx;
#if PMX_HAVE_NCCL
  ncclComm_t c = nccl_comm(exec, ctx);
  const ncclDataType_t type = std::is_same_v<T, double> ? ncclDouble : ncclInt32;
  // Rounds of at most 64 MiB received per rank: owner o's values [first[o] + at, + step) from every
  // rank (an all-to-all of sends and receives), then added in rank order where they lie.
  const int64_t step = std::max<int64_t>(1, (int64_t{64} << 20) / (int64_t{sizeof(T)} * P));
  int64_t longest = 0;
  for (int o = 0; o < P; ++o) longest = std::max(longest, first[o + 1] - first[o]);
  ctx.gathered.reserve(static_cast<size_t>(step * P) * sizeof(T));
  auto* received = static_cast<T*>(ctx.gathered.get());
  auto len = [&](int o, int64_t at) { return std::clamp<int64_t>(first[o + 1] - first[o] - at, 0, step); };
  for (int64_t at = 0; at < longest; at += step) {
    const int64_t mine = len(me, at);
    nccl_check(nccl().group_start(), "ncclGroupStart");
    for (int o = 0; o < P; ++o) {
      if (o == me) continue;
      if (len(o, at) > 0)
        nccl_check(nccl().send(data + first[o] + at, static_cast<size_t>(len(o, at)), type, o, c, ctx.stream), "ncclSend");
      if (mine > 0)
        nccl_check(nccl().recv(received + o * mine, static_cast<size_t>(mine), type, o, c, ctx.stream), "ncclRecv");
    }
    nccl_check(nccl().group_end(), "ncclGroupEnd");
    if (mine > 0) {
      add_received_in_rank_order<<<static_cast<unsigned>((mine + 255) / 256), 256, 0, ctx.stream>>>(
          received, mine, P, me, data + first[me] + at);
      PMX_CUDA_CHECK_LAUNCH();
    }
  }
  PMX_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
#else
  // No NCCL: through the host, the whole buffer.
  const int64_t n = first[P];
  std::vector<T> h(static_cast<size_t>(n));
  PMX_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  PMX_CUDA_CHECK(cudaMemcpy(h.data(), data, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
  comm.sum_to_owners(h.data(), first);
  const int64_t own = first[me + 1] - first[me];
  PMX_CUDA_CHECK(cudaMemcpy(data + first[me], h.data() + first[me], static_cast<size_t>(own) * sizeof(T),
                            cudaMemcpyHostToDevice));
#endif
}

}  // namespace

void sum_to_owners(const executor& exec, double* data, const int64_t* first) { device_sum_to_owners(exec, data, first); }
void sum_to_owners(const executor& exec, int32_t* data, const int64_t* first) { device_sum_to_owners(exec, data, first); }

void sum_over_ranks(const executor& exec, double* P, int64_t rows, int64_t cols, double beta, double* W,
                    int64_t ld_w) {
  const communicator& comm = exec.comm();
  const int64_t n = rows * cols;
  if (!exec.on_device() || !is_device_pointer(P)) return host_sum_over_ranks(comm, P, rows, cols, beta, W, ld_w);
  PMX_EXPECTS(is_device_pointer(W), "sum_over_ranks: P in device memory and W not");
  if (n == 0) return;
  cuda_scope scope(exec);
  cuda_context& ctx = scope.ctx;
  const int ranks = comm.size();
#if PMX_HAVE_NCCL
  if (ranks > 1) {
    ncclComm_t c = nccl_comm(exec, ctx);
    // Chunks of at most 64 MiB gathered. P is read chunk by chunk before W (possibly P itself)
    // is written at the same places, so the in-place form works.
    const int64_t chunk = std::min(n, std::max<int64_t>(1, (int64_t{8} << 20) / ranks));
    ctx.gathered.reserve(static_cast<size_t>(chunk * ranks) * sizeof(double));
    auto* g = static_cast<double*>(ctx.gathered.get());
    for (int64_t at = 0; at < n; at += chunk) {
      const int64_t m = std::min(chunk, n - at);
      nccl_check(nccl().all_gather(P + at, g, static_cast<size_t>(m), ncclDouble, c, ctx.stream), "ncclAllGather");
      launch_add(g, m, ranks, at, cols, beta, W, ld_w, ctx.stream);
    }
    PMX_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    return;
  }
#endif
  if (ranks == 1) {
    if (P == W) return;
    launch_add(P, n, 1, 0, cols, beta, W, ld_w, ctx.stream);
    PMX_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    return;
  }
  // No NCCL: through the host.
  std::vector<double> p(static_cast<size_t>(n)), w(static_cast<size_t>(n));
  PMX_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  PMX_CUDA_CHECK(cudaMemcpy(p.data(), P, p.size() * sizeof(double), cudaMemcpyDeviceToHost));
  if (beta != 0.0)
    PMX_CUDA_CHECK(cudaMemcpy2D(w.data(), cols * sizeof(double), W, ld_w * sizeof(double), cols * sizeof(double),
                                rows, cudaMemcpyDeviceToHost));
  host_sum_over_ranks(comm, p.data(), rows, cols, beta, w.data(), cols);
  PMX_CUDA_CHECK(cudaMemcpy2D(W, ld_w * sizeof(double), w.data(), cols * sizeof(double), cols * sizeof(double),
                              rows, cudaMemcpyHostToDevice));
}

void device_broadcast(const executor& exec, cuda_context& ctx, void* data, int64_t bytes, int root, void* stream) {
  const communicator& comm = exec.comm();
  if (comm.size() == 1 || bytes == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
#if PMX_HAVE_NCCL
  nccl_check(nccl().broadcast(data, data, static_cast<size_t>(bytes), ncclUint8, root, nccl_comm(exec, ctx), s),
             "ncclBroadcast");
#else
  (void)ctx;
  std::vector<char> h(static_cast<size_t>(bytes));
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  if (comm.rank() == root) PMX_CUDA_CHECK(cudaMemcpy(h.data(), data, h.size(), cudaMemcpyDeviceToHost));
  comm.broadcast(h.data(), bytes, root);
  if (comm.rank() != root) PMX_CUDA_CHECK(cudaMemcpy(data, h.data(), h.size(), cudaMemcpyHostToDevice));
#endif
}

void device_sum_to_root(const executor& exec, cuda_context& ctx, const float* in, float* out, int64_t count, int root,
                        void* stream) {
  const communicator& comm = exec.comm();
  auto s = static_cast<cudaStream_t>(stream);
  if (count == 0) return;
  if (comm.size() == 1) {
    PMX_CUDA_CHECK(cudaMemcpyAsync(out, in, sizeof(float) * static_cast<size_t>(count), cudaMemcpyDeviceToDevice, s));
    return;
  }
#if PMX_HAVE_NCCL
  nccl_check(nccl().reduce(in, out, static_cast<size_t>(count), ncclFloat, ncclSum, root, nccl_comm(exec, ctx), s),
             "ncclReduce");
#else
  (void)ctx;
  std::vector<float> h(static_cast<size_t>(count));
  PMX_CUDA_CHECK(cudaStreamSynchronize(s));
  PMX_CUDA_CHECK(cudaMemcpy(h.data(), in, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<double> d(h.begin(), h.end());
  comm.sum(d.data(), count);
  if (comm.rank() == root) {
    for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>(d[i]);
    PMX_CUDA_CHECK(cudaMemcpy(out, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
#endif
}

}  // namespace pmx::detail
