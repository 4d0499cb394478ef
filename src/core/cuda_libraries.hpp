// The CUDA math libraries (cuBLAS, cuBLASLt, cuSOLVER, cuSPARSE), loaded on first use.
//
// They are not linked: libcublasLt's start-up alone costs every command ~0.1 s and ~270 MB of
// resident memory, CPU-only commands included, and a CUDA build should run where the toolkit's
// libraries are absent as long as no GPU work is asked for. The generated forwarders
// (tools/cuda_forwarders.py) define each library function the sources call and look the real one
// up here.
#pragma once

namespace pmx::detail {

enum class cuda_library { cublas, cublas_lt, cusolver, cusparse };

/// The address of `symbol` in `library`, loading the library on the first call. Throws pmx::error
/// naming the library and dlopen's reason when it cannot be loaded or lacks the symbol.
void* cuda_library_symbol(cuda_library library, const char* symbol);

/// Loads all four now: a cuda executor calls this so that a missing library is reported when
/// the executor is made, not in the middle of a computation.
void load_cuda_libraries();

}  // namespace pmx::detail
