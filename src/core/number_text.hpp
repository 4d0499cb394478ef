// Numbers as text for logs and result files: printf's %.<digits>g, a NaN as `nan_text` when given
// (result files print "NA" where a value does not exist).
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace pmx::detail {

inline std::string number_text(double v, int digits = 17, const char* nan_text = nullptr) {
  if (nan_text && std::isnan(v)) return nan_text;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace pmx::detail
