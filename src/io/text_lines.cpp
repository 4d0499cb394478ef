#include "io/text_lines.hpp"

#include <cctype>

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

namespace {
std::string_view trim_unquote(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}
}  // namespace

void split_fields(std::string_view s, std::vector<std::string_view>& out) {
  out.clear();
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  if (s.find(',') != std::string_view::npos) {
    size_t start = 0;
    for (;;) {
      const size_t comma = s.find(',', start);
      out.push_back(trim_unquote(s.substr(start, comma == s.npos ? s.npos : comma - start)));
      if (comma == s.npos) break;
      start = comma + 1;
    }
    return;
  }
  split_whitespace(s, out);
  for (auto& f : out) f = trim_unquote(f);
}

void refuse_stray_quote(const text_lines& in, const std::vector<std::string_view>& fields) {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].find('"') != std::string_view::npos)
      in.fail("field " + std::to_string(i + 1) + " ('" + std::string(fields[i]) +
              "') has an unbalanced double quote (a quote must enclose a whole field)");
}

}  // namespace pmx::io
