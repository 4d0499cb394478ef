// A_gg⁻¹ = A^{gg} − A^{gn}(A^{nn})⁻¹A^{ng} applied from one CHOLMOD factor of A^{nn}.
#include "panoramix/genotyped_a_inverse.hpp"

#include <cholmod.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "panoramix/error.hpp"
#include "panoramix/executor_array.hpp"
#include "panoramix/ops/ldl_sweeps.hpp"
#include "panoramix/ops/solver_vectors.hpp"
#include "panoramix/transfer_buffer.hpp"

namespace pmx {

static_assert(sizeof(SuiteSparse_long) == sizeof(int64_t), "CHOLMOD's long integers are 64-bit");

namespace {

// A rectangular CSR block (rows × cols), for the coupling blocks A^{ng} and A^{gn}.
struct csr_block {
  int64_t rows = 0;
  std::vector<int64_t> row_start, col;
  std::vector<double> value;
};

// Builds a CSR from (row, col, value) triples given row by row through `each(put)`.
template <class Each>
csr_block make_csr(int64_t rows, Each&& each) {
  csr_block b;
  b.rows = rows;
  b.row_start.assign(rows + 1, 0);
  each([&](int64_t r, int64_t, double) { ++b.row_start[r + 1]; });
  for (int64_t r = 0; r < rows; ++r) b.row_start[r + 1] += b.row_start[r];
  b.col.resize(b.row_start[rows]);
  b.value.resize(b.row_start[rows]);
  std::vector<int64_t> fill(b.row_start.begin(), b.row_start.end() - 1);
  each([&](int64_t r, int64_t c, double v) {
    b.col[fill[r]] = c;
    b.value[fill[r]++] = v;
  });
  return b;
}

// Per-t solve workspaces: CHOLMOD's B, X, Y, E (reused across calls with the same t).
struct solve_workspace {
  cholmod_dense *B = nullptr, *X = nullptr, *Y = nullptr, *E = nullptr;
};

}  // namespace

struct genotyped_a_inverse::impl {
  std::vector<int64_t> genotyped;  // as given (indices of the caller's pedigree)
  int64_t k = 0, m = 0;            // genotyped, non-genotyped (order of A^{nn})
  int threads = 1;
  sparse_symmetric_operator gg;    // A^{gg} in the order of `genotyped`
  csr_block ng, gn;                // A^{ng} (m × k) and A^{gn} (k × m)
  int64_t nn_nonzeros = 0;
  double seconds = 0.0;
  int64_t lnz = 0;
  bool super = false;
  cholmod_common cm{};
  bool cm_started = false;
  cholmod_factor* L = nullptr;
  mutable std::map<int64_t, solve_workspace> ws;
  // The same factor solved by level-scheduled sweeps (simplicial LDLᵀ, the usual case for
  // pedigrees; on the CPU's threads, or on a GPU after use_device): A^{gn}'s columns renumbered to
  // the sweeps' order, one m × t buffer per t (page-locked when the sweeps run on a GPU).
  ldl_sweeps sweeps;
  std::vector<int64_t> gn_permuted_col;
  bool force_cholmod_solve = false;
  mutable std::map<int64_t, transfer_buffer> sweep_ws;
  // Every product on the GPU (use_device, for X and Y in device memory): A^{gg}, A^{ng} with its
  // rows in the sweeps' order and A^{gn} with its columns so, resident beside the sweeps; W (m × t)
  // and T = A^{gn} W (k × t) on the device, grown to the widest t seen.
  struct device_products {
    std::vector<int64_t> ng_row_start, ng_col;  // A^{ng} with its rows permuted (the view's arrays)
    std::vector<double> ng_value;
    std::unique_ptr<sparse_operand> gg, ng, gn;
    executor_array<double> W, T;
  };
  std::unique_ptr<device_products> device;

  ldl_factor_view factor_view() const {
    return {m, static_cast<const int64_t*>(L->Perm), static_cast<const int64_t*>(L->p),
            static_cast<const int64_t*>(L->nz), static_cast<const int64_t*>(L->i), static_cast<const double*>(L->x)};
  }

  ~impl() {
    if (!cm_started) return;
    for (auto& [t, w] : ws)
      for (cholmod_dense** d : {&w.B, &w.X, &w.Y, &w.E}) cholmod_l_free_dense(d, &cm);
    cholmod_l_free_factor(&L, &cm);
    cholmod_l_finish(&cm);
  }

  // `genotyped_local`: the genotyped animals as indices of `ainv` (validated).
  void build(const sparse_symmetric& ainv, const std::vector<int64_t>& genotyped_local);
  void factorise(std::vector<int64_t>&& nn_row_start, std::vector<int64_t>&& nn_col,
                 std::vector<double>&& nn_value);
};

namespace {

// Throws input_error unless `g` are distinct indices in [0, n).
void check_genotyped(const std::vector<int64_t>& g, int64_t n) {
  std::vector<char> seen(n, 0);
  for (size_t a = 0; a < g.size(); ++a) {
    if (g[a] < 0 || g[a] >= n)
      throw input_error("genotyped animals: entry " + std::to_string(a + 1) + " is index " +
                        std::to_string(g[a]) + ", outside the pedigree of " + std::to_string(n) +
                        " animals");
    if (seen[g[a]])
      throw input_error("genotyped animals: pedigree index " + std::to_string(g[a]) +
                        " is listed twice (entry " + std::to_string(a + 1) + ")");
    seen[g[a]] = 1;
  }
}

}  // namespace

void genotyped_a_inverse::impl::build(const sparse_symmetric& ainv,
                                      const std::vector<int64_t>& gl) {
  const int64_t n = ainv.n;
  k = static_cast<int64_t>(gl.size());
  // Position of each animal: genotyped → its row in `genotyped` (code −1 − row), others → their
  // rank among the non-genotyped in pedigree order (monotone, so A^{nn} stays lower-triangular).
  std::vector<int64_t> pos(n, 0);
  for (int64_t a = 0; a < k; ++a) pos[gl[a]] = -1 - a;
  m = 0;
  for (int64_t i = 0; i < n; ++i)
    if (pos[i] >= 0) pos[i] = m++;
  auto is_g = [&](int64_t i) { return pos[i] < 0; };
  auto grow = [&](int64_t i) { return -1 - pos[i]; };

  // A^{gg} as a lower triangle in the order of `genotyped`: entry (a, b) goes to row max(a, b).
  {
    sparse_symmetric s;
    s.n = k;
    std::vector<std::vector<std::pair<int64_t, double>>> rows(k);
    for (int64_t i = 0; i < n; ++i) {
      if (!is_g(i)) continue;
      for (int64_t q = ainv.row_start[i]; q < ainv.row_start[i + 1]; ++q) {
        const int64_t j = ainv.col[q];
        if (!is_g(j)) continue;
        const int64_t a = grow(i), b = grow(j);
        rows[std::max(a, b)].emplace_back(std::min(a, b), ainv.value[q]);
      }
    }
    s.row_start.assign(k + 1, 0);
    for (int64_t a = 0; a < k; ++a) {
      std::sort(rows[a].begin(), rows[a].end());
      for (const auto& [c, v] : rows[a]) {
        s.col.push_back(c);
        s.value.push_back(v);
      }
      s.row_start[a + 1] = static_cast<int64_t>(s.col.size());
    }
    gg = sparse_symmetric_operator(s);
  }

  // Coupling blocks: a stored entry (i, j) with one of i, j genotyped.
  auto each_coupling = [&](auto&& put) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t q = ainv.row_start[i]; q < ainv.row_start[i + 1]; ++q) {
        const int64_t j = ainv.col[q];
        if (is_g(i) == is_g(j)) continue;
        const int64_t g = is_g(i) ? i : j, o = is_g(i) ? j : i;
        put(g, o, ainv.value[q]);
      }
  };
  ng = make_csr(m, [&](auto&& put) {
    each_coupling([&](int64_t g, int64_t o, double v) { put(pos[o], grow(g), v); });
  });
  gn = make_csr(k, [&](auto&& put) {
    each_coupling([&](int64_t g, int64_t o, double v) { put(grow(g), pos[o], v); });
  });

  // A^{nn}: the lower triangle of the non-genotyped rows and columns, renumbered (monotone).
  std::vector<int64_t> rs(m + 1, 0), cl;
  std::vector<double> vl;
  for (int64_t i = 0, r = 0; i < n; ++i) {
    if (is_g(i)) continue;
    for (int64_t q = ainv.row_start[i]; q < ainv.row_start[i + 1]; ++q) {
      const int64_t j = ainv.col[q];
      if (is_g(j)) continue;
      cl.push_back(pos[j]);
      vl.push_back(ainv.value[q]);
    }
    rs[++r] = static_cast<int64_t>(cl.size());
  }
  nn_nonzeros = static_cast<int64_t>(cl.size());
  if (m > 0) factorise(std::move(rs), std::move(cl), std::move(vl));
}

void genotyped_a_inverse::impl::factorise(std::vector<int64_t>&& rs, std::vector<int64_t>&& cl,
                                          std::vector<double>&& vl) {
  const auto t0 = std::chrono::steady_clock::now();
  cholmod_l_start(&cm);
  cm_started = true;
  cm.print = 0;  // the library never prints; failures are reported through exceptions
  // The lower triangle in CSR is the upper triangle in CSC (stype = +1), columns sorted.
  const int64_t nz = static_cast<int64_t>(cl.size());
  cholmod_sparse* A = cholmod_l_allocate_sparse(m, m, nz, 1, 1, 1, CHOLMOD_REAL, &cm);
  if (A == nullptr) throw numeric_error("A^nn: CHOLMOD could not allocate the matrix (out of memory?)");
  std::copy(rs.begin(), rs.end(), static_cast<int64_t*>(A->p));
  std::copy(cl.begin(), cl.end(), static_cast<int64_t*>(A->i));
  std::copy(vl.begin(), vl.end(), static_cast<double*>(A->x));
  std::vector<int64_t>().swap(rs);
  std::vector<int64_t>().swap(cl);
  std::vector<double>().swap(vl);
  L = cholmod_l_analyze(A, &cm);
  if (L == nullptr) {
    cholmod_l_free_sparse(&A, &cm);
    throw numeric_error("A^nn: CHOLMOD analysis failed (status " + std::to_string(cm.status) + ")");
  }
  const int ok = cholmod_l_factorize(A, L, &cm);
  cholmod_l_free_sparse(&A, &cm);
  if (!ok || cm.status == CHOLMOD_NOT_POSDEF || static_cast<int64_t>(L->minor) < m)
    throw numeric_error("A^nn (the A-inverse block of the " + std::to_string(m) +
                        " non-genotyped animals) is not positive definite: CHOLMOD stopped at "
                        "column " + std::to_string(static_cast<int64_t>(L->minor)) +
                        " (status " + std::to_string(cm.status) + ")");
  // A simplicial LDLᵀ succeeds on indefinite matrices: D (first entry of each column) must be > 0.
  if (!L->is_super && !L->is_ll) {
    const auto* p = static_cast<const int64_t*>(L->p);
    const auto* x = static_cast<const double*>(L->x);
    for (int64_t j = 0; j < m; ++j)
      if (!(x[p[j]] > 0.0))
        throw numeric_error("A^nn (the A-inverse block of the " + std::to_string(m) +
                            " non-genotyped animals) is not positive definite: pivot " +
                            std::to_string(j) + " of its LDL' factor is " + std::to_string(x[p[j]]));
  }
  lnz = static_cast<int64_t>(cm.lnz);
  super = L->is_super != 0;
  if (!L->is_super && !L->is_ll) {
    sweeps = ldl_sweeps(executor(backend::cpu, threads), factor_view());
    gn_permuted_col.resize(gn.col.size());
    for (size_t q = 0; q < gn.col.size(); ++q) gn_permuted_col[q] = sweeps.inverse_perm()[gn.col[q]];
  }
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

genotyped_a_inverse::genotyped_a_inverse(const sparse_symmetric& ainv,
                                         std::vector<int64_t> genotyped, int threads)
    : impl_(std::make_unique<impl>()) {
  check_genotyped(genotyped, ainv.n);
  impl_->threads = threads > 0 ? threads : omp_get_max_threads();
  impl_->build(ainv, genotyped);
  impl_->genotyped = std::move(genotyped);
}

genotyped_a_inverse::genotyped_a_inverse(const pedigree& ped, const std::vector<double>& F,
                                         std::vector<int64_t> genotyped, int threads)
    : impl_(std::make_unique<impl>()) {
  const int64_t n = ped.size();
  check_genotyped(genotyped, n);
  PMX_EXPECTS(F.empty() || static_cast<int64_t>(F.size()) == n, "one F per animal or none");
  impl_->threads = threads > 0 ? threads : omp_get_max_threads();
  // Genotyped animals and their ancestors (parents come first: one pass from the youngest).
  std::vector<char> keep(n, 0);
  for (int64_t g : genotyped) keep[g] = 1;
  for (int64_t i = n - 1; i >= 0; --i)
    if (keep[i]) {
      if (ped.sire(i) != pedigree::unknown) keep[ped.sire(i)] = 1;
      if (ped.dam(i) != pedigree::unknown) keep[ped.dam(i)] = 1;
    }
  std::vector<int64_t> local(n, -1), sire, dam;
  std::vector<double> Fsub;
  for (int64_t i = 0; i < n; ++i)
    if (keep[i]) {
      local[i] = static_cast<int64_t>(sire.size());
      sire.push_back(ped.sire(i) == pedigree::unknown ? -1 : local[ped.sire(i)]);
      dam.push_back(ped.dam(i) == pedigree::unknown ? -1 : local[ped.dam(i)]);
      if (!F.empty()) Fsub.push_back(F[i]);
    }
  const pedigree sub = pedigree::from_indices(sire, dam);
  // The ancestors of a kept animal are kept: its inbreeding is the same in the sub-pedigree.
  if (Fsub.empty()) Fsub = inbreeding(sub, impl_->threads);
  std::vector<int64_t> gl(genotyped.size());
  for (size_t a = 0; a < genotyped.size(); ++a) gl[a] = local[genotyped[a]];
  impl_->build(a_inverse(sub, Fsub, impl_->threads), gl);
  impl_->genotyped = std::move(genotyped);
}

genotyped_a_inverse::~genotyped_a_inverse() = default;
genotyped_a_inverse::genotyped_a_inverse(genotyped_a_inverse&&) noexcept = default;
genotyped_a_inverse& genotyped_a_inverse::operator=(genotyped_a_inverse&&) noexcept = default;

int64_t genotyped_a_inverse::size() const { return impl_->k; }
const std::vector<int64_t>& genotyped_a_inverse::genotyped() const { return impl_->genotyped; }
double genotyped_a_inverse::factor_seconds() const { return impl_->seconds; }
int64_t genotyped_a_inverse::factor_nonzeros() const { return impl_->lnz; }
int64_t genotyped_a_inverse::nongenotyped_nonzeros() const { return impl_->nn_nonzeros; }
int64_t genotyped_a_inverse::nongenotyped() const { return impl_->m; }
bool genotyped_a_inverse::supernodal() const { return impl_->super; }
int genotyped_a_inverse::solve_levels() const {
  return impl_->sweeps.empty() || impl_->force_cholmod_solve ? 0 : impl_->sweeps.levels();
}
void genotyped_a_inverse::use_cholmod_solve(bool on) { impl_->force_cholmod_solve = on; }
bool genotyped_a_inverse::on_device() const { return impl_->device != nullptr; }

std::string genotyped_a_inverse::use_device(const executor& exec) {
  impl& s = *impl_;
  if (s.sweeps.empty()) return "A_gg^-1 on the CPU (no simplicial factor to sweep)";
  try {
    s.sweeps = ldl_sweeps(exec, s.sweeps);
    s.sweep_ws.clear();
  } catch (const unsupported_error& e) {
    return std::string("A_gg^-1 sweeps on the CPU: ") + e.what();
  }
  std::string products;
  try {
    const int64_t* perm = s.sweeps.perm().data();
    auto d = std::make_unique<impl::device_products>();
    d->ng_row_start.push_back(0);
    for (int64_t r = 0; r < s.m; ++r) {
      const int64_t o = perm[r];
      for (int64_t q = s.ng.row_start[o]; q < s.ng.row_start[o + 1]; ++q) {
        d->ng_col.push_back(s.ng.col[q]);
        d->ng_value.push_back(s.ng.value[q]);
      }
      d->ng_row_start.push_back(static_cast<int64_t>(d->ng_col.size()));
    }
    d->gg = std::make_unique<sparse_operand>(exec, s.gg.csr());
    csr_view ng{s.m, d->ng_row_start.data(), nullptr, d->ng_col.data(), d->ng_value.data(), s.k};
    csr_view gn{s.k, s.gn.row_start.data(), nullptr, s.gn_permuted_col.data(), s.gn.value.data(), s.m};
    d->ng = std::make_unique<sparse_operand>(exec, ng);
    d->gn = std::make_unique<sparse_operand>(exec, gn);
    s.device = std::move(d);
    products = ", its sparse products too";
  } catch (const unsupported_error& e) {
    products = "; its sparse products on the CPU: " + std::string(e.what());
  }
  return "A_gg^-1 sweeps on the GPU (" + std::to_string(s.sweeps.levels()) + " forward levels)" + products;
}

void genotyped_a_inverse::apply(int64_t t, const double* X, double* Y) const {
  PMX_EXPECTS(t >= 0, "t >= 0");
  impl& s = *impl_;
  const int64_t k = s.k, m = s.m;
  if (k == 0 || t == 0) return;
  const int nt = s.threads;
  if (s.device && detail::points_to_device(X)) {
    // Y = A^{gg} X − A^{gn} P (A^{nn})⁻¹ P A^{ng} X, every step on the GPU.
    auto& d = *s.device;
    const executor& exec = s.sweeps.exec();
    sparse_multiply(*d.gg, t, X, Y);
    if (m == 0 || s.ng.col.empty()) return;
    if (d.W.size() < static_cast<size_t>(m * t)) d.W = executor_array<double>(exec, static_cast<size_t>(m * t));
    if (d.T.size() < static_cast<size_t>(k * t)) d.T = executor_array<double>(exec, static_cast<size_t>(k * t));
    sparse_multiply(*d.ng, t, X, d.W.data());
    ldl_solve_permuted(s.sweeps, t, d.W.data());
    sparse_multiply(*d.gn, t, d.W.data(), d.T.data());
    axpby(exec, k, t, -1.0, d.T.data(), t, 1.0, Y, t);
    return;
  }
  s.gg.apply(t, X, Y, nt);  // Y = A^{gg} X
  if (m == 0 || s.ng.col.empty()) return;  // no coupling: A_gg⁻¹ = A^{gg}

  const csr_block& ng = s.ng;
  const csr_block& gn = s.gn;
  if (!s.sweeps.empty() && !s.force_cholmod_solve) {
    // W = P A^{ng} X (rows in the factor's order, m × t row-major), then P (A^{nn})⁻¹ A^{ng} X in
    // place by the level-scheduled sweeps, then Y −= A^{gn} W with A^{gn}'s columns permuted.
    auto ws = s.sweep_ws.find(t);
    if (ws == s.sweep_ws.end()) ws = s.sweep_ws.emplace(t, transfer_buffer(s.sweeps.exec(), static_cast<size_t>(m * t))).first;
    transfer_buffer& W = ws->second;
    const int64_t* perm = s.sweeps.perm().data();
#pragma omp parallel for num_threads(nt) schedule(static, 4096) if (m * t > 50000)
    for (int64_t r = 0; r < m; ++r) {
      const int64_t o = perm[r];
      double* w = W.data() + r * t;
      for (int64_t c = 0; c < t; ++c) w[c] = 0.0;
      for (int64_t q = ng.row_start[o]; q < ng.row_start[o + 1]; ++q) {
        const double a = ng.value[q];
        const double* x = X + ng.col[q] * t;
        for (int64_t c = 0; c < t; ++c) w[c] += a * x[c];
      }
    }
    ldl_solve_permuted(s.sweeps, t, W.data());
#pragma omp parallel for num_threads(nt) schedule(static, 1024) if (k * t > 50000)
    for (int64_t a = 0; a < k; ++a) {
      double* y = Y + a * t;
      for (int64_t q = gn.row_start[a]; q < gn.row_start[a + 1]; ++q) {
        const double v = gn.value[q];
        const double* z = W.data() + s.gn_permuted_col[q] * t;
        for (int64_t c = 0; c < t; ++c) y[c] -= v * z[c];
      }
    }
    return;
  }

  solve_workspace& w = s.ws[t];
  if (w.B == nullptr) {
    w.B = cholmod_l_allocate_dense(m, t, m, CHOLMOD_REAL, &s.cm);
    if (w.B == nullptr) throw numeric_error("A_gg^-1: CHOLMOD could not allocate a workspace");
  }
  // B = A^{ng} X, column-major m × t (CHOLMOD's dense layout).
  double* B = static_cast<double*>(w.B->x);
#pragma omp parallel for num_threads(nt) schedule(static, 4096) if (m * t > 50000)
  for (int64_t r = 0; r < m; ++r) {
    double acc[8];
    for (int64_t c0 = 0; c0 < t; c0 += 8) {
      const int64_t tc = std::min<int64_t>(8, t - c0);
      for (int64_t c = 0; c < tc; ++c) acc[c] = 0.0;
      for (int64_t q = ng.row_start[r]; q < ng.row_start[r + 1]; ++q) {
        const double a = ng.value[q];
        const double* x = X + ng.col[q] * t + c0;
        for (int64_t c = 0; c < tc; ++c) acc[c] += a * x[c];
      }
      for (int64_t c = 0; c < tc; ++c) B[(c0 + c) * m + r] = acc[c];
    }
  }
  // Z = (A^{nn})⁻¹ B.
  if (!cholmod_l_solve2(CHOLMOD_A, s.L, w.B, nullptr, &w.X, nullptr, &w.Y, &w.E, &s.cm))
    throw numeric_error("A_gg^-1: CHOLMOD solve failed (status " + std::to_string(s.cm.status) + ")");
  const double* Z = static_cast<const double*>(w.X->x);
  const int64_t ld = static_cast<int64_t>(w.X->d);
  // Y −= A^{gn} Z.
#pragma omp parallel for num_threads(nt) schedule(static, 1024) if (k * t > 50000)
  for (int64_t a = 0; a < k; ++a) {
    double* y = Y + a * t;
    for (int64_t q = gn.row_start[a]; q < gn.row_start[a + 1]; ++q) {
      const double v = gn.value[q];
      const double* z = Z + gn.col[q];
      for (int64_t c = 0; c < t; ++c) y[c] -= v * z[c * ld];
    }
  }
}

std::vector<double> genotyped_a_inverse::dense() const {
  const int64_t k = size();
  std::vector<double> out(k * k);
  const int64_t block = std::min<int64_t>(k, 64);
  std::vector<double> X, Y;
  for (int64_t c0 = 0; c0 < k; c0 += block) {
    const int64_t b = std::min(block, k - c0);
    X.assign(k * b, 0.0);
    Y.assign(k * b, 0.0);
    for (int64_t c = 0; c < b; ++c) X[(c0 + c) * b + c] = 1.0;
    apply(b, X.data(), Y.data());
    for (int64_t i = 0; i < k; ++i)
      for (int64_t c = 0; c < b; ++c) out[i * k + c0 + c] = Y[i * b + c];
  }
  return out;
}

}  // namespace pmx
