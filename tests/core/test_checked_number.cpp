// The one rule for numbers from the user (core/checked_number.hpp): which texts read as finite
// numbers, which ranges admit which values, and the exact wording of a refusal (option or place,
// range, value as given).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/checked_number.hpp"
#include "panoramix/error.hpp"

namespace pmx::detail {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
const double nan = std::numeric_limits<double>::quiet_NaN();

std::string refusal(double v, const std::string& what, const number_range& r) {
  try {
    require_number(v, what, r);
  } catch (const input_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(CheckedNumber, TextThatReadsAsFiniteNumbers) {
  const std::pair<const char*, double> good[] = {
      {"0", 0.0},      {"-0", -0.0},        {"+2.5", 2.5},   {"1e3", 1000.0}, {"-7.25e-2", -0.0725},
      {"1e308", 1e308}, {"-1.7e308", -1.7e308}, {"1e-400", 0.0}, {".5", 0.5},     {"3.", 3.0}};
  for (const auto& [text, want] : good) {
    double v = -99;
    EXPECT_EQ(parse_number_text(text, v), number_text_status::ok) << text;
    EXPECT_EQ(v, want) << text;
  }
  // Underflow keeps the value strtod gives (0 or a subnormal), not an error.
  double tiny = -1;
  EXPECT_EQ(parse_number_text("4e-320", tiny), number_text_status::ok);
  EXPECT_GT(tiny, 0.0);
  EXPECT_LT(tiny, std::numeric_limits<double>::min());
}

TEST(CheckedNumber, TextThatIsNotFinite) {
  for (const char* text : {"nan", "NaN", "-nan", "inf", "-inf", "+inf", "Infinity", "INF", "1e999", "-1e999",
                           "1.8e308", "+1e400"}) {
    double v = 42;
    EXPECT_EQ(parse_number_text(text, v), number_text_status::not_finite) << text;
    EXPECT_EQ(v, 42) << text << ": the output is left alone";
  }
}

TEST(CheckedNumber, TextThatIsNotANumber) {
  for (const char* text : {"", "+", "abc", "1.5x", "1,5", " 1", "1 ", "++1", "--1", "e5", "0.5abc", "nanx"}) {
    double v = 42;
    EXPECT_EQ(parse_number_text(text, v), number_text_status::not_a_number) << "'" << text << "'";
  }
}

TEST(CheckedNumber, RangesAndMessages) {
  const auto unit = number_range::half_open(0, 1);
  EXPECT_EQ(refusal(0.0, "--h2", unit), "accepted");
  EXPECT_EQ(refusal(0.999, "--h2", unit), "accepted");
  EXPECT_EQ(refusal(1.0, "--h2", unit), "--h2 must be a finite number in [0, 1) (got 1)");
  EXPECT_EQ(refusal(-0.1, "--h2", unit), "--h2 must be a finite number in [0, 1) (got -0.1)");
  EXPECT_EQ(refusal(nan, "--h2", unit), "--h2 must be a finite number in [0, 1) (got nan)");
  EXPECT_EQ(refusal(inf, "--h2", unit), "--h2 must be a finite number in [0, 1) (got inf)");
  EXPECT_EQ(refusal(-inf, "--h2", unit), "--h2 must be a finite number in [0, 1) (got -inf)");
  EXPECT_EQ(refusal(0.0, "--tol", number_range::above(0)), "--tol must be a finite number > 0 (got 0)");
  EXPECT_EQ(refusal(1e300, "--tol", number_range::above(0)), "accepted");
  EXPECT_EQ(refusal(inf, "--tol", number_range::above(0)), "--tol must be a finite number > 0 (got inf)");
  EXPECT_EQ(refusal(0.0, "--kb", number_range::at_least(0)), "accepted");
  EXPECT_EQ(refusal(-1e-300, "--kb", number_range::at_least(0)), "--kb must be a finite number >= 0 (got -1e-300)");
  EXPECT_EQ(refusal(1.0, "--w", number_range::closed(0, 1)), "accepted");
  EXPECT_EQ(refusal(1.5, "--w", number_range::closed(0, 1)), "--w must be a finite number in [0, 1] (got 1.5)");
  EXPECT_EQ(refusal(0.0, "--w", number_range::open(0, 1)), "--w must be a finite number in (0, 1) (got 0)");
  EXPECT_EQ(refusal(-5.0, "x", number_range::any()), "accepted");
  EXPECT_EQ(refusal(nan, "x", number_range::any()), "x must be a finite number (got nan)");
}

TEST(CheckedNumber, IntegerRanges) {
  EXPECT_NO_THROW(require_integer(1, "--pcs", 1));
  EXPECT_NO_THROW(require_integer(95, "--chr-set", 0, 95));
  try {
    require_integer(0, "--pcs", 1);
    ADD_FAILURE() << "accepted";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "--pcs must be at least 1 (got 0)");
  }
  try {
    require_integer(-1, "--threads", 0, 4096);
    ADD_FAILURE() << "accepted";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "--threads must be in [0, 4096] (got -1)");
  }
}

}  // namespace
}  // namespace pmx::detail
