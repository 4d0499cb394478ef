// distributed_cholesky_solve: ScaLAPACK on a near-square BLACS grid made from the run's
// communicator. The rows of A arrive as the columns of a 1 × P grid (A is symmetric: blocks of rows
// dealt cyclically are ScaLAPACK's one-dimensional block-cyclic layout), pdgemr2d deals them out
// block-cyclically, pdpotrf/pdpotrs factorise and solve, and X is gathered on every rank by an
// exact sum (each entry comes from one rank, the others adding zeros).
#include "panoramix/ops/distributed_cholesky.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"

#if PMX_HAVE_SCALAPACK
#include <mpi.h>

#include <cstring>

extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja, const int* desca,
               double* b, const int* ib, const int* jb, const int* descb, const int* ictxt);
void pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* info);
void pdpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* ia, const int* ja,
              const int* desca, double* b, const int* ib, const int* jb, const int* descb, int* info);
}
#endif

namespace pmx {

bool distributed_cholesky_compiled_in() { return PMX_HAVE_SCALAPACK != 0; }

#if PMX_HAVE_SCALAPACK
namespace {

int as_int(int64_t v, const char* what) {
  if (v > INT32_MAX) throw unsupported_error(std::string("ScaLAPACK: ") + what + " beyond 2^31");
  return static_cast<int>(v);
}

// A BLACS grid over the communicator's ranks (rows × cols, row-major order), freed on scope exit.
struct blacs_grid {
  int handle = -1, context = -1, rows = 0, cols = 0, my_row = -1, my_col = -1;
  blacs_grid(const communicator& comm, int nprow, int npcol) {
    MPI_Comm c;
    const intptr_t h = comm.native();
    std::memcpy(&c, &h, sizeof c);
    handle = context = Csys2blacs_handle(c);
    Cblacs_gridinit(&context, "R", nprow, npcol);
    Cblacs_gridinfo(context, &rows, &cols, &my_row, &my_col);
  }
  ~blacs_grid() {
    Cblacs_gridexit(context);
    Cfree_blacs_system_handle(handle);
  }
  blacs_grid(const blacs_grid&) = delete;
  blacs_grid& operator=(const blacs_grid&) = delete;
};

std::vector<int> descriptor(int m, int n, int mb, int nb, int context, int lld) {
  std::vector<int> d(9);
  const int zero = 0;
  int info = 0;
  descinit_(d.data(), &m, &n, &mb, &nb, &zero, &zero, &context, &lld, &info);
  if (info != 0) throw logic_error("ScaLAPACK descinit: argument " + std::to_string(-info) + " invalid");
  return d;
}

// The global index of local index l along a dimension dealt out in blocks of nb over p processes.
int64_t global_index(int64_t l, int64_t nb, int me, int p) { return (l / nb) * nb * p + me * nb + l % nb; }

}  // namespace
#endif

double distributed_cholesky_solve(const executor& exec, int64_t n, double* rows, int64_t nrhs, double* B,
                                  int64_t block, int64_t row_block) {
  const communicator& comm = exec.comm();
  PMX_EXPECTS(n >= 0 && nrhs >= 0 && block >= 0 && row_block >= 0, "sizes >= 0");
  if (!comm.distributed()) return cholesky_solve(exec, n, rows, n, nrhs, B, n);
#if !PMX_HAVE_SCALAPACK
  (void)rows, (void)B, (void)block, (void)row_block;
  throw unsupported_error("a Cholesky solve over " + std::to_string(comm.size()) +
                          " ranks needs ScaLAPACK (Debian: libscalapack-openmpi-dev), absent from this build");
#else
  const int P = comm.size(), me = comm.rank();
  const int N = as_int(n, "order"), R = as_int(std::max<int64_t>(nrhs, 1), "right-hand sides");
  // Near-square grid: the largest divisor of P not above √P rows.
  int pr = 1;
  for (int d = 1; d * d <= P; ++d)
    if (P % d == 0) pr = d;
  const int pc = P / pr;
  const int nb = as_int(block > 0 ? block : std::clamp<int64_t>(n / (4 * std::max(pr, pc)), 8, 256), "block");
  const int one = 1, zero = 0;

  // Source: this rank's rows as columns of a 1 × P grid, blocks of row_block (or ⌈n/P⌉) dealt cyclically.
  blacs_grid line(comm, 1, P);
  const int src_nb = as_int(row_block > 0 ? row_block : std::max<int64_t>(1, (n + P - 1) / P), "block");
  PMX_EXPECTS(line.my_col == me, "BLACS numbers the grid as the communicator's ranks");
  const std::vector<int> src = descriptor(N, N, std::max(N, 1), src_nb, line.context, std::max(N, 1));

  blacs_grid grid(comm, pr, pc);
  const int mloc = numroc_(&N, &nb, &grid.my_row, &zero, &pr);
  const int nloc = numroc_(&N, &nb, &grid.my_col, &zero, &pc);
  const int lld = std::max(1, mloc);
  std::vector<double> A(static_cast<size_t>(lld) * static_cast<size_t>(std::max(nloc, 1)));
  const std::vector<int> desc_a = descriptor(N, N, nb, nb, grid.context, lld);
  pdgemr2d_(&N, &N, rows, &one, &one, src.data(), A.data(), &one, &one, desc_a.data(), &line.context);

  int info = 0;
  pdpotrf_("L", &N, A.data(), &one, &one, desc_a.data(), &info);
  if (info < 0) throw logic_error("pdpotrf: argument " + std::to_string(-info) + " invalid");
  if (info > 0)
    throw numeric_error("Cholesky over " + std::to_string(P) + " ranks: the leading minor of order " +
                        std::to_string(info) + " is not positive definite");
  // log det A = 2 Σ log L_ii over the diagonal entries this rank holds, summed over ranks.
  double logdet = 0;
  for (int lj = 0; lj < nloc; ++lj) {
    const int64_t gj = global_index(lj, nb, grid.my_col, pc);
    for (int li = 0; li < mloc; ++li)
      if (global_index(li, nb, grid.my_row, pr) == gj) logdet += 2 * std::log(A[static_cast<size_t>(li + int64_t{lj} * lld)]);
  }
  comm.sum(&logdet, 1);
  if (nrhs == 0) return logdet;

  // B dealt out from the copy every rank holds; X gathered back by an exact sum.
  const int rloc = numroc_(&R, &nb, &grid.my_col, &zero, &pc);
  std::vector<double> Bl(static_cast<size_t>(lld) * static_cast<size_t>(std::max(rloc, 1)));
  for (int lj = 0; lj < rloc; ++lj) {
    const int64_t gj = global_index(lj, nb, grid.my_col, pc);
    for (int li = 0; li < mloc; ++li)
      Bl[static_cast<size_t>(li + int64_t{lj} * lld)] = B[global_index(li, nb, grid.my_row, pr) + gj * n];
  }
  const std::vector<int> desc_b = descriptor(N, R, nb, nb, grid.context, lld);
  pdpotrs_("L", &N, &R, A.data(), &one, &one, desc_a.data(), Bl.data(), &one, &one, desc_b.data(), &info);
  if (info != 0) throw logic_error("pdpotrs: argument " + std::to_string(-info) + " invalid");
  std::fill_n(B, n * nrhs, 0.0);
  for (int lj = 0; lj < rloc; ++lj) {
    const int64_t gj = global_index(lj, nb, grid.my_col, pc);
    for (int li = 0; li < mloc; ++li)
      B[global_index(li, nb, grid.my_row, pr) + gj * n] = Bl[static_cast<size_t>(li + int64_t{lj} * lld)];
  }
  comm.sum(B, n * nrhs);
  return logdet;
#endif
}

}  // namespace pmx
