#include "panoramix/output_file.hpp"

#include <omp.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <memory>

#include "panoramix/communicator.hpp"
#include "panoramix/error.hpp"

namespace pmx {

output_file::output_file(const std::string& path)
    : path_(path), tmp_path_(path + ".tmp." + std::to_string(::getpid())) {
  f_ = std::fopen(tmp_path_.c_str(), "wb");
  if (!f_) throw io_error("cannot write '" + path + "': " + std::strerror(errno));
  std::setvbuf(f_, nullptr, _IOFBF, 1 << 20);
}

output_file::~output_file() {
  if (f_) {
    std::fclose(f_);
    std::remove(tmp_path_.c_str());
  }
}

void output_file::write(const void* data, size_t bytes) {
  if (bytes && std::fwrite(data, 1, bytes, f_) != bytes)
    throw io_error("error writing '" + path_ + "': " + std::strerror(errno));
}

void output_file::write_pieces(const std::vector<size_t>& sizes, int threads,
                               const std::function<void(size_t piece, char* buffer)>& fill) {
  if (std::fflush(f_) != 0) throw io_error("error writing '" + path_ + "': " + std::strerror(errno));
  const off_t base = ::ftello(f_);
  std::vector<off_t> at(sizes.size() + 1, base);
  for (size_t p = 0; p < sizes.size(); ++p) at[p + 1] = at[p] + static_cast<off_t>(sizes[p]);
  const int fd = ::fileno(f_);
  int failed = 0;  // errno of the first failed piece
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(threads, 1))
  for (size_t p = 0; p < sizes.size(); ++p) {
    const std::unique_ptr<char[]> buffer(new char[sizes[p]]);  // fill writes every byte: no zeroing
    fill(p, buffer.get());
    for (size_t done = 0; done < sizes[p];) {
      const ssize_t w = ::pwrite(fd, buffer.get() + done, sizes[p] - done, at[p] + static_cast<off_t>(done));
      if (w <= 0) {
#pragma omp critical(output_file_pieces)
        if (!failed) failed = w < 0 ? errno : ENOSPC;
        break;
      }
      done += static_cast<size_t>(w);
    }
  }
  if (failed) throw io_error("error writing '" + path_ + "': " + std::strerror(failed));
  if (::fseeko(f_, at.back(), SEEK_SET) != 0) throw io_error("error writing '" + path_ + "': " + std::strerror(errno));
}

void output_file::write_rows(int64_t rows, int threads,
                             const std::function<void(int64_t row, std::string& text)>& format) {
  constexpr int64_t batch_rows = 16384;
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  const int64_t batches = (rows + batch_rows - 1) / batch_rows;
  const int64_t per_round = int64_t{4} * nt;  // batches formatted at once, then written in order
  std::vector<std::string> text(static_cast<size_t>(std::min(batches, per_round)));
  for (int64_t first = 0; first < batches; first += per_round) {
    const int64_t count = std::min(per_round, batches - first);
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (count > 1)
    for (int64_t b = 0; b < count; ++b) {
      std::string& t = text[static_cast<size_t>(b)];
      t.clear();
      const int64_t r0 = (first + b) * batch_rows, r1 = std::min(rows, r0 + batch_rows);
      try {
        for (int64_t r = r0; r < r1; ++r) format(r, t);
      } catch (...) {
#pragma omp atomic write
        failed = 1;
      }
    }
    // A formatter that throws is a caller's defect (formatting numbers and names does not fail):
    // say so rather than write a file with a hole.
    if (failed) throw logic_error("output_file::write_rows: a row's formatter threw while writing '" + path_ + "'");
    for (int64_t b = 0; b < count; ++b) write(text[static_cast<size_t>(b)]);
  }
}

void output_file::printf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int r = std::vfprintf(f_, fmt, ap);
  va_end(ap);
  if (r < 0) throw io_error("error writing '" + path_ + "': " + std::strerror(errno));
}

namespace {

void pwrite_all(int fd, uint64_t offset, const void* data, size_t bytes, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  for (size_t done = 0; done < bytes;) {
    const ssize_t w = ::pwrite(fd, p + done, bytes - done, static_cast<off_t>(offset + done));
    if (w <= 0) throw io_error("error writing '" + path + "': " + std::strerror(w < 0 ? errno : ENOSPC));
    done += static_cast<size_t>(w);
  }
}

}  // namespace

void output_file::write_at(uint64_t offset, const void* data, size_t bytes) {
  if (std::fflush(f_) != 0) throw io_error("error writing '" + path_ + "': " + std::strerror(errno));
  pwrite_all(::fileno(f_), offset, data, bytes, path_);
}

output_part::output_part(const std::string& temporary_path, const std::string& path) : path_(path) {
  fd_ = ::open(temporary_path.c_str(), O_WRONLY);
  if (fd_ < 0) throw io_error("cannot write '" + path + "' (its temporary '" + temporary_path + "'): " + std::strerror(errno));
}

output_part::~output_part() {
  if (fd_ >= 0) ::close(fd_);
}

void output_part::write_at(uint64_t offset, const void* data, size_t bytes) { pwrite_all(fd_, offset, data, bytes, path_); }

rank_shared_output::rank_shared_output(const communicator& comm, const std::string& path)
    : rank_shared_output(comm, comm.rank() == 0 ? std::make_unique<output_file>(path) : nullptr, nullptr, path) {}

rank_shared_output::rank_shared_output(const communicator& comm, output_file* file, const std::string& path)
    : rank_shared_output(comm, nullptr, file, path) {}

rank_shared_output::rank_shared_output(const communicator& comm, std::unique_ptr<output_file> owned,
                                       output_file* borrowed, const std::string& path)
    : comm_(comm), owned_(std::move(owned)), file_(owned_ ? owned_.get() : borrowed) {
  std::string temporary;
  if (comm.rank() == 0) temporary = file_->temporary_path();
  int64_t length = static_cast<int64_t>(temporary.size());
  comm.broadcast(&length, sizeof length, 0);  // the others open it only once it exists
  temporary.resize(static_cast<size_t>(length));
  comm.broadcast(temporary.data(), length, 0);
  if (comm.rank() != 0) part_ = std::make_unique<output_part>(temporary, path);
}

rank_shared_output::~rank_shared_output() = default;

void rank_shared_output::write_at(uint64_t offset, const void* data, size_t bytes) {
  if (file_) file_->write_at(offset, data, bytes);
  else part_->write_at(offset, data, bytes);
}

void rank_shared_output::commit() {
  part_.reset();
  comm_.barrier();  // every rank's parts are in the file
  if (owned_) owned_->commit(), owned_.reset();
  file_ = nullptr;
}

void output_file::commit() {
  const bool ok = std::fflush(f_) == 0 && std::ferror(f_) == 0;
  const int saved = errno;
  std::fclose(f_);
  f_ = nullptr;
  if (!ok) {
    std::remove(tmp_path_.c_str());
    throw io_error("error writing '" + path_ + "': " + std::strerror(saved));
  }
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp_path_.c_str());
    throw io_error("cannot rename '" + tmp_path_ + "' to '" + path_ + "': " + std::strerror(e));
  }
}

output_file& output_group::add(const std::string& path) {
  files_.push_back(std::make_unique<output_file>(path));
  return *files_.back();
}

void output_group::commit_all() {
  for (auto& f : files_) f->commit();
  files_.clear();
}

void check_output_prefix(const std::string& prefix) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(prefix).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::exists(dir, ec))
    throw io_error("--out " + prefix + ": directory '" + dir.string() + "' does not exist");
  if (!fs::is_directory(dir, ec))
    throw io_error("--out " + prefix + ": '" + dir.string() + "' is not a directory");
  if (::access(dir.c_str(), W_OK) != 0)
    throw io_error("--out " + prefix + ": directory '" + dir.string() + "' is not writable");
}

}  // namespace pmx
