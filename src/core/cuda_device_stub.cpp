// Stand-in when the CUDA backend is not compiled in.
#include <memory>

#include "panoramix/error.hpp"
#include "panoramix/executor.hpp"

namespace pmx {

bool cuda_compiled_in() { return false; }
bool cuda_available() { return false; }
int cuda_device_count() { return 0; }
// A cuda executor cannot be made without the backend, so there is nothing to start.
void executor::start_device() const {}
void executor::synchronize() const {}

namespace detail {
// Never called: executor(backend::cuda) throws before asking when CUDA is not compiled in.
std::shared_ptr<cuda_context> make_cuda_context() { return nullptr; }
void* pinned_alloc(size_t) { return nullptr; }
void pinned_free(void*) noexcept {}
void* device_alloc(size_t) { throw error("this build has no CUDA backend"); }
void device_free(void*) noexcept {}
bool points_to_device(const void*) { return false; }
void device_copy(void*, const void*, size_t, bool) { throw error("this build has no CUDA backend"); }
}  // namespace detail

}  // namespace pmx
