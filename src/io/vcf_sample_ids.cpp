// VCF sample IDs to FID/IID. plink2's default is FID "0" and the whole ID as IID, also for IDs with
// '_' in them (PLINK 1.9 split those; plink2 splits only under --id-delim).
#include "io/vcf_sample_ids.hpp"

#include <unordered_map>

#include "panoramix/error.hpp"

namespace pmx::io {
namespace {

std::string sample_where(const std::string& path, size_t i, const std::string& id) {
  return path + ": sample " + std::to_string(i + 1) + " ('" + id + "')";
}

}  // namespace

std::vector<sample_record> vcf_sample_records(const std::vector<std::string>& ids, const vcf_options& o,
                                              const std::string& path) {
  std::vector<sample_record> out;
  out.reserve(ids.size());
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    if (id.empty() || id.find_first_of(" \t\r\n") != std::string::npos)
      throw input_error(sample_where(path, i, id) + ": a sample ID must be non-empty and without spaces");
    sample_record s;
    switch (o.ids) {
      case vcf_sample_ids::const_fid: s.fid = o.const_fid, s.iid = id; break;
      case vcf_sample_ids::double_id: s.fid = s.iid = id; break;
      case vcf_sample_ids::delimited: {
        // "FID<d>IID" or "FID<d>IID<d>SID" (the SID has no .fam column and is dropped).
        const size_t a = id.find(o.id_delim);
        if (a == std::string::npos)
          throw input_error(sample_where(path, i, id) + ": no '" + std::string(1, o.id_delim) +
                            "' in the sample ID (--id-delim needs FID" + o.id_delim + "IID in every ID)");
        const size_t b = id.find(o.id_delim, a + 1);
        if (b != std::string::npos && id.find(o.id_delim, b + 1) != std::string::npos)
          throw input_error(sample_where(path, i, id) + ": more than two '" + std::string(1, o.id_delim) +
                            "' in the sample ID (--id-delim reads FID, IID and at most an SID)");
        s.fid = id.substr(0, a);
        s.iid = id.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
        if (s.fid.empty() || s.iid.empty() || (b != std::string::npos && b + 1 == id.size()))
          throw input_error(sample_where(path, i, id) + ": an empty part after splitting at '" +
                            std::string(1, o.id_delim) + "'");
        break;
      }
    }
    s.father = s.mother = "0";
    s.sex = 0;
    s.phenotype = "-9";
    const auto [it, fresh] = seen.emplace(s.fid + '\t' + s.iid, i);
    if (!fresh)
      throw input_error(sample_where(path, i, id) + ": FID '" + s.fid + "' IID '" + s.iid +
                        "' again (sample " + std::to_string(it->second + 1) + " has them)");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace pmx::io
