// Pedigree algebra against independent oracles: pedigreemm's inbreeding of a real Holstein
// pedigree, the published H of Legarra et al. (2009), dense inverses of the tabular A (textbook,
// blue tit and simulated pedigrees), and every documented input error with its message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include "panoramix/error.hpp"
#include "panoramix/ops/dense_linalg.hpp"
#include "panoramix/pedigree.hpp"
#include "panoramix/single_step_h.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

std::string write_file(const test::temp_dir& dir, const std::string& name,
                       const std::string& text) {
  const std::string p = dir.path(name);
  std::ofstream(p) << text;
  return p;
}

// Message of the input_error that reading `text` as a pedigree throws ("" when none is thrown).
std::string read_error(const std::string& text) {
  test::temp_dir dir;
  const std::string p = write_file(dir, "bad.ped", text);
  try {
    read_pedigree_file(p);
  } catch (const input_error& e) {
    const std::string m = e.what();
    // Strip the directory so expectations can name "bad.ped:LINE".
    const auto at = m.find("bad.ped");
    return at == std::string::npos ? m : m.substr(at);
  }
  return {};
}

// Dense inverse of a symmetric positive definite n × n matrix by LAPACK's Cholesky solve.
std::vector<double> dense_inverse(std::vector<double> A, int64_t n) {
  std::vector<double> X(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) X[i * n + i] = 1.0;
  cholesky_solve(executor(backend::cpu, 1), n, A.data(), n, n, X.data(), n);
  return X;
}

// max |sparse A⁻¹ − dense inverse of the tabular A| over every entry, and inbreeding vs diag − 1.
void expect_ainv_matches_dense(const pedigree& ped, double tol) {
  const int64_t n = ped.size();
  const auto A = relationship_matrix(ped);
  for (auto method : {inbreeding_method::meuwissen_luo, inbreeding_method::colleau}) {
    const auto Fm = inbreeding(ped, 0, method);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(Fm[i], A[i * n + i] - 1.0, 1e-12)
          << "animal " << ped.id(i) << ", method " << static_cast<int>(method);
  }
  const auto F = inbreeding(ped);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_NEAR(F[i], A[i * n + i] - 1.0, 1e-12) << "animal " << ped.id(i);
  const auto Ainv = a_inverse(ped, F);
  const auto ref = dense_inverse(A, n);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) worst = std::max(worst, std::abs(Ainv.at(i, j) - ref[i * n + j]));
  EXPECT_LE(worst, tol) << "n = " << n;
  std::printf("    max |A^-1 - dense inverse| = %.2e over n = %lld animals\n", worst,
              static_cast<long long>(n));
  // The sparse structure holds the lower triangle only, columns sorted, no duplicates.
  for (int64_t r = 0; r < n; ++r)
    for (int64_t k = Ainv.row_start[r]; k < Ainv.row_start[r + 1]; ++k) {
      ASSERT_LE(Ainv.col[k], r);
      if (k > Ainv.row_start[r]) { ASSERT_LT(Ainv.col[k - 1], Ainv.col[k]); }
    }
}

// Random pedigree of n animals from `founders` founders, every later animal's parents drawn from
// the `window` animals before it (0 = all; males odd, females even), each parent unknown with
// probability `unknown`: a small window is a small population, heavily inbred. Records in random
// order when `shuffle`.
std::vector<pedigree_record> random_records(int64_t n, int64_t founders, int64_t window,
                                            double unknown, uint64_t seed, bool shuffle) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<pedigree_record> r(n);
  for (int64_t i = 0; i < n; ++i) {
    r[i].id = "x" + std::to_string(i);
    r[i].line = i + 1;
    if (i < founders) continue;
    auto pick = [&](int parity) {
      int64_t k;
      const int64_t lo = window > 0 ? std::max<int64_t>(0, i - window) : 0;
      do k = lo + static_cast<int64_t>(u(rng) * (i - lo));
      while (k % 2 != parity);
      return "x" + std::to_string(k);
    };
    if (u(rng) >= unknown) r[i].sire = pick(1);
    if (u(rng) >= unknown) r[i].dam = pick(0);
  }
  if (shuffle) {
    std::shuffle(r.begin(), r.end(), rng);
    for (int64_t i = 0; i < n; ++i) r[i].line = i + 1;
  }
  return r;
}

void expect_parents_first(const pedigree& ped) {
  for (int64_t i = 0; i < ped.size(); ++i) {
    EXPECT_LT(ped.sire(i), i);
    EXPECT_LT(ped.dam(i), i);
  }
}

// ---- real data: pedigreemm -------------------------------------------------------------------

TEST(Pedigree, InbreedingMatchesPedigreemmOnHolsteinCows) {
  PMX_REQUIRE_DATA(ped_file, "pedigreemm_milk/pedCowsR.csv");
  PMX_REQUIRE_DATA(ref_file, "pedigreemm_milk/pedCowsR_inbreeding_pedigreemm.csv");
  const pedigree ped = read_pedigree_file(ped_file);
  ASSERT_EQ(ped.size(), 6547);
  for (auto method : {inbreeding_method::automatic, inbreeding_method::meuwissen_luo,
                      inbreeding_method::colleau}) {
  SCOPED_TRACE(static_cast<int>(method));
  const auto F = inbreeding(ped, 0, method);
  std::ifstream in(ref_file);
  std::string line;
  std::getline(in, line);  // "id","F"
  int64_t compared = 0, inbred = 0;
  double worst = 0;
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    std::string id = line.substr(0, comma);
    id.erase(std::remove(id.begin(), id.end(), '"'), id.end());
    const double ref = std::stod(line.substr(comma + 1));
    worst = std::max(worst, std::abs(F[ped.index(id)] - ref));
    inbred += ref > 0;
    ++compared;
  }
  EXPECT_EQ(compared, 6547);
  EXPECT_GT(inbred, 0);
  EXPECT_LE(worst, 1e-10);
  std::printf("    max |F - pedigreemm| = %.2e over %lld cows (%lld inbred), method %d\n", worst,
              static_cast<long long>(compared), static_cast<long long>(inbred),
              static_cast<int>(method));
  }
}

// ---- Legarra, Aguilar & Misztal (2009): the published H ----------------------------------------

TEST(Pedigree, SingleStepHMatchesLegarra2009) {
  PMX_REQUIRE_DATA(ped_file, "pedigree_textbook/Legara2009_pedigree.txt");
  PMX_REQUIRE_DATA(g_file, "pedigree_textbook/Legara2009_G_matrix.txt");
  PMX_REQUIRE_DATA(h_file, "pedigree_textbook/Legara2009_H_matrix.txt");
  // 0-based parent indices, -1 unknown; row i is animal i.
  std::vector<int64_t> sire, dam;
  {
    std::ifstream in(ped_file);
    int64_t s, d;
    while (in >> s >> d) {
      sire.push_back(s);
      dam.push_back(d);
    }
  }
  const int64_t n = static_cast<int64_t>(sire.size());
  ASSERT_EQ(n, 17);
  auto read_matrix = [](const std::string& p) {
    std::ifstream in(p);
    std::vector<double> v;
    double x;
    while (in >> x) v.push_back(x);
    return v;
  };
  const auto G = read_matrix(g_file), published = read_matrix(h_file);
  ASSERT_EQ(G.size(), 16u);
  ASSERT_EQ(published.size(), static_cast<size_t>(n * n));
  const pedigree ped = pedigree::from_indices(sire, dam);
  const auto A = relationship_matrix(ped);
  const std::vector<int64_t> genotyped = {8, 9, 10, 11};  // rows 9-12 of the paper
  const auto H = single_step_h(executor(backend::cpu, 1), n, A, genotyped, G);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) worst = std::max(worst, std::abs(H[i * n + j] - published[i * n + j]));
  std::printf("    max |H - published H| = %.4f (printed to 2 decimals)\n", worst);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      // Printed with 2 decimals: the exact value lies within half a unit of the last digit.
      EXPECT_LE(std::abs(H[i * n + j] - published[i * n + j]), 0.005 + 1e-12)
          << "H(" << i + 1 << "," << j + 1 << ") = " << H[i * n + j];
  // H is symmetric and its genotyped block is G.
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) EXPECT_NEAR(H[i * n + j], H[j * n + i], 1e-12);
}

// ---- A⁻¹ against the dense inverse of the tabular A ------------------------------------------

TEST(Pedigree, AInverseMatchesDenseInverseOnTextbookPedigrees) {
  int tested = 0;
  for (const char* name : {"nadiv_Mrode2.csv", "nadiv_Mrode3.csv", "nadiv_Mrode9.csv",
                           "nadiv_FG90.csv", "nadiv_Wray90.csv", "nadiv_Q1988.csv",
                           "nadiv_F2009.csv"}) {
    const std::string p = test::data_file(std::string("pedigree_textbook/") + name);
    if (p.empty()) continue;
    SCOPED_TRACE(name);
    expect_ainv_matches_dense(read_pedigree_file(p), 1e-12);
    ++tested;
  }
  if (tested == 0) GTEST_SKIP() << "pedigree_textbook is absent";
}

TEST(Pedigree, MrodeTable21ValuesByHand) {
  PMX_REQUIRE_DATA(p, "pedigree_textbook/nadiv_Mrode2.csv");
  // Columns "id","dam","sire": the header swaps them. Mrode (2005) Table 2.1: animal 3 has
  // sire 1 and dam 2; F5 = F6 = 1/8; A⁻¹ diagonal of Example 2.3 (with inbreeding).
  const pedigree ped = read_pedigree_file(p);
  const int64_t a3 = ped.index("3");
  EXPECT_EQ(ped.id(ped.sire(a3)), "1");
  EXPECT_EQ(ped.id(ped.dam(a3)), "2");
  const auto F = inbreeding(ped);
  EXPECT_DOUBLE_EQ(F[ped.index("5")], 0.125);
  EXPECT_DOUBLE_EQ(F[ped.index("6")], 0.125);
  const auto Ainv = a_inverse(ped, F);
  const double diag[] = {1.0 + 5.0 / 6, 2.0 + 1.0 / 30, 2.5, 1.0 + 5.0 / 6, 2.5 + 1.0 / 30,
                         2.0 + 2.0 / 15};
  for (int k = 0; k < 6; ++k) {
    const int64_t i = ped.index(std::to_string(k + 1));
    EXPECT_NEAR(Ainv.at(i, i), diag[k], 1e-14) << "animal " << k + 1;
  }
  EXPECT_NEAR(Ainv.at(ped.index("6"), ped.index("5")), -16.0 / 15, 1e-14);
}

TEST(Pedigree, AInverseMatchesDenseInverseOnBlueTits) {
  PMX_REQUIRE_DATA(p, "mcmcglmm_bluetit/BTped.tab");
  const pedigree ped = read_pedigree_file(p);  // "animal dam sire", NA = unknown
  ASSERT_EQ(ped.size(), 1040);
  expect_ainv_matches_dense(ped, 1e-10);
}

TEST(Pedigree, AInverseMatchesDenseInverseOnRandomInbredPedigree) {
  const auto records = random_records(600, 12, 16, 0.1, 42, true);
  pedigree_notes notes;
  const pedigree ped = pedigree::from_records(records, "random", &notes);
  EXPECT_GT(notes.parents_listed_later, 0);
  expect_parents_first(ped);
  const auto F = inbreeding(ped);
  EXPECT_GT(*std::max_element(F.begin(), F.end()), 0.5);  // heavily inbred, as intended
  expect_ainv_matches_dense(ped, 1e-10);
}

// A⁻¹'s rows are merged on threads: the same CSR, bit for bit, for any thread count (and the
// dense inverse on the same pedigree above checks the values).
TEST(Pedigree, AInverseDoesNotDependOnThreads) {
  const pedigree ped = pedigree::from_records(random_records(20000, 60, 16, 0.1, 9, true), "random");
  const auto F = inbreeding(ped);
  const sparse_symmetric one = a_inverse(ped, F, 1);
  for (int threads : {2, 5}) {
    const sparse_symmetric many = a_inverse(ped, F, threads);
    EXPECT_EQ(many.row_start, one.row_start) << threads;
    EXPECT_EQ(many.col, one.col) << threads;
    EXPECT_EQ(many.value, one.value) << threads;
  }
  EXPECT_GT(one.nonzeros(), ped.size());
}

TEST(Pedigree, InbreedingDoesNotDependOnThreadsOrRecordOrder) {
  const auto sorted = random_records(3000, 40, 0, 0.05, 7, false);
  auto shuffled = sorted;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(3));
  const pedigree a = pedigree::from_records(sorted, "sorted");
  const pedigree b = pedigree::from_records(shuffled, "shuffled");
  // Sorted input keeps its order (stable renumbering).
  for (int64_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.id(i), sorted[i].id);
  expect_parents_first(b);
  const auto A = relationship_matrix(a);
  for (auto method : {inbreeding_method::automatic, inbreeding_method::meuwissen_luo,
                      inbreeding_method::colleau}) {
    SCOPED_TRACE(static_cast<int>(method));
    const auto Fa = inbreeding(a, 1, method), Fa4 = inbreeding(a, 4, method),
               Fb = inbreeding(b, 3, method);
    EXPECT_EQ(Fa, Fa4);  // the thread count changes nothing
    for (int64_t i = 0; i < a.size(); ++i) {
      ASSERT_NEAR(Fa[i], Fb[b.index(a.id(i))], 1e-14) << a.id(i);
      ASSERT_NEAR(Fa[i], A[i * a.size() + i] - 1.0, 1e-12) << a.id(i);
    }
  }
}

// Deep pedigrees, where Colleau's method on the sire's and mates' ancestors replaced the
// per-family tracing: every method against the diagonal of the tabular A.
void expect_inbreeding_matches_tabular(const pedigree& ped) {
  const int64_t n = ped.size();
  const auto A = relationship_matrix(ped);
  for (auto method : {inbreeding_method::automatic, inbreeding_method::meuwissen_luo,
                      inbreeding_method::colleau}) {
    for (int threads : {1, 3}) {
      const auto F = inbreeding(ped, threads, method);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_NEAR(F[i], A[i * n + i] - 1.0, 1e-12)
            << "animal " << i << ", method " << static_cast<int>(method) << ", " << threads
            << " threads";
    }
  }
}

TEST(Pedigree, InbreedingOfDeepPedigreesAndMatingsWithAncestors) {
  {
    // 60 generations of 24 animals (12 sires, 12 dams), parents from the previous generation,
    // now and then a dam from two generations back: depth 60, F up to ~0.65.
    std::mt19937_64 rng(4);
    const int64_t per = 24, gens = 60;
    std::vector<int64_t> sire(per * gens, -1), dam(per * gens, -1);
    for (int64_t g = 1; g < gens; ++g)
      for (int64_t a = 0; a < per; ++a) {
        const int64_t i = g * per + a;
        const int64_t back = (g >= 2 && rng() % 5 == 0) ? 2 : 1;
        sire[i] = (g - 1) * per + 2 * static_cast<int64_t>(rng() % (per / 2)) + 1;
        dam[i] = (g - back) * per + 2 * static_cast<int64_t>(rng() % (per / 2));
        if (rng() % 50 == 0) dam[i] = -1;
      }
    const pedigree ped = pedigree::from_indices(sire, dam);
    const auto F = inbreeding(ped);
    EXPECT_GT(*std::max_element(F.begin(), F.end()), 0.5);
    expect_inbreeding_matches_tabular(ped);
  }
  {
    // One sire line mated back to its own dam, daughters and granddaughters (mates among the
    // sire's ancestors and descendants), and a chain of depth 300 (depth ≈ animals).
    std::vector<int64_t> sire = {-1, -1}, dam = {-1, -1};
    auto add = [&](int64_t s, int64_t d) {
      sire.push_back(s);
      dam.push_back(d);
      return static_cast<int64_t>(sire.size()) - 1;
    };
    int64_t s = add(0, 1), d = 1;  // s: son of 0 and 1
    for (int g = 0; g < 300; ++g) {
      const int64_t daughter = add(s, d);  // s × its dam (g = 0), then × its daughter
      const int64_t son = add(s, daughter);
      add(son, d);  // the son × his grandmother
      d = daughter;
      s = son;
    }
    expect_inbreeding_matches_tabular(pedigree::from_indices(sire, dam));
  }
}

TEST(Pedigree, RelationshipMatrixOfSubsetIsTheSubmatrix) {
  const pedigree ped = pedigree::from_records(random_records(200, 10, 30, 0.1, 5, false), "r");
  const auto A = relationship_matrix(ped);
  const std::vector<int64_t> subset = {150, 3, 199, 77};
  const auto S = relationship_matrix(ped, subset);
  for (size_t a = 0; a < subset.size(); ++a)
    for (size_t b = 0; b < subset.size(); ++b)
      EXPECT_EQ(S[a * subset.size() + b], A[subset[a] * 200 + subset[b]]);
}

// ---- reading and checks ---------------------------------------------------------------------

TEST(PedigreeFile, FormatsOfTheSharedData) {
  // Quoted CSV with a dam-first header, whitespace with NA, extra columns, par1/par2 headers.
  test::temp_dir dir;
  const auto a = read_pedigree_file(write_file(dir, "a.csv",
                                               "\"id\",\"dam\",\"sire\",\"sex\"\n"
                                               "\"s\",0,0,1\n\"d\",0,0,2\n\"k\",\"d\",\"s\",1\n"));
  EXPECT_EQ(a.id(a.sire(a.index("k"))), "s");
  EXPECT_EQ(a.id(a.dam(a.index("k"))), "d");
  const auto b = read_pedigree_file(write_file(dir, "b.tab", "animal dam sire\nk d s\nd NA NA\n"));
  EXPECT_EQ(b.id(b.sire(b.index("k"))), "s");
  EXPECT_EQ(b.id(b.dam(b.index("k"))), "d");
  EXPECT_EQ(b.sire(b.index("d")), pedigree::unknown);
  const auto c = read_pedigree_file(write_file(dir, "c.txt", "# comment\nk s d\n\ns 0 0\nd . *\n"));
  EXPECT_EQ(c.id(c.sire(c.index("k"))), "s");
  EXPECT_EQ(c.size(), 3);
  const auto d = read_pedigree_file(write_file(dir, "d.csv", "ID,Par1,Par2,gener\nk,s,,1\n"));
  EXPECT_EQ(d.id(d.sire(d.index("k"))), "s");
  EXPECT_EQ(d.dam(d.index("k")), pedigree::unknown);
  const auto e = read_pedigree_file(write_file(dir, "e.txt", "k d s\n"), pedigree_columns::dam_sire);
  EXPECT_EQ(e.id(e.sire(e.index("k"))), "s");
  for (const char* f : {"synbreed_cattle/cattle_pedigree.csv", "pedigreemm_milk/pedCows.csv",
                        "pedigreemm_milk/pedSires.csv"}) {
    const std::string p = test::data_file(f);
    if (!p.empty()) { EXPECT_NO_THROW(expect_parents_first(read_pedigree_file(p))) << f; }
  }
}

TEST(PedigreeFile, ParentsListedLaterAreRenumberedFirst) {
  test::temp_dir dir;
  pedigree_notes notes;
  const auto p = read_pedigree_file(write_file(dir, "p.txt", "c a b\na 0 0\nb 0 0\n"),
                                    pedigree_columns::automatic, &notes);
  expect_parents_first(p);
  EXPECT_EQ(p.ids(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(notes.parents_listed_later, 1);
  EXPECT_EQ(p.line(p.index("c")), 1);
}

TEST(PedigreeFile, UnlistedParentsAreAddedAsFounders) {
  test::temp_dir dir;
  pedigree_notes notes;
  const auto p = read_pedigree_file(write_file(dir, "p.txt", "c a b\nd a 0\n"),
                                    pedigree_columns::automatic, &notes);
  EXPECT_EQ(p.size(), 4);
  EXPECT_EQ(notes.added_founders, 2);
  ASSERT_FALSE(notes.lines.empty());
  EXPECT_NE(notes.lines[0].find("parent 'a' is not listed as an animal: added as a founder"),
            std::string::npos)
      << notes.lines[0];
  EXPECT_EQ(p.sire(p.index("a")), pedigree::unknown);
  expect_parents_first(p);
}

TEST(PedigreeFile, IdenticalDuplicatesAreMergedWithANote) {
  test::temp_dir dir;
  pedigree_notes notes;
  const auto p = read_pedigree_file(write_file(dir, "p.txt", "a 0 0\nb 0 0\nc a b\nc a b\n"),
                                    pedigree_columns::automatic, &notes);
  EXPECT_EQ(p.size(), 3);
  EXPECT_EQ(notes.merged_duplicates, 1);
  EXPECT_NE(notes.lines.at(0).find(":4: duplicate record of 'c' (same as line 3) merged"),
            std::string::npos)
      << notes.lines[0];
}

TEST(PedigreeFile, ErrorsNameFileLineAndProblem) {
  EXPECT_EQ(read_error("a 0 0\nb a 0\nc a b\nc b a\n"),
            "bad.ped:4: animal 'c' listed again with other parents (sire 'b', dam 'a'; line 3 has "
            "sire 'a', dam 'b')");
  EXPECT_EQ(read_error("a 0 0\nb a a\n"), "bad.ped:2: 'a' is both sire and dam of 'b'");
  EXPECT_EQ(read_error("a 0 0\nb 0 0\nc a b\nd b a\n"),
            "bad.ped:4: 'b' is the sire of 'd' but the dam of an animal at line 3 (a parent must "
            "be either sire or dam)");
  EXPECT_EQ(read_error("a a 0\n"), "bad.ped:1: animal 'a' is its own sire");
  EXPECT_EQ(read_error("a 0 a\n"), "bad.ped:1: animal 'a' is its own dam");
  // Own ancestor through two and three generations (cycles).
  EXPECT_EQ(read_error("a b 0\nb a 0\n"),
            "bad.ped:1: animal 'a' is its own ancestor (cycle, each animal followed by one of its "
            "parents: 'a' -> 'b' -> 'a')");
  EXPECT_EQ(read_error("x 0 0\na 0 c\nb a 0\nc 0 b\n"),
            "bad.ped:2: animal 'a' is its own ancestor (cycle, each animal followed by one of its "
            "parents: 'a' -> 'c' -> 'b' -> 'a')");
  EXPECT_EQ(read_error("a 0 0\nb a\n"), "bad.ped:2: expected animal, sire and dam (3 fields), found 2");
  EXPECT_EQ(read_error("0 a b\n"),
            "bad.ped:1: animal ID '0' is empty or a code of an unknown parent");
  test::temp_dir dir;
  EXPECT_THROW(read_pedigree_file(write_file(dir, "empty.ped", "# nothing\n")), input_error);
  EXPECT_THROW(read_pedigree_file(dir.path("missing.ped")), input_error);
}

// ---- the command line ------------------------------------------------------------------------

std::vector<std::vector<std::string>> read_table(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::vector<std::string> f;
    std::string x;
    while (ss >> x) f.push_back(x);
    rows.push_back(f);
  }
  return rows;
}

TEST(PedigreeCli, WritesIdsInbreedingAndAInverse) {
  test::temp_dir dir;
  // Shuffled Mrode Table 2.1 with a parent listed late and an unlisted founder "0x".
  const std::string ped = write_file(dir, "m.ped",
                                     "animal sire dam\n6 5 2\n5 4 3\n3 1 2\n4 1 0\n1 0 0\n2 0 0\n"
                                     "7 5 0x\n");
  ASSERT_EQ(test::panoramix("pedigree --ped " + ped + " --out " + dir.path("m") + " --ainv",
                            dir.path("run.txt")),
            0)
      << test::read_text(dir.path("run.txt"));
  const pedigree lib = read_pedigree_file(ped);
  const auto F = inbreeding(lib);
  const auto Ainv = a_inverse(lib, F);
  const auto ids = read_table(dir.path("m.ids"));
  ASSERT_EQ(static_cast<int64_t>(ids.size()), lib.size());
  for (int64_t i = 0; i < lib.size(); ++i) {
    EXPECT_EQ(ids[i][0], std::to_string(i + 1));
    EXPECT_EQ(ids[i][1], lib.id(i));
    EXPECT_EQ(ids[i][2], lib.sire(i) < 0 ? "0" : lib.id(lib.sire(i)));
  }
  const auto fin = read_table(dir.path("m.inbreeding"));
  ASSERT_EQ(static_cast<int64_t>(fin.size()), lib.size());
  for (int64_t i = 0; i < lib.size(); ++i) EXPECT_EQ(std::stod(fin[i][2]), F[i]);
  const auto trip = read_table(dir.path("m.ainv"));
  ASSERT_EQ(static_cast<int64_t>(trip.size()), Ainv.nonzeros());
  for (const auto& t : trip) {
    const int64_t r = std::stoll(t[0]) - 1, c = std::stoll(t[1]) - 1;
    EXPECT_GE(r, c);
    EXPECT_EQ(std::stod(t[2]), Ainv.at(r, c));  // shortest round-trip text: exact
  }
  const std::string log = test::read_text(dir.path("m.log"));
  EXPECT_NE(log.find("parent '0x' is not listed as an animal: added as a founder"), std::string::npos);
  EXPECT_NE(log.find("records with a parent listed after them"), std::string::npos);
}

TEST(PedigreeCli, ErrorExitsNonZeroAndLeavesNoOutputs) {
  test::temp_dir dir;
  const std::string ped = write_file(dir, "c.ped", "a b 0\nb c 0\nc a 0\n");
  EXPECT_NE(test::panoramix("pedigree --ped " + ped + " --out " + dir.path("c") + " --ainv",
                            dir.path("run.txt")),
            0);
  const std::string log = test::read_text(dir.path("c.log"));
  EXPECT_NE(log.find("c.ped:1: animal 'a' is its own ancestor"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(dir.path("c.ids")));
  EXPECT_FALSE(std::filesystem::exists(dir.path("c.ainv")));
}

}  // namespace
}  // namespace pmx
