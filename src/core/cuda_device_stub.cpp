// Stand-in when the CUDA backend is not compiled in.
#include "panoramix/executor.hpp"

namespace pmx {

bool cuda_compiled_in() { return false; }
bool cuda_available() { return false; }

}  // namespace pmx
