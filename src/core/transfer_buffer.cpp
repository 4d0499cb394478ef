#include "panoramix/transfer_buffer.hpp"

#include <new>
#include <utility>

namespace pmx {
namespace detail {
// cuda_device.cu (cudaHostAlloc / cudaFreeHost), or cuda_device_stub.cpp (null / nothing).
void* pinned_alloc(size_t bytes);
void pinned_free(void* p) noexcept;
}  // namespace detail

transfer_buffer::transfer_buffer(const executor& exec, size_t count) : count_(count) {
  if (count == 0) return;
  if (exec.kind() == backend::cuda) {
    data_ = static_cast<double*>(detail::pinned_alloc(count * sizeof(double)));
    pinned_ = data_ != nullptr;
  }
  if (!data_) data_ = new double[count];  // not pinned: no device, or page-locking refused
}

transfer_buffer::~transfer_buffer() {
  if (pinned_) detail::pinned_free(data_);
  else delete[] data_;
}

transfer_buffer::transfer_buffer(transfer_buffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)), pinned_(std::exchange(o.pinned_, false)) {}

transfer_buffer& transfer_buffer::operator=(transfer_buffer&& o) noexcept {
  if (this != &o) {
    this->~transfer_buffer();
    data_ = std::exchange(o.data_, nullptr);
    count_ = std::exchange(o.count_, 0);
    pinned_ = std::exchange(o.pinned_, false);
  }
  return *this;
}

}  // namespace pmx
