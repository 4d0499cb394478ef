// PLINK 1.9 --pca outputs: PREFIX.eigenval (one eigenvalue per line, descending) and
// PREFIX.eigenvec (FID IID PC1 .. PCm per sample, space-separated, no header).
// Layer: formats (src/formats), above stats: writes statistics' results; cli and capi call it.
#pragma once
#include <string>
#include <vector>

#include "panoramix/genotype_source.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/pca.hpp"

namespace pmx {

/// Adds PREFIX.eigenval and PREFIX.eigenvec to `out` (10 significant digits; PLINK prints 6).
void write_pca(output_group& out, const std::string& prefix, const genotype_source& data, const pca_result& r);

/// The same files from sample IDs and n × pcs column-major vectors (PCs of a GRM in memory).
void write_pca(output_group& out, const std::string& prefix, const std::vector<std::string>& fid,
               const std::vector<std::string>& iid, const std::vector<double>& values, const std::vector<double>& vectors);

}  // namespace pmx
