// The processes of one run and the collectives the ops need across them.
//
// A run started by an MPI launcher (`mpirun -np N panoramix ...`) has N ranks, one per process and
// at most one GPU each (the rank's local rank on its host picks the device). A run started plainly
// is one process alone: nothing here touches MPI then (MPI is initialised only when the launcher's
// environment is present), and a build without MPI always runs alone.
//
// Sums are deterministic: each element's contributions are added in rank order, so every rank
// holds the same bits, and integer sums are exact whatever the rank count.
#pragma once
#include <cstdint>

namespace pmx {

class communicator {
 public:
  /// This run's processes: every rank of the MPI launch that started this process (MPI is
  /// initialised on the first call and finalised at exit), else this process alone.
  static const communicator& world();
  /// This process alone (no MPI).
  static const communicator& single();
  /// True when this build can run over MPI.
  static bool mpi_compiled_in();

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Rank among the processes of this host, and how many there are (one GPU each).
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  bool distributed() const { return size_ > 1; }

  void barrier() const;
  /// `bytes` bytes from rank `root` to every rank.
  void broadcast(void* data, int64_t bytes, int root) const;
  /// `bytes` bytes from every rank into out[r * bytes ...] for each rank r, on every rank.
  void all_gather(const void* in, int64_t bytes, void* out) const;
  /// Element-wise sums over the ranks, in place, added in rank order (the same bits on every rank).
  void sum(double* data, int64_t n) const;
  void sum(int64_t* data, int64_t n) const;
  void sum(int32_t* data, int64_t n) const;  ///< the caller knows the sums fit
  /// Element-wise maximum over the ranks, in place.
  void max(double* data, int64_t n) const;
  /// Element-wise sums over the ranks in rank order, each delivered to one rank only: the values
  /// [first[o], first[o + 1]) of `data` to rank o (first: size() + 1 offsets, first[0] = 0, in
  /// order). This rank's other values are left as they were. A reduce-scatter: each rank receives
  /// P times its own range, not the whole.
  void sum_to_owners(double* data, const int64_t* first) const;
  void sum_to_owners(int32_t* data, const int64_t* first) const;  ///< the caller knows the sums fit

  /// `bytes` bytes to rank `to`, matched by its receive() of the same size (blocking).
  void send(const void* data, int64_t bytes, int to) const;
  void receive(void* data, int64_t bytes, int from) const;

  /// All-to-all of bytes: `in` holds, in rank order, the send_bytes[r] bytes for each rank r (this
  /// rank's own included); `out` receives, in rank order, the recv_bytes[r] bytes from each rank r
  /// (which must be what r sends here). Collective; pairwise rounds, no size limit.
  void exchange(const void* in, const int64_t* send_bytes, void* out, const int64_t* recv_bytes) const;

  /// Ends every rank of the run with `code` (after an error on one rank, so that the others do not
  /// wait for it in a collective). Returns only when this process runs alone.
  void abort(int code) const;

  /// The MPI communicator (an MPI_Comm, as an integer handle) for libraries set up over it (NCCL);
  /// 0 when alone.
  intptr_t native() const { return native_; }

  communicator(const communicator&) = delete;
  communicator& operator=(const communicator&) = delete;

 private:
  communicator() = default;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  intptr_t native_ = 0;
  friend struct communicator_factory;
};

/// The samples [first, first + count) a rank holds when n samples are split over `ranks` ranks:
/// contiguous ranges in rank order, every first a multiple of 4 (whole bytes of a .bed row), sizes
/// as even as that allows.
struct sample_range {
  int64_t first = 0;
  int64_t count = 0;
};
sample_range samples_of_rank(int64_t n_samples, int rank, int ranks);

/// The rows [first, first + count) of an n-row matrix a rank holds when its rows are split over
/// `ranks` ranks: blocks of ⌈n/ranks⌉ rows in rank order (ScaLAPACK's one-dimensional block
/// layout, so such rows pass to it as they are), the last ones shorter or empty.
sample_range rows_of_rank(int64_t n_rows, int rank, int ranks);

}  // namespace pmx
