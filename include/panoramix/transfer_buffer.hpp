// Host vectors that cross to the device at every product (the PCG vectors of single-step models):
// page-locked (CUDA pinned) memory for a cuda executor, so that the ops copy them by DMA without a
// staging copy; ordinary memory for the other executors.
#pragma once
#include <cstddef>

#include "panoramix/executor.hpp"

namespace pmx {

/// `count` doubles, uninitialised. Move-only.
class transfer_buffer {
 public:
  transfer_buffer() = default;
  transfer_buffer(const executor& exec, size_t count);
  ~transfer_buffer();
  transfer_buffer(transfer_buffer&& o) noexcept;
  transfer_buffer& operator=(transfer_buffer&& o) noexcept;
  transfer_buffer(const transfer_buffer&) = delete;
  transfer_buffer& operator=(const transfer_buffer&) = delete;

  double* data() { return data_; }
  const double* data() const { return data_; }
  size_t size() const { return count_; }
  bool pinned() const { return pinned_; }

 private:
  double* data_ = nullptr;
  size_t count_ = 0;
  bool pinned_ = false;
};

}  // namespace pmx
