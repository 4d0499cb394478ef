// A PLINK 1 .bed file (variant-major, 2 bits per call), memory-mapped.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "panoramix/genotype_view.hpp"

namespace pmx {

/// A memory-mapped .bed file in variant-major mode. Validates magic bytes and size
/// (3 + ceil(n/4) * m). Zero-copy: the OS pages the file in as ops touch it, so files larger
/// than RAM are read block by block.
class bed_file {
 public:
  bed_file(const std::string& path, int64_t n_samples, int64_t n_variants);
  ~bed_file();
  bed_file(const bed_file&) = delete;
  bed_file& operator=(const bed_file&) = delete;

  variant_major_view view() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int64_t n_samples_, n_variants_;
  const uint8_t* map_ = nullptr;
  size_t map_bytes_ = 0;
};

}  // namespace pmx
