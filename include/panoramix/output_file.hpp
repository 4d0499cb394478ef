// Output files that never look complete when they are not: data goes to "<path>.tmp.<pid>" and is
// renamed to <path> by commit(). A file destroyed without commit() is removed.
#pragma once
#include <cstdint>
#include <memory>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pmx {

class output_file {
 public:
  /// Opens the temporary file; throws io_error naming the path if it cannot be created.
  explicit output_file(const std::string& path);
  ~output_file();
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  void write(const void* data, size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  /// Appends pieces of sizes[p] bytes, piece p made by fill(p, buffer) into a buffer of that size,
  /// on `threads` threads, each written at its place with pwrite: one FILE stream writes about
  /// 1.3 GB/s into the page cache, threads together several times that (large binary matrices).
  void write_pieces(const std::vector<size_t>& sizes, int threads,
                    const std::function<void(size_t piece, char* buffer)>& fill);
  /// Appends `rows` lines of text, row r made by format(r, text) (appending to `text`): batches of
  /// rows formatted on `threads` threads (0: all), written in row order, so the bytes are those of
  /// formatting the rows one after the other (26.5 M single-step EBV lines took 35 s on one thread).
  void write_rows(int64_t rows, int threads, const std::function<void(int64_t row, std::string& text)>& format);
  /// `bytes` bytes at byte `offset` of the file (pwrite; the stream is flushed first): a file
  /// whose parts are made out of order, e.g. by the ranks of a run (output_part).
  void write_at(uint64_t offset, const void* data, size_t bytes);
  /// Where the data goes until commit() (other processes' output_part write there).
  const std::string& temporary_path() const { return tmp_path_; }
  /// printf-style text output.
  void printf(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  /// Flushes, closes and renames to the final path; throws io_error on failure (disk full...).
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_path_;
  FILE* f_ = nullptr;
};

/// Another process's share of an output_file (the ranks of one run writing their parts of one file
/// on a file system they all see): writes at offsets into the owner's temporary; the owner, after
/// every part is written, commits it.
class output_part {
 public:
  /// Opens the owner's temporary (output_file::temporary_path()); `path`: the final name, for errors.
  output_part(const std::string& temporary_path, const std::string& path);
  ~output_part();
  output_part(const output_part&) = delete;
  output_part& operator=(const output_part&) = delete;
  void write_at(uint64_t offset, const void* data, size_t bytes);

 private:
  std::string path_;
  int fd_ = -1;
};

class communicator;

/// One output file that every rank of a run writes parts of, at their offsets: rank 0 makes the
/// temporary (an output_file), the others open it (output_part). commit() is collective: once
/// every rank has written, rank 0 renames it; until then, and on failure, nothing looks complete.
class rank_shared_output {
 public:
  rank_shared_output(const communicator& comm, const std::string& path);
  /// The same on a file rank 0 already made (`file`, null on the other ranks), e.g. one of an
  /// output_group: commit() then only waits for every rank's parts, and the group renames it.
  rank_shared_output(const communicator& comm, output_file* file, const std::string& path);
  ~rank_shared_output();
  rank_shared_output(const rank_shared_output&) = delete;
  rank_shared_output& operator=(const rank_shared_output&) = delete;
  void write_at(uint64_t offset, const void* data, size_t bytes);
  void commit();

 private:
  rank_shared_output(const communicator& comm, std::unique_ptr<output_file> owned, output_file* borrowed,
                     const std::string& path);
  const communicator& comm_;
  std::unique_ptr<output_file> owned_;  // rank 0's, when made here
  output_file* file_ = nullptr;         // rank 0's
  std::unique_ptr<output_part> part_;   // the others'
};

/// A set of outputs that land together: commit_all() renames every file only after all were
/// written. Removing the temporaries of all on failure keeps "nothing half-written".
class output_group {
 public:
  output_file& add(const std::string& path);
  void commit_all();

 private:
  std::vector<std::unique_ptr<output_file>> files_;
};

/// Throws io_error if `prefix`'s directory does not exist or is not writable: checked before long
/// work starts, so a run does not compute for an hour and then fail to write.
void check_output_prefix(const std::string& prefix);

}  // namespace pmx
