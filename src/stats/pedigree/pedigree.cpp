// pedigree (a statistic's data structure, built from io's records): checks and
// parents-first renumbering of records given in any order.
#include "panoramix/pedigree.hpp"

#include <algorithm>

#include "panoramix/error.hpp"

namespace pmx {

namespace {

constexpr int max_examples = 5;  // examples of each note kind written to the log

std::string where(const std::string& source, int64_t line) {
  return line > 0 ? source + ":" + std::to_string(line) + ": " : source + ": ";
}

std::string parent_text(const std::string& p) { return p.empty() ? "unknown" : "'" + p + "'"; }

// Hash table of IDs by open addressing (linear probing, power-of-two size, at most half full):
// node-based maps spend most of their time in cache misses at a million IDs. A slot holds the
// ID's hash and its index; `key(i)` gives the ID of index i.
template <class Slot>
class id_table {
 public:
  explicit id_table(std::vector<Slot>& slots) : slots_(slots) {}

  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }
  /// The index stored for `id`, or `value` after storing it; second = inserted.
  template <class Key>
  std::pair<int64_t, bool> insert(std::string_view id, int64_t value, const Key& key) {
    if (2 * (count_ + 1) > slots_.size()) rehash(std::max<size_t>(16, 2 * slots_.size()));
    const uint64_t h = std::hash<std::string_view>{}(id);
    for (size_t s = h & (slots_.size() - 1);; s = (s + 1) & (slots_.size() - 1)) {
      if (slots_[s].index < 0) {
        slots_[s] = {h, value};
        ++count_;
        return {value, true};
      }
      if (slots_[s].hash == h && key(slots_[s].index) == id) return {slots_[s].index, false};
    }
  }
  template <class Key>
  static int64_t find(const std::vector<Slot>& slots, std::string_view id, const Key& key) {
    if (slots.empty()) return -1;
    const uint64_t h = std::hash<std::string_view>{}(id);
    for (size_t s = h & (slots.size() - 1);; s = (s + 1) & (slots.size() - 1)) {
      if (slots[s].index < 0) return -1;
      if (slots[s].hash == h && key(slots[s].index) == id) return slots[s].index;
    }
  }

 private:
  std::vector<Slot>& slots_;
  size_t count_ = 0;
  void rehash(size_t cap) {
    std::vector<Slot> old(cap, Slot{0, -1});
    old.swap(slots_);
    for (const Slot& x : old)
      if (x.index >= 0) {
        size_t s = x.hash & (cap - 1);
        while (slots_[s].index >= 0) s = (s + 1) & (cap - 1);
        slots_[s] = x;
      }
  }
};

}  // namespace

void pedigree::build_index() {
  slots_.clear();
  id_table<id_slot> table(slots_);
  table.reserve(ids_.size());
  const auto key = [&](int64_t i) { return std::string_view(ids_[i]); };
  for (int64_t i = 0; i < size(); ++i) table.insert(ids_[i], i, key);
}

int64_t pedigree::find(std::string_view id) const {
  return id_table<id_slot>::find(slots_, id, [&](int64_t i) { return std::string_view(ids_[i]); });
}

int64_t pedigree::index(std::string_view id) const {
  const int64_t i = find(id);
  if (i == unknown) throw input_error("animal '" + std::string(id) + "' is not in the pedigree");
  return i;
}

pedigree pedigree::from_indices(const std::vector<int64_t>& sire, const std::vector<int64_t>& dam) {
  PMX_EXPECTS(sire.size() == dam.size(), "sire and dam vectors differ in length");
  pedigree p;
  const int64_t n = static_cast<int64_t>(sire.size());
  for (int64_t i = 0; i < n; ++i) {
    PMX_EXPECTS(sire[i] >= unknown && sire[i] < i && dam[i] >= unknown && dam[i] < i,
                "parent of animal " + std::to_string(i) + " not before it (or out of range)");
    p.ids_.push_back(std::to_string(i + 1));
  }
  p.sire_ = sire;
  p.dam_ = dam;
  p.line_.assign(n, 0);
  p.build_index();
  return p;
}

pedigree pedigree::from_records(const std::vector<pedigree_record>& records,
                                const std::string& source, pedigree_notes* notes) {
  pedigree_notes local;
  pedigree_notes& nt = notes ? *notes : local;
  nt = {};
  nt.records = static_cast<int64_t>(records.size());

  // Nodes: unique records in input order, then parents not listed (added founders).
  std::vector<std::string_view> id;
  std::vector<int64_t> rec;  // record of each node, -1 for an added founder
  struct slot {
    uint64_t hash;
    int64_t index;
  };
  std::vector<slot> node_slots;
  id_table<slot> node(node_slots);
  node.reserve(records.size());
  const auto key = [&](int64_t k) { return id[k]; };
  for (int64_t r = 0; r < static_cast<int64_t>(records.size()); ++r) {
    const auto& x = records[r];
    if (x.id.empty() || is_unknown_parent(x.id))
      throw input_error(where(source, x.line) + "animal ID '" + x.id +
                        "' is empty or a code of an unknown parent");
    if (x.id == x.sire) throw input_error(where(source, x.line) + "animal '" + x.id + "' is its own sire");
    if (x.id == x.dam) throw input_error(where(source, x.line) + "animal '" + x.id + "' is its own dam");
    if (!x.sire.empty() && x.sire == x.dam)
      throw input_error(where(source, x.line) + "'" + x.sire + "' is both sire and dam of '" + x.id +
                        "'");
    const auto [k, fresh] = node.insert(x.id, static_cast<int64_t>(id.size()), key);
    if (fresh) {
      id.push_back(x.id);
      rec.push_back(r);
      continue;
    }
    const auto& first = records[rec[k]];
    if (first.sire != x.sire || first.dam != x.dam)
      throw input_error(where(source, x.line) + "animal '" + x.id + "' listed again with other parents (sire " +
                        parent_text(x.sire) + ", dam " + parent_text(x.dam) + "; line " +
                        std::to_string(first.line) + " has sire " + parent_text(first.sire) +
                        ", dam " + parent_text(first.dam) + ")");
    if (nt.merged_duplicates++ < max_examples)
      nt.lines.push_back(where(source, x.line) + "duplicate record of '" + x.id + "' (same as line " +
                         std::to_string(first.line) + ") merged");
  }
  const int64_t listed = static_cast<int64_t>(id.size());

  // Parents: resolve to nodes (adding founders), and check that no ID is used as sire and dam.
  std::vector<int64_t> s_of(listed, unknown), d_of(listed, unknown);
  std::vector<int64_t> role_line;  // per node: record line where first used as a parent
  std::vector<signed char> role;   // 0 none, 1 sire, 2 dam
  auto resolve = [&](const std::string& p, int which, const pedigree_record& x) -> int64_t {
    if (p.empty()) return unknown;
    const auto [k, fresh] = node.insert(p, static_cast<int64_t>(id.size()), key);
    if (fresh) {
      id.push_back(p);
      rec.push_back(-1);
      if (nt.added_founders++ < max_examples)
        nt.lines.push_back(where(source, x.line) + "parent '" + p +
                           "' is not listed as an animal: added as a founder");
    }
    if (static_cast<int64_t>(role.size()) <= k) {
      role.resize(k + 1, 0);
      role_line.resize(k + 1, 0);
    }
    if (role[k] == 0) {
      role[k] = static_cast<signed char>(which);
      role_line[k] = x.line;
    } else if (role[k] != which) {
      throw input_error(where(source, x.line) + "'" + p + "' is the " +
                        (which == 1 ? "sire" : "dam") + " of '" + x.id + "' but the " +
                        (which == 1 ? "dam" : "sire") + " of an animal at line " +
                        std::to_string(role_line[k]) + " (a parent must be either sire or dam)");
    }
    return k;
  };
  for (int64_t k = 0; k < listed; ++k) {
    const auto& x = records[rec[k]];
    s_of[k] = resolve(x.sire, 1, x);
    d_of[k] = resolve(x.dam, 2, x);
  }
  const int64_t m = static_cast<int64_t>(id.size());
  s_of.resize(m, unknown);
  d_of.resize(m, unknown);
  if (nt.added_founders > max_examples)
    nt.lines.push_back("... " + std::to_string(nt.added_founders) +
                       " parents in all were not listed and were added as founders");
  if (nt.merged_duplicates > max_examples)
    nt.lines.push_back("... " + std::to_string(nt.merged_duplicates) +
                       " duplicate records in all were merged");

  // Parents-first order by depth-first search from each listed animal in input order: parents
  // (sire, then dam) are placed before the animal, so an already sorted input keeps its order.
  // Iterative, so a pedigree a million generations deep does not overflow the stack.
  std::vector<int64_t> new_index(m, unknown);
  std::vector<signed char> state(m, 0);  // 0 unvisited, 1 on the path, 2 placed
  std::vector<int64_t> order;
  order.reserve(m);
  struct frame {
    int64_t node;
    int step;  // 0: visit sire next, 1: visit dam next, 2: place
  };
  std::vector<frame> stack;
  for (int64_t root = 0; root < listed; ++root) {
    if (state[root] == 2) continue;
    stack.push_back({root, 0});
    state[root] = 1;
    while (!stack.empty()) {
      frame& f = stack.back();
      if (f.step == 2) {
        new_index[f.node] = static_cast<int64_t>(order.size());
        order.push_back(f.node);
        state[f.node] = 2;
        stack.pop_back();
        continue;
      }
      const int64_t p = f.step == 0 ? s_of[f.node] : d_of[f.node];
      ++f.step;
      if (p == unknown || state[p] == 2) continue;
      if (state[p] == 1) {
        // The path from p up the stack returns to p: report the loop as offspring→parent steps.
        auto at = std::find_if(stack.begin(), stack.end(), [&](const frame& g) { return g.node == p; });
        std::string loop;
        for (auto g = at; g != stack.end(); ++g) loop += "'" + std::string(id[g->node]) + "' -> ";
        loop += "'" + std::string(id[p]) + "'";
        const int64_t line = rec[p] >= 0 ? records[rec[p]].line : 0;
        throw input_error(where(source, line) + "animal '" + std::string(id[p]) +
                          "' is its own ancestor (cycle, each animal followed by one of its "
                          "parents: " + loop + ")");
      }
      state[p] = 1;
      stack.push_back({p, 0});
    }
  }

  pedigree out;
  out.ids_.reserve(m);
  out.sire_.resize(m);
  out.dam_.resize(m);
  out.line_.resize(m);
  for (int64_t i = 0; i < m; ++i) {
    const int64_t k = order[i];
    out.ids_.emplace_back(id[k]);
    out.sire_[i] = s_of[k] == unknown ? unknown : new_index[s_of[k]];
    out.dam_[i] = d_of[k] == unknown ? unknown : new_index[d_of[k]];
    out.line_[i] = rec[k] >= 0 ? records[rec[k]].line : 0;
  }
  for (int64_t k = 0; k < listed; ++k)
    if ((s_of[k] > k && s_of[k] < listed) || (d_of[k] > k && d_of[k] < listed))
      ++nt.parents_listed_later;
  out.build_index();
  return out;
}

int64_t pedigree_depth(const pedigree& ped) {
  // Parents come first, so one pass in index order sees both parents' depths.
  std::vector<int64_t> depth(static_cast<size_t>(ped.size()), 0);
  int64_t deepest = 0;
  for (int64_t i = 0; i < ped.size(); ++i) {
    if (ped.sire(i) != pedigree::unknown) depth[i] = std::max(depth[i], depth[ped.sire(i)] + 1);
    if (ped.dam(i) != pedigree::unknown) depth[i] = std::max(depth[i], depth[ped.dam(i)] + 1);
    deepest = std::max(deepest, depth[i]);
  }
  return deepest;
}

}  // namespace pmx
