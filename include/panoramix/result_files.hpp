// Writers of the output formats other tools read. Each adds its files to an output_group, so a
// command's outputs appear together, only once all are complete.
// Layer: formats (src/formats), above stats: writes statistics' results; cli and capi call it.
#pragma once
#include <string>
#include <vector>

#include "panoramix/allele_frequencies.hpp"
#include "panoramix/genotype_source.hpp"
#include "panoramix/grm.hpp"
#include "panoramix/output_file.hpp"
#include "panoramix/plink_files.hpp"

namespace pmx {

/// PREFIX.afreq, PLINK 2 columns: #CHROM ID REF ALT ALT_FREQS OBS_CT (ALT = A1, REF = A2),
/// chromosomes named as PLINK 2 names them (chr1 -> 1, 23 -> X for humans).
void write_afreq(output_group& out, const std::string& prefix, const genotype_source& data,
                 const allele_frequencies& f, const chromosome_set& chroms);

enum class grm_format {
  rel_bin,  ///< PREFIX.rel.bin: n×n float64 square (PLINK --make-rel square bin) + .rel.id
  rel,      ///< PREFIX.rel: text lower triangle with diagonal (PLINK --make-rel) + .rel.id
  gcta,     ///< PREFIX.grm.bin float32 lower triangle + .grm.N.bin float32 counts + .grm.id
};

/// `threads` convert and write the binary formats in pieces (write_pieces). A result held in rows
/// over the ranks of a run (g.row_begin, g.row_end not every row): every rank of `comm` calls it,
/// rank 0 writes the files (its `out`; the others' is not used) with every rank's rows sent to it
/// in order, the same bytes as one process writes.
void write_grm(output_group& out, const std::string& prefix, const genotype_source& data,
               const grm_result& g, grm_format format, int threads = 1,
               const communicator& comm = communicator::single());

}  // namespace pmx
