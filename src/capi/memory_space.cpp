#include "capi/memory_space.hpp"

#ifdef PMX_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace pmx::capi {

bool is_device_pointer(const void* p) {
#ifdef PMX_HAVE_CUDA
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error this query leaves behind
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
#else
  (void)p;
  return false;
#endif
}

}  // namespace pmx::capi
