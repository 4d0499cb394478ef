#include "core/checked_number.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "panoramix/error.hpp"

namespace pmx::detail {

bool number_range::contains(double v) const {
  if (!std::isfinite(v)) return false;
  if (lo_open ? !(v > lo) : !(v >= lo)) return false;
  if (hi_open ? !(v < hi) : !(v <= hi)) return false;
  return true;
}

std::string number_for_message(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[40];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

std::string number_range::describe() const {
  const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
  if (has_lo && has_hi)
    return "a finite number in " + std::string(lo_open ? "(" : "[") + number_for_message(lo) + ", " +
           number_for_message(hi) + (hi_open ? ")" : "]");
  if (has_lo) return std::string("a finite number ") + (lo_open ? "> " : ">= ") + number_for_message(lo);
  if (has_hi) return std::string("a finite number ") + (hi_open ? "< " : "<= ") + number_for_message(hi);
  return "a finite number";
}

void require_number(double v, const std::string& what, const number_range& range) {
  if (!range.contains(v))
    throw input_error(what + " must be " + range.describe() + " (got " + number_for_message(v) + ")");
}

void require_integer(int64_t v, const std::string& what, int64_t lo, int64_t hi) {
  if (v >= lo && v <= hi) return;
  const std::string range = hi == std::numeric_limits<int64_t>::max()
                                ? "at least " + std::to_string(lo)
                                : "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  throw input_error(what + " must be " + range + " (got " + std::to_string(v) + ")");
}

number_text_status parse_number_text(std::string_view field, double& out) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  // strtod reads what PLINK-style files hold (decimal, exponent, "nan", "inf"); the field is
  // copied so that the number ends where the field does. Leading blanks are not a number here.
  if (field.empty() || field.front() == ' ' || field.front() == '\t' || field.front() == '+')
    return number_text_status::not_a_number;
  const std::string text(field);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return number_text_status::not_a_number;
  if (!std::isfinite(v)) return number_text_status::not_finite;  // nan, inf, and overflow (±HUGE_VAL)
  out = v;  // ERANGE with a finite result is an underflow: 0 or a subnormal, kept
  return number_text_status::ok;
}

}  // namespace pmx::detail
