// A pedigree from a file: the io reader's records, checked and renumbered by the pedigree.
#include "panoramix/pedigree.hpp"

namespace pmx {

pedigree read_pedigree_file(const std::string& path, pedigree_columns columns, pedigree_notes* notes) {
  return pedigree::from_records(read_pedigree_records(path, columns), path, notes);
}

}  // namespace pmx
