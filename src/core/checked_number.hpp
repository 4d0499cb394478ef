// Numbers from the user, checked at the edge (options and the numeric fields of input files): one
// place that says what "a finite number in its range" means and how a refusal reads, so that a
// NaN, an infinity or an out-of-range value never reaches a computation (where a NaN can make an
// iteration run forever and a wrong sign gives a result without a word).
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace pmx::detail {

/// An interval of allowed values; the ends are included unless marked open. An infinite end
/// means "no bound on that side" (the value itself must still be finite).
struct number_range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;

  static number_range at_least(double lo) { return {lo, std::numeric_limits<double>::infinity(), false, false}; }
  static number_range above(double lo) { return {lo, std::numeric_limits<double>::infinity(), true, false}; }
  static number_range closed(double lo, double hi) { return {lo, hi, false, false}; }
  static number_range half_open(double lo, double hi) { return {lo, hi, false, true}; }
  static number_range open(double lo, double hi) { return {lo, hi, true, true}; }
  static number_range any() { return {}; }

  bool contains(double v) const;
  /// "a finite number in [0, 1)", "a finite number > 0", "a finite number".
  std::string describe() const;
};

/// Throws input_error "<what> must be <range.describe()> (got <v>)" unless v is finite and in
/// range. `what` names the option ("--h2") or the place in a file ("vc.txt:3: genetic matrix").
void require_number(double v, const std::string& what, const number_range& range);

/// The same for integer options: "<what> must be in [lo, hi] (got v)" ("must be at least lo"
/// when hi is the type's maximum).
void require_integer(int64_t v, const std::string& what, int64_t lo,
                     int64_t hi = std::numeric_limits<int64_t>::max());

/// How a text field reads as a number.
enum class number_text_status {
  ok,            ///< a finite double (an underflow gives 0 or a subnormal, as strtod does)
  not_a_number,  ///< not a number at all ("abc", "1.5x", empty)
  not_finite,    ///< nan, inf, infinity (any case, any sign) or a value beyond ±1.8e308 ("1e999")
};

/// Parses the whole of `field` (an optional leading '+' allowed) as a double.
number_text_status parse_number_text(std::string_view field, double& out);

/// The value of a numeric option as text for messages: "nan", "inf", "-1", "0.25", "1e+300".
std::string number_for_message(double v);

}  // namespace pmx::detail
