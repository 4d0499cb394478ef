// Whether a pointer is device memory. Only asked on cuda handles: the query initialises the CUDA
// runtime, which cpu handles must not pay for (nor hold a GPU context for).
#pragma once

namespace pmx::capi {

/// True for memory only a GPU can address (cudaMalloc); false for host memory (pageable, pinned
/// or managed) and in builds without CUDA.
bool is_device_pointer(const void* p);

}  // namespace pmx::capi
