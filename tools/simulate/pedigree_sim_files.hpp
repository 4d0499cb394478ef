// Files of a simulated pedigree dataset (pedigree_sim.hpp), as `panoramix simulate-pedigree`
// writes them: the inputs of `pedigree` and `ssblup` and the truth to compare their results with.
//   PREFIX.ped               animal sire dam (header; 0 = unknown parent), every animal
//   PREFIX.pheno             ID herd lact dim trait1.. (header; animals with a record; NA = missing)
//   PREFIX.tbv               ID generation genotyped trait1.. (header; true breeding values)
//   PREFIX.vc                'genetic', t rows of G0, 'residual', t rows of R0
//   PREFIX.bed/.bim/.fam     the genotyped animals
// Numbers as printf's %.10g writes them. Space-separated.
#pragma once
#include <string>

#include "simulate/pedigree_sim.hpp"

namespace pmx::sim {

/// Writes the files above; they appear only once all are complete (the PLINK fileset first).
/// Lines are formatted in parallel on `threads` threads; the bytes do not depend on it.
void write_pedigree_dataset(const std::string& prefix, const pedigree_dataset& d, int threads);

/// Animals with a record (herd > 0).
int64_t animals_with_records(const pedigree_dataset& d);

}  // namespace pmx::sim
