// Pedigree records as files hold them (io): one animal and its parents' IDs per record, and the
// reader of pedigree text files. Checking and renumbering them is the pedigree's job
// (panoramix/pedigree.hpp, in stats).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pmx {

/// One input record: an animal and its parents' IDs ("" = unknown). `line` is where it was read
/// (1-based; 0 when the record did not come from a file) and is quoted in error messages.
struct pedigree_record {
  std::string id, sire, dam;
  int64_t line = 0;
};

/// How read_pedigree_records (and read_pedigree_file) map columns. `automatic`: a first line whose 2nd or 3rd field is a
/// parent column name (sire/dam/father/mother/dad/mum/mom/par1/par2/parent1/parent2, any case,
/// quotes ignored) is a header, and "dam" before "sire" swaps the columns; otherwise the columns
/// are animal, sire, dam and the first line is data.
enum class pedigree_columns { automatic, sire_dam, dam_sire };

/// Reads the records of a pedigree text file (no pedigree checks: pedigree::from_records does
/// them): one animal per line, fields separated by whitespace and/or commas, optional double
/// quotes around fields; columns animal, sire, dam (see pedigree_columns), further
/// columns ignored; `0`, `NA`, `.`, `*` or an empty field = unknown parent. Blank lines and lines
/// starting with '#' are skipped. Errors (a line with fewer than 3
/// fields, a field with an unbalanced double quote, no records at all) name the file and line.
std::vector<pedigree_record> read_pedigree_records(
    const std::string& path, pedigree_columns columns = pedigree_columns::automatic);

/// True for the codes of an unknown parent: "", "0", "NA", ".", "*".
bool is_unknown_parent(std::string_view field);

}  // namespace pmx
