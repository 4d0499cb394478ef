#include "io/text_lines.hpp"

#include "panoramix/error.hpp"

namespace pmx::io {

text_lines::text_lines(const std::string& path, const std::string& what) : path_(path) {
  in_.open(path);
  if (!in_) throw input_error(what + " file '" + path + "' cannot be opened");
}

bool text_lines::next() {
  if (!std::getline(in_, line_)) {
    if (in_.bad()) throw io_error("read error in '" + path_ + "'");
    return false;
  }
  ++line_number_;
  split_whitespace(line_, fields_);
  return true;
}

void text_lines::fail(const std::string& message) const {
  throw input_error(path_ + ":" + std::to_string(line_number_) + ": " + message);
}

void split_whitespace(std::string_view s, std::vector<std::string_view>& out) {
  out.clear();
  size_t i = 0, n = s.size();
  while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == '\n')) --n;
  while (i < n) {
    while (i < n && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < n && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
}

}  // namespace pmx::io
