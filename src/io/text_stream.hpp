// Lines of a text file that may be Zstd-compressed (plink2's .pvar.zst, written by
// `--make-pgen vzs`), read in large chunks: a .pvar of millions of lines is read without
// iostreams' per-line cost and without holding the file in memory.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pmx::io {

class text_stream {
 public:
  /// Opens `path` ("<what> file '<path>' cannot be opened" otherwise); a file that starts with the
  /// Zstd frame magic number is decompressed as it is read (a build without zstd refuses it).
  text_stream(const std::string& path, const std::string& what);
  ~text_stream();
  text_stream(const text_stream&) = delete;
  text_stream& operator=(const text_stream&) = delete;

  /// The next line without its "\n" or "\r\n" (valid until the next call); false at the end.
  /// Throws input_error naming the file when the Zstd stream is corrupt or cut short.
  bool next(std::string_view& line);
  int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  bool compressed() const { return zstd_ != nullptr; }

 private:
  // Appends the next chunk of text to buf_; false when the file is exhausted.
  bool fill();

  std::string path_;
  std::FILE* file_ = nullptr;
  struct zstd_state;
  std::unique_ptr<zstd_state> zstd_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;  // unread text in buf_
  int64_t line_number_ = 0;
  bool eof_ = false;
};

}  // namespace pmx::io
