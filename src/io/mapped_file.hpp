// A whole input file mapped read-only (the binary readers, BGEN and .pgen, decode straight from it
// without copying more than a block at a time).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace pmx::io {

class mapped_file {
 public:
  /// Maps `path`; throws input_error "<what> file '<path>' cannot be opened: ..." (or "is not a
  /// regular file", "cannot be mapped") when it cannot. An empty file maps to data() == nullptr.
  mapped_file(const std::string& path, const std::string& what);
  ~mapped_file();
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

/// Little-endian unsigned integer of `bytes` (1 to 8) bytes at p.
inline uint64_t little_endian(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = v << 8 | p[k];
  return v;
}

}  // namespace pmx::io
