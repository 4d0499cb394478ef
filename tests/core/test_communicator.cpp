// The communicator alone and under `mpirun -np 2..4` (mpi.* tests, tests/CMakeLists.txt): sizes
// and ranks as the launcher set them, collectives against closed forms each rank computes itself,
// and the sample split's invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "panoramix/communicator.hpp"

namespace pmx {
namespace {

TEST(Communicator, RanksAreTheLaunchersOrOne) {
  const communicator& w = communicator::world();
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (size && communicator::mpi_compiled_in()) {
    EXPECT_EQ(w.size(), std::atoi(size));
    EXPECT_EQ(w.rank(), std::atoi(rank));
  } else {
    EXPECT_EQ(w.size(), 1);
    EXPECT_EQ(w.rank(), 0);
  }
  // One host here: every rank is local.
  EXPECT_EQ(w.local_size(), w.size());
  EXPECT_EQ(w.local_rank(), w.rank());
  EXPECT_EQ(communicator::single().size(), 1);
}

TEST(Communicator, SumsAreTheClosedFormsAndTheSameBitsEverywhere) {
  const communicator& w = communicator::world();
  const int P = w.size(), r = w.rank();
  // Integers: Σ_r (r + 1)·(i + 1) = (i + 1)·P(P + 1)/2, more values than one gathered chunk.
  const int64_t n = (int64_t{1} << 20) + 37;
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = (r + 1) * (i + 1);
  w.sum(v.data(), n);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += v[i] != (i + 1) * P * (P + 1) / 2;
  EXPECT_EQ(wrong, 0);
  // Doubles: the rank-ordered sum, which every rank can form from the contributions' formula.
  std::vector<double> x(1000), want(1000);
  auto term = [](int rank, int i) { return 1.0 / (3.0 + rank) + 1e-7 * i * (rank % 2 ? -1 : 1); };
  for (int i = 0; i < 1000; ++i) {
    x[i] = term(r, i);
    double acc = term(0, i);
    for (int q = 1; q < P; ++q) acc += term(q, i);
    want[i] = acc;
  }
  w.sum(x.data(), 1000);
  EXPECT_EQ(std::memcmp(x.data(), want.data(), 1000 * sizeof(double)), 0);
  std::vector<double> m{static_cast<double>(r), -static_cast<double>(r)};
  w.max(m.data(), 2);
  EXPECT_EQ(m[0], P - 1);
  EXPECT_EQ(m[1], 0.0);
}

TEST(Communicator, SumsToOwnersReachOnlyTheirOwners) {
  const communicator& w = communicator::world();
  const int P = w.size(), r = w.rank();
  // Uneven ranges (one empty when P > 1), longer than one round: owner o gets [first[o], first[o+1]).
  const int64_t n = 3 * (int64_t{1} << 20) + 11;
  std::vector<int64_t> first(P + 1, 0);
  for (int o = 0; o < P; ++o) first[o + 1] = o == 0 && P > 1 ? 0 : first[o] + (n - first[o]) / (P - o);
  first[P] = n;
  auto term = [](int rank, int64_t i) { return 1.0 / (3.0 + rank) + 1e-9 * double(i % 1000) * (rank % 2 ? -1 : 1); };
  std::vector<double> x(n);
  std::vector<int32_t> k(n);
  for (int64_t i = 0; i < n; ++i) x[i] = term(r, i), k[i] = (r + 1) * int32_t(i % 1000);
  w.sum_to_owners(x.data(), first.data());
  w.sum_to_owners(k.data(), first.data());
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool mine = i >= first[r] && i < first[r + 1];
    double want = term(r, i);
    int32_t kwant = (r + 1) * int32_t(i % 1000);
    if (mine) {
      want = term(0, i);
      for (int q = 1; q < P; ++q) want += term(q, i);
      kwant = int32_t(i % 1000) * P * (P + 1) / 2;
    }
    wrong += std::memcmp(&x[i], &want, sizeof want) != 0 || k[i] != kwant;
  }
  EXPECT_EQ(wrong, 0);
}

TEST(Communicator, SendAndReceiveInRankOrder) {
  const communicator& w = communicator::world();
  if (w.size() == 1) GTEST_SKIP() << "one rank: nothing to send";
  // Every rank sends rank 0 a message of its own length; rank 0 takes them in rank order.
  if (w.rank() == 0) {
    for (int from = 1; from < w.size(); ++from) {
      std::vector<int32_t> got(1000 * from);
      w.receive(got.data(), int64_t(got.size() * sizeof(int32_t)), from);
      int64_t wrong = 0;
      for (size_t i = 0; i < got.size(); ++i) wrong += got[i] != from * 7 + int32_t(i);
      EXPECT_EQ(wrong, 0) << "from rank " << from;
    }
  } else {
    std::vector<int32_t> msg(1000 * w.rank());
    for (size_t i = 0; i < msg.size(); ++i) msg[i] = w.rank() * 7 + int32_t(i);
    w.send(msg.data(), int64_t(msg.size() * sizeof(int32_t)), 0);
  }
}

TEST(Communicator, ExchangeDeliversEachPartToItsRank) {
  const communicator& w = communicator::world();
  const int P = w.size(), me = w.rank();
  // Rank r sends rank o (r + 1)(o + 2) − 2 values (none from rank 0 to rank 1), each naming both.
  auto count = [](int r, int o) { return int64_t((r + 1) * (o + 2) - 2) * 37; };
  std::vector<int64_t> send(static_cast<size_t>(P)), recv(static_cast<size_t>(P));
  std::vector<int32_t> in, out;
  for (int o = 0; o < P; ++o) {
    send[o] = count(me, o) * int64_t(sizeof(int32_t)), recv[o] = count(o, me) * int64_t(sizeof(int32_t));
    for (int64_t k = 0; k < count(me, o); ++k) in.push_back(me * 100000 + o * 1000 + int32_t(k % 1000));
  }
  int64_t total = 0;
  for (int o = 0; o < P; ++o) total += count(o, me);
  out.assign(static_cast<size_t>(total), -1);
  w.exchange(in.data(), send.data(), out.data(), recv.data());
  int64_t at = 0, wrong = 0;
  for (int o = 0; o < P; ++o)
    for (int64_t k = 0; k < count(o, me); ++k) wrong += out[at++] != o * 100000 + me * 1000 + int32_t(k % 1000);
  EXPECT_EQ(wrong, 0);
}

TEST(Communicator, BroadcastAndGather) {
  const communicator& w = communicator::world();
  std::vector<char> b(3000, static_cast<char>(w.rank() == w.size() - 1 ? 7 : 0));
  w.broadcast(b.data(), static_cast<int64_t>(b.size()), w.size() - 1);
  EXPECT_EQ(std::count(b.begin(), b.end(), 7), 3000);
  const int mine[2] = {w.rank(), 10 * w.rank()};
  std::vector<int> all(2 * w.size());
  w.all_gather(mine, sizeof mine, all.data());
  for (int q = 0; q < w.size(); ++q) {
    EXPECT_EQ(all[2 * q], q);
    EXPECT_EQ(all[2 * q + 1], 10 * q);
  }
  w.barrier();
}

TEST(SamplesOfRank, ContiguousWholeBytesAndEven) {
  for (int64_t n : {0, 1, 3, 4, 6, 17, 1001, 1024, 99999})
    for (int ranks : {1, 2, 3, 4, 7, 64}) {
      int64_t next = 0, smallest = INT64_MAX, largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const sample_range s = samples_of_rank(n, r, ranks);
        EXPECT_EQ(s.first, next) << n << " " << ranks << " " << r;
        EXPECT_EQ(s.first % 4, 0);
        EXPECT_GE(s.count, 0);
        next = s.first + s.count;
        const int64_t whole = r + 1 == ranks ? s.count - n % 4 : s.count;  // the last takes the partial byte
        smallest = std::min(smallest, whole), largest = std::max(largest, whole);
      }
      EXPECT_EQ(next, n);
      EXPECT_LE(largest - smallest, 4) << n << " " << ranks;
    }
  EXPECT_THROW(samples_of_rank(10, 2, 2), std::exception);
}

}  // namespace
}  // namespace pmx
