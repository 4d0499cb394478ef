// Pedigrees: reading, checking and renumbering parents-first; inbreeding coefficients; the sparse
// inverse of the numerator relationship matrix A (Henderson 1976, Quaas 1976); the dense A of a
// small pedigree by the tabular method (the oracle of the sparse code and of single-step tests).
//
// Numbering: a `pedigree` holds its animals renumbered 0..n-1 so that both parents of every
// animal come before it (parents-first, topological order). The order is stable: an input that is
// already parents-first keeps its order; otherwise each parent that appears later in the input is
// moved to just before its first offspring (parents listed only as parents are placed likewise).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "panoramix/pedigree_records.hpp"
#include "panoramix/progress.hpp"

namespace pmx {

/// What building a pedigree changed without failing: each note is one line for a log.
struct pedigree_notes {
  int64_t records = 0;             ///< records read
  int64_t merged_duplicates = 0;   ///< identical repeated records merged into one
  int64_t added_founders = 0;      ///< parents not listed as animals, added as founders
  int64_t parents_listed_later = 0;  ///< records with a parent listed after them (renumbered)
  std::vector<std::string> lines;  ///< human-readable notes (first few examples of each kind)
};

class pedigree {
 public:
  static constexpr int64_t unknown = -1;

  pedigree() = default;

  /// Checks `records` (in any order) and renumbers parents-first. `source` names the input in
  /// error messages ("<source>:<line>: ..."). Throws input_error on: an empty animal ID; an animal
  /// that is its own parent; conflicting records of one ID (identical ones are merged, noted); an
  /// ID used as a sire and as a dam; a cycle (an animal among its own ancestors; the message
  /// lists the loop). Parents not listed as animals are added as founders (noted).
  static pedigree from_records(const std::vector<pedigree_record>& records,
                               const std::string& source, pedigree_notes* notes = nullptr);

  /// From parent indices that are already parents-first (sire[i], dam[i] < i or -1); IDs are
  /// "1".."n". Throws logic_error when an index is out of range or not before its offspring.
  static pedigree from_indices(const std::vector<int64_t>& sire, const std::vector<int64_t>& dam);

  int64_t size() const { return static_cast<int64_t>(ids_.size()); }
  const std::string& id(int64_t i) const { return ids_[i]; }
  /// Parent indices in the renumbered pedigree (always < i), or `unknown`.
  int64_t sire(int64_t i) const { return sire_[i]; }
  int64_t dam(int64_t i) const { return dam_[i]; }
  const std::vector<int64_t>& sires() const { return sire_; }
  const std::vector<int64_t>& dams() const { return dam_; }
  const std::vector<std::string>& ids() const { return ids_; }
  /// Index of an animal, or `unknown` when the ID is not in the pedigree.
  int64_t find(std::string_view id) const;
  /// Index of an animal; throws input_error naming the ID when it is not in the pedigree.
  int64_t index(std::string_view id) const;
  /// Input line of an animal's record (0 for added founders and for from_indices).
  int64_t line(int64_t i) const { return line_[i]; }

 private:
  std::vector<std::string> ids_;
  std::vector<int64_t> sire_, dam_, line_;
  struct id_slot {
    uint64_t hash;
    int64_t index;  // -1: empty
  };
  std::vector<id_slot> slots_;  // open addressing over ids_ (see pedigree.cpp)
  void build_index();
};

/// Reads a pedigree file (read_pedigree_records, the file format) and checks and renumbers it
/// (pedigree::from_records). Errors name the file and line.
pedigree read_pedigree_file(const std::string& path,
                            pedigree_columns columns = pedigree_columns::automatic,
                            pedigree_notes* notes = nullptr);

enum class inbreeding_method {
  /// Colleau's method (below) for every sire: it never visits more animals than tracing each
  /// family's ancestors would.
  automatic,
  /// Meuwissen & Luo (1992): for each full-sib family the ancestors are traced once, from the
  /// youngest down, accumulating the row of L in A = L D Lᵀ; F_i = Σ_j L_ij² D_j − 1.
  /// O(a log a) per family with a ancestors: fast on shallow pedigrees, slow on deep ones.
  meuwissen_luo,
  /// Colleau (2002) on the sire's and its mates' ancestors only (Sargolzaei, Iwaisaki & Colleau
  /// 2005): per sire s, U = s, its mates and all their ancestors, ordered by depth; its row of
  /// A = T D Tᵀ by one pass up U from s (Tᵀe_s) and one down (T D Tᵀe_s), giving a_sd, hence
  /// F = a_sd/2, for all its mates d at once: O(|U|) per sire, whatever the numbering; |U| is at
  /// most the sum of its families' ancestor counts and saturates with depth (so sires of one
  /// depth share most of it: they are walked 8 at a time).
  colleau,
};

/// Inbreeding coefficients F (n values, renumbered order), exact (see inbreeding_method). The
/// animals of one depth (longest path to a founder) are independent; their sires run in parallel
/// over `threads` (0 = all), 8 sires per task sharing one walk of their reduced pedigrees U;
/// each thread holds n bits, n 64-bit local indices and 16·|U| doubles (Meuwissen & Luo: one
/// n-vector of doubles). The result depends neither on `threads` nor on the batching.
/// Cost: one walk over each sire's U, which holds every ancestor: about n × depth / 2 steps at
/// worst (a chain of a million generations, each animal the child of the one before it, costs
/// ~10¹¹ steps), a few ancestors per animal in a 20–60 generation livestock pedigree. Progress
/// goes to `progress` (stage "inbreeding") after each depth, as the share of the work done with
/// each depth weighted by (its walks) × (animals above it): exact for a chain, an upper bound's
/// share elsewhere.
std::vector<double> inbreeding(const pedigree& ped, int threads = 0,
                               inbreeding_method method = inbreeding_method::automatic,
                               progress_sink* progress = nullptr);

/// Generations of the pedigree: the longest line of descent from a founder (founders only: 0).
/// O(n).
int64_t pedigree_depth(const pedigree& ped);

/// Within-family (Mendelian sampling) variances D_i / σ²_a from the parents' inbreeding:
/// 1 − (F_s + F_d)/4 − 1/2 with both parents known, 3/4 − F_s/4 with one, 1 with none.
std::vector<double> mendelian_variances(const pedigree& ped, const std::vector<double>& F);

/// A sparse symmetric matrix: its lower triangle (row ≥ col, diagonal included) in compressed
/// sparse rows with 0-based indices; columns sorted within a row, no duplicates.
struct sparse_symmetric {
  int64_t n = 0;
  std::vector<int64_t> row_start;  ///< n + 1 offsets into col/value
  std::vector<int64_t> col;
  std::vector<double> value;
  int64_t nonzeros() const { return static_cast<int64_t>(col.size()); }
  /// Entry (i, j) of the full symmetric matrix (binary search in the row; 0 when absent).
  double at(int64_t i, int64_t j) const;
};

/// A⁻¹ by Henderson's rules with inbreeding (Quaas 1976): for each animal i with b = 1/D_i,
/// add b at (i,i), −b/2 at (i,parent), b/4 at (parent,parent') for each pair of known parents.
/// Indices are the pedigree's renumbered ones. `F` are the inbreeding coefficients (from
/// inbreeding(ped)); pass an empty vector to compute them. Rows are merged on `threads` OpenMP
/// threads (0: all); the result does not depend on them.
sparse_symmetric a_inverse(const pedigree& ped, const std::vector<double>& F = {}, int threads = 0);

/// Dense A among `subset` (indices into ped; empty = every animal) by the tabular method over the
/// subset and its ancestors: |subset| × |subset|, row-major, in the order of `subset`. O(m²) time
/// and memory for m = subset + ancestors: for small pedigrees and tests.
std::vector<double> relationship_matrix(const pedigree& ped,
                                        const std::vector<int64_t>& subset = {});

}  // namespace pmx
