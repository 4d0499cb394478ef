// Version queries. PMX_VERSION comes from the CMake project version; the header's macros must
// agree with it (test_capi checks), and PMX_ABI_VERSION is the shared object's SONAME number.
#include "panoramix/panoramix.h"

extern "C" {

const char* pmx_version(void) { return PMX_VERSION; }

int pmx_abi_version(void) { return PMX_ABI_VERSION; }

}  // extern "C"
