// A GRM checked before a mixed model uses it (check_grm_for_model, issue #29): non-finite and
// all-zero matrices refused naming the entry; an indefinite G refused with its smallest eigenvalue
// and failing leading minor (or noted, for a G computed from genotypes); the repairs against
// their closed forms: G + X·I entry by entry, and bending against Q max(Λ, floor)·s Qᵀ built from
// the same eigenvectors (test::matrix_with_spectrum draws Q from the seed alone).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "panoramix/error.hpp"
#include "panoramix/grm_check.hpp"
#include "test_support.hpp"

namespace pmx {
namespace {

struct labelled {
  std::vector<std::string> fid, iid;
  explicit labelled(int64_t n) {
    for (int64_t i = 0; i < n; ++i) fid.push_back("F" + std::to_string(i)), iid.push_back("I" + std::to_string(i));
  }
};

std::string refusal(std::vector<double> G, int64_t n, const grm_repair_options& repair = {}) {
  const labelled ids(n);
  try {
    check_grm_for_model(executor(backend::cpu, 1), n, G.data(), ids.fid, ids.iid, repair, "test G");
  } catch (const input_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(GrmCheck, PositiveSemiDefiniteIsAcceptedUnchanged) {
  // Singular (rank 3 of 6, as a GRM of fewer variants than samples): accepted.
  const std::vector<double> lambda{3, 2, 1, 0, 0, 0};
  std::vector<double> G = test::matrix_with_spectrum(lambda, 4);
  const std::vector<double> before = G;
  const labelled ids(6);
  const auto notes = check_grm_for_model(executor(backend::cpu, 1), 6, G.data(), ids.fid, ids.iid, {}, "test G");
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(G, before);
}

TEST(GrmCheck, NonFiniteAndAllZeroAreNamed) {
  const int64_t n = 4;
  std::vector<double> G(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) G[i * n + i] = 1;
  for (const auto& [v, text] : std::vector<std::pair<double, std::string>>{
           {std::nan(""), "nan"}, {std::numeric_limits<double>::infinity(), "inf"},
           {-std::numeric_limits<double>::infinity(), "-inf"}}) {
    std::vector<double> bad = G;
    bad[2 * n + 1] = bad[1 * n + 2] = v;
    EXPECT_EQ(refusal(bad, n), "test G: entry (row 3, column 2) is " + text +
                                   " (sample 'F2 I2'): a GRM must hold finite numbers");
  }
  EXPECT_EQ(refusal(std::vector<double>(n * n, 0.0), n),
            "test G: every entry of the 4 x 4 GRM is 0: it carries no relationship to fit");
  // A repair does not make an all-zero G acceptable.
  EXPECT_EQ(refusal(std::vector<double>(n * n, 0.0), n, {.bend = false, .add_diagonal = 1.0}),
            "test G: every entry of the 4 x 4 GRM is 0: it carries no relationship to fit");
}

TEST(GrmCheck, IndefiniteIsRefusedWithItsSmallestEigenvalue) {
  const std::vector<double> lambda{2.5, 1.25, 1, 0.5, -0.375};
  const std::string said = refusal(test::matrix_with_spectrum(lambda, 7), 5);
  EXPECT_NE(said.find("test G: G is not positive semi-definite: its smallest eigenvalue is -0.375 (largest 2.5)"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("leading minor of order"), std::string::npos) << said;
  EXPECT_NE(said.find("--grm-bend"), std::string::npos) << said;
  // A negative mean diagonal is refused before any factorisation.
  EXPECT_NE(refusal(test::matrix_with_spectrum({-1, -2, 0.5}, 3), 3)
                .find("test G: G is not positive semi-definite: the mean of its diagonal is -0.8333333333"),
            std::string::npos);
}

TEST(GrmCheck, IndefiniteComputedGIsNoted) {
  const std::vector<double> lambda{2.5, 1.25, 1, 0.5, -0.375};
  std::vector<double> G = test::matrix_with_spectrum(lambda, 7);
  const std::vector<double> before = G;
  const labelled ids(5);
  const auto notes = check_grm_for_model(executor(backend::cpu, 1), 5, G.data(), ids.fid, ids.iid, {}, "G computed",
                                         grm_indefinite::note);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("Note: G computed: G is not positive semi-definite: its smallest eigenvalue is -0.375", 0), 0u)
      << notes[0];
  EXPECT_EQ(G, before);
}

TEST(GrmCheck, AddedDiagonalIsExactAndCheckedAfter) {
  const std::vector<double> lambda{2.5, 1.25, 1, 0.5, -0.375};
  const std::vector<double> G0 = test::matrix_with_spectrum(lambda, 7);
  // 0.5 lifts every eigenvalue by 0.5: the smallest becomes 0.125 > 0.
  std::vector<double> G = G0;
  const labelled ids(5);
  const auto notes = check_grm_for_model(executor(backend::cpu, 1), 5, G.data(), ids.fid, ids.iid,
                                         {.bend = false, .add_diagonal = 0.5}, "test G");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "--grm-add-diagonal: 0.5 added to each of the 5 diagonal entries of G");
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(G[i * 5 + j], G0[i * 5 + j] + (i == j ? 0.5 : 0.0));
  // 0.25 leaves -0.125: still refused, saying the repair was applied.
  const std::string said = refusal(G0, 5, {.bend = false, .add_diagonal = 0.25});
  EXPECT_NE(said.find("test G: G (after the repair asked for) is not positive semi-definite: its smallest eigenvalue "
                      "is -0.125"),
            std::string::npos)
      << said;
  EXPECT_EQ(refusal(G0, 5, {.bend = false, .add_diagonal = -1.0}), "--grm-add-diagonal must be a finite number > 0 (got -1)");
  EXPECT_EQ(refusal(G0, 5, {.bend = true, .add_diagonal = 1.0}), "give at most one of --grm-bend and --grm-add-diagonal");
}

TEST(GrmCheck, BendingMatchesItsClosedForm) {
  const std::vector<double> lambda{3.5, 2, 1.25, 0.75, 0.25, -0.125, -0.5};
  const int64_t n = static_cast<int64_t>(lambda.size());
  std::vector<double> G = test::matrix_with_spectrum(lambda, 11);
  // Expected: eigenvalues below 1e-4 × mean raised to it, all scaled to keep the trace, same Q.
  const double trace = std::accumulate(lambda.begin(), lambda.end(), 0.0);
  const double floor = 1e-4 * trace / static_cast<double>(n);
  std::vector<double> bent(lambda);
  double bent_trace = 0;
  for (double& l : bent) l = std::max(l, floor), bent_trace += l;
  for (double& l : bent) l *= trace / bent_trace;
  const std::vector<double> want = test::matrix_with_spectrum(bent, 11);
  const labelled ids(n);
  const auto notes =
      check_grm_for_model(executor(backend::cpu, 1), n, G.data(), ids.fid, ids.iid, {.bend = true, .add_diagonal = std::nullopt}, "test G");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("--grm-bend: 2 of 7 eigenvalues of G below 0.0001017857143 (1e-4 x the mean eigenvalue; the "
                           "smallest was -0.5) raised to it, then all scaled by ",
                           0),
            0u)
      << notes[0];
  double worst = 0, diag = 0;
  for (int64_t i = 0; i < n * n; ++i) worst = std::max(worst, std::fabs(G[i] - want[i]));
  for (int64_t i = 0; i < n; ++i) diag += G[i * n + i];
  EXPECT_LE(worst, 1e-13);
  EXPECT_NEAR(diag, trace, 1e-13);
  // A G with nothing to bend is left alone.
  std::vector<double> psd = test::matrix_with_spectrum({2, 1, 0.5}, 2);
  const std::vector<double> psd0 = psd;
  const labelled three(3);
  const auto same =
      check_grm_for_model(executor(backend::cpu, 1), 3, psd.data(), three.fid, three.iid, {.bend = true, .add_diagonal = std::nullopt}, "test G");
  ASSERT_EQ(same.size(), 1u);
  EXPECT_NE(same[0].find("G unchanged"), std::string::npos);
  EXPECT_EQ(psd, psd0);
}

}  // namespace
}  // namespace pmx
