// Loading the CUDA math libraries on first use (see cuda_libraries.hpp for why).
#include "core/cuda_libraries.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "panoramix/error.hpp"

namespace pmx::detail {

namespace {

struct library_file {
  const char* soname;  // e.g. libcublas.so.13, found by the dynamic loader's search
  const char* name;    // for messages
};

// The sonames and the toolkit's library folder come from the build (CMakeLists.txt).
constexpr library_file files[] = {
    {PMX_CUBLAS_SONAME, "cuBLAS"},
    {PMX_CUBLASLT_SONAME, "cuBLASLt"},
    {PMX_CUSOLVER_SONAME, "cuSOLVER"},
    {PMX_CUSPARSE_SONAME, "cuSPARSE"},
};

void* open_library(cuda_library library) {
  const library_file& f = files[static_cast<int>(library)];
  // The loader's search first (LD_LIBRARY_PATH, ld.so.cache), then the toolkit this was built with.
  if (void* h = dlopen(f.soname, RTLD_NOW | RTLD_LOCAL)) return h;
  const std::string first = dlerror();
  const std::string built_with = std::string(PMX_CUDA_LIBRARY_DIR) + "/" + f.soname;
  if (void* h = dlopen(built_with.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  throw error(std::string("the CUDA backend needs ") + f.name + " (" + f.soname + "), which could not be loaded: " +
              first + "; put the CUDA toolkit's library folder on LD_LIBRARY_PATH, or use --device cpu");
}

void* library_handle(cuda_library library) {
  static std::once_flag once[4];
  static void* handles[4] = {};
  const int i = static_cast<int>(library);
  std::call_once(once[i], [&] { handles[i] = open_library(library); });  // a throw leaves it to retry
  return handles[i];
}

}  // namespace

void* cuda_library_symbol(cuda_library library, const char* symbol) {
  void* handle = library_handle(library);
  dlerror();
  void* address = dlsym(handle, symbol);
  if (address == nullptr)
    throw error(std::string("the CUDA library ") + files[static_cast<int>(library)].soname + " has no " + symbol +
                ": it is older than the toolkit panoramix was built with");
  return address;
}

void load_cuda_libraries() {
  for (auto library : {cuda_library::cublas, cuda_library::cublas_lt, cuda_library::cusolver, cuda_library::cusparse})
    library_handle(library);
}

}  // namespace pmx::detail
