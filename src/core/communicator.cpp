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

// Rank-ordered sums and maxima go in chunks of at most this many values (each rank receives
// about one chunk of contributions at a time).
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
#if PMX_HAVE_MPI
// One round of a rank-ordered reduce-scatter: rank o receives the values [first(o), first(o + 1))
// of `data` from every rank and combines them in rank order into its own `data` there. `received`
// holds P times the longest range.
template <class T, class First, class Combine>
void combine_at_owners(const communicator& c, T* data, First first, std::vector<T>& received, Combine combine) {
  const int P = c.size(), me = c.rank();
  std::vector<int> counts(P), displs(P), recv_counts(P), recv_displs(P);
  for (int s = 0; s < P; ++s) {
    counts[s] = static_cast<int>((first(s + 1) - first(s)) * int64_t{sizeof(T)});
    displs[s] = static_cast<int>(first(s) * int64_t{sizeof(T)});
  }
  const int64_t len = first(me + 1) - first(me);
  if (received.size() < static_cast<size_t>(len * P)) received.resize(static_cast<size_t>(len * P));
  for (int r = 0; r < P; ++r) {
    recv_counts[r] = static_cast<int>(len * int64_t{sizeof(T)});
    recv_displs[r] = static_cast<int>(r * len * int64_t{sizeof(T)});
  }
  mpi_check(MPI_Alltoallv(data, counts.data(), displs.data(), MPI_BYTE, received.data(), recv_counts.data(),
                          recv_displs.data(), MPI_BYTE, comm_of(c.native())),
            "MPI_Alltoallv");
  T* out = data + first(me);
  for (int64_t i = 0; i < len; ++i) {
    T acc = received[static_cast<size_t>(i)];
    for (int r = 1; r < P; ++r) acc = combine(acc, received[static_cast<size_t>(r * len + i)]);
    out[i] = acc;
  }
}
#endif

// Element-wise combination over the ranks in rank order, chunk by chunk, as a reduce-scatter then
// an all-gather: rank s receives slice s of the chunk from every rank and combines it in rank
// order, then every rank gathers the combined slices. Each rank receives about twice the chunk
// whatever the rank count and combines 1/P of it (an all-gather of the contributions would
// receive P chunks and combine all of them); the bits are those of the rank-ordered combination.
template <class T, class Combine>
void rank_ordered(const communicator& c, T* data, int64_t n, Combine combine) {
  const int P = c.size();
  if (P == 1 || n == 0) return;
#if PMX_HAVE_MPI
  const int64_t chunk = std::min(chunk_values, n);
  std::vector<T> received;
  std::vector<int> counts(P), displs(P);
  for (int64_t at = 0; at < n; at += chunk) {
    const int64_t m = std::min(chunk, n - at);
    auto first = [&](int s) { return m * s / P; };
    combine_at_owners(c, data + at, first, received, combine);
    for (int s = 0; s < P; ++s) {
      counts[s] = static_cast<int>((first(s + 1) - first(s)) * int64_t{sizeof(T)});
      displs[s] = static_cast<int>(first(s) * int64_t{sizeof(T)});
    }
    mpi_check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data + at, counts.data(), displs.data(), MPI_BYTE,
                             comm_of(c.native())),
              "MPI_Allgatherv");
  }
#else
  (void)data, (void)combine;
#endif
}

// Rank-ordered sums delivered to their owners only, in rounds of at most chunk_values / P values
// per owner (each rank receives at most chunk_values values a round).
template <class T>
void sum_at_owners(const communicator& c, T* data, const int64_t* first) {
  const int P = c.size();
  PMX_EXPECTS(first[0] == 0, "owners' ranges start at 0");
  for (int o = 0; o < P; ++o) PMX_EXPECTS(first[o + 1] >= first[o], "owners' ranges in rank order");
  if (P == 1) return;
#if PMX_HAVE_MPI
  const int64_t step = std::max<int64_t>(1, chunk_values / P);
  int64_t longest = 0;
  for (int o = 0; o < P; ++o) longest = std::max(longest, first[o + 1] - first[o]);
  std::vector<T> received;
  for (int64_t at = 0; at < longest; at += step) {
    // This round: each owner's values [first[o] + at, + step), clipped to its range, gathered into
    // one contiguous staging run per owner (the ranges are not adjacent across rounds).
    std::vector<int64_t> begin(P + 1, 0);
    for (int o = 0; o < P; ++o) begin[o + 1] = begin[o] + std::clamp<int64_t>(first[o + 1] - first[o] - at, 0, step);
    std::vector<T> staged(static_cast<size_t>(begin[P]));
    for (int o = 0; o < P; ++o)
      std::copy_n(data + first[o] + at, begin[o + 1] - begin[o], staged.data() + begin[o]);
    combine_at_owners(c, staged.data(), [&](int s) { return begin[s]; }, received, [](T a, T b) { return a + b; });
    const int me = c.rank();
    std::copy_n(staged.data() + begin[me], begin[me + 1] - begin[me], data + first[me] + at);
  }
#else
  (void)data;
#endif
}
}  // namespace

void communicator::sum_to_owners(double* data, const int64_t* first) const { sum_at_owners(*this, data, first); }
void communicator::sum_to_owners(int32_t* data, const int64_t* first) const { sum_at_owners(*this, data, first); }

void communicator::send(const void* data, int64_t bytes, int to) const {
  PMX_EXPECTS(to >= 0 && to < size_ && to != rank_, "send: to another rank");
#if PMX_HAVE_MPI
  const auto* p = static_cast<const char*>(data);
  for (int64_t at = 0; at < bytes; at += max_piece)
    mpi_check(MPI_Send(p + at, static_cast<int>(std::min(max_piece, bytes - at)), MPI_BYTE, to, 0, comm_of(native_)),
              "MPI_Send");
#else
  (void)data, (void)bytes;
#endif
}

void communicator::receive(void* data, int64_t bytes, int from) const {
  PMX_EXPECTS(from >= 0 && from < size_ && from != rank_, "receive: from another rank");
#if PMX_HAVE_MPI
  auto* p = static_cast<char*>(data);
  for (int64_t at = 0; at < bytes; at += max_piece)
    mpi_check(MPI_Recv(p + at, static_cast<int>(std::min(max_piece, bytes - at)), MPI_BYTE, from, 0,
                       comm_of(native_), MPI_STATUS_IGNORE),
              "MPI_Recv");
#else
  (void)data, (void)bytes;
#endif
}

void communicator::exchange(const void* in, const int64_t* send_bytes, void* out, const int64_t* recv_bytes) const {
  const int P = size_, me = rank_;
  std::vector<int64_t> send_at(static_cast<size_t>(P) + 1, 0), recv_at(static_cast<size_t>(P) + 1, 0);
  for (int r = 0; r < P; ++r) send_at[r + 1] = send_at[r] + send_bytes[r], recv_at[r + 1] = recv_at[r] + recv_bytes[r];
  PMX_EXPECTS(send_bytes[me] == recv_bytes[me], "exchange: this rank's own part differs in size");
  const auto* src = static_cast<const char*>(in);
  auto* dst = static_cast<char*>(out);
  std::copy_n(src + send_at[me], send_bytes[me], dst + recv_at[me]);
#if PMX_HAVE_MPI
  // Round d: to me + d, from me − d (a pairing of the ranks), every piece of at most max_piece
  // bytes posted both ways at once (non-blocking: no order between the ranks can deadlock).
  std::vector<MPI_Request> requests;
  for (int d = 1; d < P; ++d) {
    const int to = (me + d) % P, from = (me - d + P) % P;
    requests.clear();
    for (int64_t at = 0; at < recv_bytes[from]; at += max_piece) {
      requests.emplace_back();
      mpi_check(MPI_Irecv(dst + recv_at[from] + at, static_cast<int>(std::min(max_piece, recv_bytes[from] - at)),
                          MPI_BYTE, from, 1, comm_of(native_), &requests.back()),
                "MPI_Irecv");
    }
    for (int64_t at = 0; at < send_bytes[to]; at += max_piece) {
      requests.emplace_back();
      mpi_check(MPI_Isend(src + send_at[to] + at, static_cast<int>(std::min(max_piece, send_bytes[to] - at)), MPI_BYTE,
                          to, 1, comm_of(native_), &requests.back()),
                "MPI_Isend");
    }
    mpi_check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
#endif
}

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

sample_range rows_of_rank(int64_t n_rows, int rank, int ranks) {
  PMX_EXPECTS(ranks >= 1 && rank >= 0 && rank < ranks && n_rows >= 0, "rows of a rank: rank in [0, ranks), n >= 0");
  const int64_t block = (n_rows + ranks - 1) / ranks;
  const int64_t first = std::min(n_rows, block * rank);
  return {first, std::min(n_rows, first + block) - first};
}

}  // namespace pmx
