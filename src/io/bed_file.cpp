// Memory-mapped .bed reader and the fileset that ties .bed/.bim/.fam together.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "panoramix/error.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx {

bed_file::bed_file(const std::string& path, int64_t n_samples, int64_t n_variants)
    : path_(path), n_samples_(n_samples), n_variants_(n_variants) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw input_error(".bed file '" + path + "' cannot be opened: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw io_error("cannot stat '" + path + "': " + std::strerror(errno));
  }
  const int64_t row = (n_samples + 3) / 4;
  const int64_t expected = 3 + row * n_variants;
  uint8_t magic[3] = {0, 0, 0};
  const ssize_t got = st.st_size >= 3 ? ::pread(fd, magic, 3, 0) : 0;
  if (got != 3 || magic[0] != 0x6c || magic[1] != 0x1b) {
    ::close(fd);
    throw input_error(path + ": not a PLINK 1 .bed file (the first two bytes must be 0x6c 0x1b)");
  }
  if (magic[2] != 0x01) {
    ::close(fd);
    throw input_error(path + ": .bed is in sample-major mode (third byte 0x00); only "
                      "variant-major .bed files (third byte 0x01) are supported");
  }
  if (st.st_size != expected) {
    ::close(fd);
    throw input_error(path + ": size is " + std::to_string(st.st_size) + " bytes, but " +
                      std::to_string(n_samples) + " samples (.fam) and " +
                      std::to_string(n_variants) + " variants (.bim) need 3 + " +
                      std::to_string(row) + " x " + std::to_string(n_variants) + " = " +
                      std::to_string(expected) +
                      (st.st_size < expected ? " (truncated file, or .fam/.bim from another dataset)"
                                             : " (.fam/.bim from another dataset?)"));
  }
  map_bytes_ = static_cast<size_t>(st.st_size);
  void* p = ::mmap(nullptr, map_bytes_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) throw io_error("cannot map '" + path + "': " + std::strerror(errno));
  ::madvise(p, map_bytes_, MADV_SEQUENTIAL);
  map_ = static_cast<const uint8_t*>(p);
}

bed_file::~bed_file() {
  if (map_) ::munmap(const_cast<uint8_t*>(map_), map_bytes_);
}

variant_major_view bed_file::view() const {
  return {map_ + 3, n_samples_, n_variants_, (n_samples_ + 3) / 4};
}

plink_fileset::plink_fileset(const std::string& prefix) : prefix_(prefix) {
  samples_ = read_fam(prefix + ".fam");
  variants_ = read_bim(prefix + ".bim");
  bed_ = std::make_unique<bed_file>(prefix + ".bed", static_cast<int64_t>(samples_.size()),
                                    static_cast<int64_t>(variants_.size()));
  sample_index_.resize(samples_.size());
  for (size_t i = 0; i < samples_.size(); ++i) sample_index_[i] = static_cast<int64_t>(i);
  variant_index_.resize(variants_.size());
  for (size_t j = 0; j < variants_.size(); ++j) variant_index_[j] = static_cast<int64_t>(j);
}

packed_genotypes plink_fileset::read_block(int64_t first, int64_t count) const {
  PMX_EXPECTS(first >= 0 && count >= 0 && first + count <= n_variants(), "block out of range");
  std::vector<int64_t> rows(variant_index_.begin() + first, variant_index_.begin() + first + count);
  static const std::vector<int64_t> all;
  return subset(bed_->view(), all_samples_kept() ? all : sample_index_, rows);
}

variant_major_view plink_fileset::mapped_block(int64_t first, int64_t count) const {
  PMX_EXPECTS(first >= 0 && count >= 0 && first + count <= n_variants(), "block out of range");
  if (!all_samples_kept() || count == 0) return {};
  if (variant_index_[first + count - 1] - variant_index_[first] != count - 1) return {};  // increasing: a run
  variant_major_view v = bed_->view();
  v.data = v.row(variant_index_[first]);
  v.n_variants = count;
  return v;
}

}  // namespace pmx
