// CUDA device discovery (compiled by nvcc when the CUDA backend is built).
#include <cuda_runtime.h>

#include "panoramix/executor.hpp"

namespace pmx {

bool cuda_compiled_in() { return true; }

bool cuda_available() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return false;
  }
  return count > 0;
}

}  // namespace pmx
