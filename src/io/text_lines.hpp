// Line-by-line reading of whitespace-separated text files with file:line error context.
#pragma once
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace pmx::io {

class text_lines {
 public:
  /// Opens `path`; throws input_error "<what> file '<path>' cannot be opened" if it cannot.
  text_lines(const std::string& path, const std::string& what);

  /// Reads the next line and splits it into fields; false at end of file.
  bool next();
  const std::vector<std::string_view>& fields() const { return fields_; }
  const std::string& line() const { return line_; }
  int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

  /// Throws input_error "<path>:<line>: <message>".
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::string path_;
  std::ifstream in_;
  std::string line_;
  std::vector<std::string_view> fields_;
  int64_t line_number_ = 0;
};

/// Splits on spaces and tabs (and a trailing '\r').
void split_whitespace(std::string_view s, std::vector<std::string_view>& out);

/// Comma-separated when the line has a comma (empty fields kept: "a,,b" has three fields), else
/// whitespace-separated; fields are trimmed and surrounding double quotes removed either way
/// (pedigree and record files, which come from spreadsheets as often as from PLINK-style tools).
void split_fields(std::string_view line, std::vector<std::string_view>& out);

/// Fails (in.fail: "<path>:<line>: field k ('\"a12') has an unbalanced double quote ...") when a
/// field of split_fields' output still holds a double quote (an unbalanced quote such as `"a12`,
/// or a quoted field with a blank inside it): the quote must not end up inside an ID.
void refuse_stray_quote(const text_lines& in, const std::vector<std::string_view>& fields);

}  // namespace pmx::io
