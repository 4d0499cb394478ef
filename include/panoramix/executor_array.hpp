// Numbers in the executor's memory: device memory for a cuda executor (what the ops accept as
// "device memory on cuda", so that an n × n matrix can go from one op to the next without crossing
// to the host), host memory for the others. The statistics hold such arrays without knowing where
// they live; only the ops read them.
#pragma once
#include <cstddef>

#include "panoramix/executor.hpp"

namespace pmx {

namespace detail {
/// Raw executor memory (bytes; uninitialised). Throws pmx::error when it cannot be had.
void* executor_alloc(const executor& exec, size_t bytes, bool& on_device);
void executor_free(void* p, bool on_device) noexcept;
/// Copies between executor memory and host memory (plain memcpy for host executor memory).
void executor_to_host(void* host, const void* src, size_t bytes, bool on_device);
void executor_from_host(void* dst, const void* host, size_t bytes, bool on_device);
/// Whether p points into GPU memory (false without CUDA).
bool points_to_device(const void* p);
}  // namespace detail

/// `count` values of T in `exec`'s memory, uninitialised. Move-only.
template <class T>
class executor_array {
 public:
  executor_array() = default;
  executor_array(const executor& exec, size_t count) : count_(count) {
    // (in the body: a member initialiser would run before on_device_'s own and be overwritten)
    data_ = static_cast<T*>(detail::executor_alloc(exec, count * sizeof(T), on_device_));
  }
  ~executor_array() { detail::executor_free(data_, on_device_); }
  executor_array(executor_array&& o) noexcept : data_(o.data_), count_(o.count_), on_device_(o.on_device_) {
    o.data_ = nullptr, o.count_ = 0;
  }
  executor_array& operator=(executor_array&& o) noexcept {
    if (this != &o) {
      detail::executor_free(data_, on_device_);
      data_ = o.data_, count_ = o.count_, on_device_ = o.on_device_;
      o.data_ = nullptr, o.count_ = 0;
    }
    return *this;
  }
  executor_array(const executor_array&) = delete;
  executor_array& operator=(const executor_array&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return count_; }
  bool on_device() const { return on_device_; }
  /// Values [first, first + count) copied into host memory at `out`.
  void copy_to_host(T* out, size_t first, size_t count) const {
    detail::executor_to_host(out, data_ + first, count * sizeof(T), on_device_);
  }
  /// Host values copied into [first, first + count).
  void copy_from_host(const T* in, size_t first, size_t count) {
    detail::executor_from_host(data_ + first, in, count * sizeof(T), on_device_);
  }

 private:
  T* data_ = nullptr;
  size_t count_ = 0;
  bool on_device_ = false;
};

}  // namespace pmx
