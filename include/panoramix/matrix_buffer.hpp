// Buffers for n×n results. A std::vector zeroes its elements on one thread as it constructs them,
// which for a 22,000-sample GRM (several GB) costs seconds of page faults on one core. A
// matrix_buffer leaves trivial elements uninitialised on construction; zeroed_matrix() then writes
// the zeros with all threads (first touch spread over the cores).
#pragma once
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace pmx {

template <class T>
struct default_init_allocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = default_init_allocator<U>;
  };
  default_init_allocator() = default;
  template <class U>
  default_init_allocator(const default_init_allocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;  // default-initialisation: no zeroing for trivial types
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

template <class T>
using matrix_buffer = std::vector<T, default_init_allocator<T>>;

/// `count` zeros written by `threads` threads.
template <class T>
matrix_buffer<T> zeroed_matrix(size_t count, int threads) {
  matrix_buffer<T> m(count);
  const auto n = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::ptrdiff_t i = 0; i < n; ++i) m[i] = T{};
  return m;
}

}  // namespace pmx
