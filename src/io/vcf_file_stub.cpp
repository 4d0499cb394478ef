// Built instead of vcf_file.cpp when htslib is not found: VCF/BCF input says why it cannot run.
#include "panoramix/error.hpp"
#include "panoramix/vcf_files.hpp"

namespace pmx {

bool vcf_compiled_in() { return false; }

vcf_genotypes::vcf_genotypes(const std::string& path, const vcf_options&, progress_sink*) : decoded_genotypes(path) {
  throw unsupported_error(path + ": this build of panoramix reads no VCF/BCF (htslib was not found when "
                          "it was built; install libhts-dev and rebuild)");
}

}  // namespace pmx
