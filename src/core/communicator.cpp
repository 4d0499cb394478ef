#include "panoramix/communicator.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "panoramix/error.hpp"

#if PMX_HAVE_MPI
#include <mpi.h>
#endif

namespace pmx {

namespace {

// Set by the launchers of the MPI implementations we know (Open MPI, MPICH/Hydra, PMIx, Slurm's
// srun with PMI): a process started plainly has none of them and never initialises MPI.
bool started_by_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

// Rank-ordered sums and maxima over chunks of at most this many values (the gathered copy is
// ranks × chunk values).
constexpr int64_t chunk_values = int64_t{1} << 20;

}  // namespace

#if PMX_HAVE_MPI
namespace {
// MPI_Comm is a pointer in Open MPI and an int in MPICH: carried as the bytes of an intptr_t.
static_assert(sizeof(MPI_Comm) <= sizeof(intptr_t));
MPI_Comm comm_of(intptr_t h) {
  MPI_Comm c;
  std::memcpy(&c, &h, sizeof c);
  return c;
}
intptr_t handle_of(MPI_Comm c) {
  intptr_t h = 0;
  std::memcpy(&h, &c, sizeof c);
  return h;
}

void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw error(std::string("MPI: ") + what + " failed: " + std::string(text, static_cast<size_t>(len)));
}

// MPI counts are int: larger transfers go in pieces.
constexpr int64_t max_piece = int64_t{1} << 30;

// Finalises MPI at exit when this process initialised it.
struct mpi_session {
  ~mpi_session() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
};
}  // namespace
#endif

struct communicator_factory {
  static communicator* alone() { return new communicator(); }
  static communicator* from_launch() {
    auto* c = new communicator();
#if PMX_HAVE_MPI
    if (!started_by_mpi_launcher()) return c;
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      int provided = 0;
      // Collectives are called by one thread at a time (the op's calling thread).
      mpi_check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
      static mpi_session session;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size_);
    MPI_Comm local;
    mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank_, MPI_INFO_NULL, &local),
              "MPI_Comm_split_type");
    MPI_Comm_rank(local, &c->local_rank_);
    MPI_Comm_size(local, &c->local_size_);
    MPI_Comm_free(&local);
    c->native_ = handle_of(MPI_COMM_WORLD);
#endif
    return c;
  }
};

const communicator& communicator::world() {
  static const communicator* w = communicator_factory::from_launch();  // never destroyed: used at exit
  return *w;
}

const communicator& communicator::single() {
  static const communicator* s = communicator_factory::alone();
  return *s;
}

bool communicator::mpi_compiled_in() { return PMX_HAVE_MPI != 0; }

void communicator::barrier() const {
#if PMX_HAVE_MPI
  if (size_ > 1) mpi_check(MPI_Barrier(comm_of(native_)), "MPI_Barrier");
#endif
}

void communicator::broadcast(void* data, int64_t bytes, int root) const {
  PMX_EXPECTS(root >= 0 && root < size_, "broadcast root is not a rank");
#if PMX_HAVE_MPI
  if (size_ == 1) return;
  auto* p = static_cast<char*>(data);
  for (int64_t at = 0; at < bytes; at += max_piece)
    mpi_check(MPI_Bcast(p + at, static_cast<int>(std::min(max_piece, bytes - at)), MPI_BYTE, root,
                        comm_of(native_)),
              "MPI_Bcast");
#else
  (void)data, (void)bytes;
#endif
}

void communicator::all_gather(const void* in, int64_t bytes, void* out) const {
  if (size_ == 1) {
    if (bytes > 0) std::memcpy(out, in, static_cast<size_t>(bytes));
    return;
  }
#if PMX_HAVE_MPI
  PMX_EXPECTS(bytes <= max_piece, "all_gather: more than 1 GiB from each rank");
  mpi_check(MPI_Allgather(in, static_cast<int>(bytes), MPI_BYTE, out, static_cast<int>(bytes), MPI_BYTE,
                          comm_of(native_)),
            "MPI_Allgather");
#endif
}

namespace {
// Gathers each chunk from every rank and combines the contributions in rank order.
template <class T, class Combine>
void rank_ordered(const communicator& c, T* data, int64_t n, Combine combine) {
  if (c.size() == 1 || n == 0) return;
  const int64_t chunk = std::min(chunk_values, n);
  std::vector<T> gathered(static_cast<size_t>(chunk * c.size()));
  for (int64_t at = 0; at < n; at += chunk) {
    const int64_t m = std::min(chunk, n - at);
    c.all_gather(data + at, m * static_cast<int64_t>(sizeof(T)), gathered.data());
    for (int64_t i = 0; i < m; ++i) {
      T acc = gathered[static_cast<size_t>(i)];
      for (int r = 1; r < c.size(); ++r) acc = combine(acc, gathered[static_cast<size_t>(r * m + i)]);
      data[at + i] = acc;
    }
  }
}
}  // namespace

void communicator::sum(double* data, int64_t n) const {
  rank_ordered(*this, data, n, [](double a, double b) { return a + b; });
}
void communicator::sum(int64_t* data, int64_t n) const {
  rank_ordered(*this, data, n, [](int64_t a, int64_t b) { return a + b; });
}
void communicator::sum(int32_t* data, int64_t n) const {
  rank_ordered(*this, data, n, [](int32_t a, int32_t b) { return a + b; });
}
void communicator::max(double* data, int64_t n) const {
  rank_ordered(*this, data, n, [](double a, double b) { return std::max(a, b); });
}

void communicator::abort(int code) const {
#if PMX_HAVE_MPI
  if (size_ > 1) MPI_Abort(comm_of(native_), code);
#else
  (void)code;
#endif
}

sample_range samples_of_rank(int64_t n_samples, int rank, int ranks) {
  PMX_EXPECTS(ranks >= 1 && rank >= 0 && rank < ranks, "rank outside [0, ranks)");
  PMX_EXPECTS(n_samples >= 0, "negative sample count");
  // Whole bytes (4 calls) are dealt out as evenly as possible; the last rank also takes the
  // partial byte at the end.
  const int64_t bytes = n_samples / 4;
  auto first_byte = [&](int r) { return bytes * r / ranks; };
  const int64_t first = 4 * first_byte(rank);
  const int64_t end = rank + 1 == ranks ? n_samples : 4 * first_byte(rank + 1);
  return {first, end - first};
}

}  // namespace pmx
