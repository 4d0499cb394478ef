// Op: the Cholesky solve of a dense symmetric positive definite matrix whose rows are split over
// the ranks of a run (in blocks of rows: no rank holds the whole matrix), on the
// CPUs through ScaLAPACK (Debian libscalapack-openmpi-dev): the rows are redistributed into
// ScaLAPACK's two-dimensional block-cyclic layout on a near-square process grid (pdgemr2d), then
// pdpotrf and pdpotrs. The reference route of the factorisations run over several GPUs, and what
// a kernel or relationship matrix too large for one host's memory is solved with.
#pragma once
#include <cstdint>

#include "panoramix/executor.hpp"

namespace pmx {

/// True when this build can solve over several ranks (it has ScaLAPACK).
bool distributed_cholesky_compiled_in();

/// Solves A X = B for the n × n symmetric positive definite A. `rows`: this rank's rows of A, whole
/// rows, row-major with leading dimension n (A symmetric: the same array as those columns,
/// column-major); destroyed. They are the blocks of `row_block` rows dealt out cyclically, block b
/// on rank b mod P (ScaLAPACK's one-dimensional block-cyclic layout; tile_cholesky's tile-cyclic
/// layout with row_block = its tile); row_block 0 means ⌈n/P⌉: rows_of_rank(n, rank, P) of
/// exec.comm(). B: n × nrhs, column-major (leading dimension n), the same on every rank; X on every
/// rank on return. Returns log det A. One rank alone: the executor's cholesky_solve (dense_linalg.hpp)
/// on its whole A. Block size `block` (ScaLAPACK's nb of the factorisation; 0 picks one).
/// Collective. Throws numeric_error when A is not positive definite (on every rank),
/// unsupported_error over several ranks without ScaLAPACK.
double distributed_cholesky_solve(const executor& exec, int64_t n, double* rows, int64_t nrhs, double* B,
                                  int64_t block = 0, int64_t row_block = 0);

}  // namespace pmx
