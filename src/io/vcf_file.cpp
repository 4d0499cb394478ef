// VCF/BCF reader on htslib: htslib parses records and decompresses BGZF (on its own threads); this
// file keeps plink2's import rules (which records, which names) and writes each kept record's
// calls straight into a 2-bit row.
#include <errno.h>
#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/hts.h>
#include <htslib/kseq.h>
#include <htslib/vcf.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <unordered_set>

#include "io/vcf_calls.hpp"
#include "io/vcf_text_calls.hpp"
#include "io/vcf_sample_ids.hpp"
#include "panoramix/error.hpp"
#include "panoramix/vcf_files.hpp"

namespace pmx {

static_assert(bcf_gt_missing == 0 && bcf_int32_vector_end == io::gt_vector_end && bcf_int8_vector_end == io::gt8_vector_end &&
                  bcf_int32_missing == io::int_missing && bcf_int32_vector_end == io::int_vector_end,
              "vcf_calls.hpp restates htslib's encoding");

bool vcf_compiled_in() { return true; }

namespace {

struct hts_file_closer {
  void operator()(htsFile* f) const { hts_close(f); }
};
struct header_destroyer {
  void operator()(bcf_hdr_t* h) const { bcf_hdr_destroy(h); }
};
struct record_destroyer {
  void operator()(bcf1_t* r) const { bcf_destroy(r); }
};
// htslib's bcf_get_* buffers (realloc'ed by htslib, freed with free()).
template <class T>
struct hts_buffer {
  T* data = nullptr;
  int capacity = 0;
  ~hts_buffer() { std::free(data); }
};

struct kstring_guard {
  kstring_t s = {0, 0, nullptr};
  ~kstring_guard() { std::free(s.s); }
};

// Where the tab-separated column `k` (0-based) of a line starts: its offset, or npos when the line
// has fewer columns.
size_t column_start(const char* line, size_t length, int k) {
  size_t at = 0;
  for (int c = 0; c < k; ++c) {
    const void* tab = std::memchr(line + at, '\t', length - at);
    if (!tab) return std::string::npos;
    at = static_cast<size_t>(static_cast<const char*>(tab) - line) + 1;
  }
  return at;
}

std::string describe_format(const htsFormat& f) {
  std::string s = f.format == bcf ? "BCF" : "VCF";
  if (f.compression == bgzf) s += ", bgzip";
  if (f.compression == gzip) s += ", gzip";
  return s;
}

// What htslib's record error bits mean, in words.
std::string record_errors(int code) {
  std::string s;
  auto add = [&](int bit, const char* what) {
    if (code & bit) s += (s.empty() ? "" : "; ") + std::string(what);
  };
  add(BCF_ERR_CTG_UNDEF, "a contig the header does not define");
  add(BCF_ERR_TAG_UNDEF, "a tag the header does not define");
  add(BCF_ERR_NCOLS, "the wrong number of columns");
  add(BCF_ERR_LIMITS, "a value beyond htslib's limits");
  add(BCF_ERR_CHAR, "an invalid character");
  add(BCF_ERR_CTG_INVALID, "an invalid contig name");
  add(BCF_ERR_TAG_INVALID, "an invalid tag");
  return s.empty() ? "a malformed record" : s;
}

// The reader's place in the compressed file, for progress (0 where it cannot tell).
double fraction_read(htsFile* fp, double file_bytes) {
  if (file_bytes <= 0) return 0;
  off_t at = 0;
  if (fp->is_bgzf) at = static_cast<off_t>(bgzf_tell(fp->fp.bgzf) >> 16);
  else if (fp->format.format == vcf && fp->format.compression == no_compression && fp->fp.hfile)
    at = htell(fp->fp.hfile);
  return std::clamp(static_cast<double>(at) / file_bytes, 0.0, 1.0);
}

// A BGZF block that would not inflate or failed its CRC: htslib may report it as the end of the
// file, so the reader asks after every record and at the end.
bool compressed_data_error(htsFile* fp) { return fp->is_bgzf && fp->fp.bgzf->errcode != 0; }

// Whether the POS field of the VCF line htslib just parsed is "0" (htslib reads a non-number as 0).
bool pos_field_is_zero(const kstring_t& line) {
  if (!line.s) return false;
  // htslib may have cut the fields apart in place: a tab or a NUL separates them.
  const char* p = line.s;
  const char* end = line.s + line.l;
  while (p < end && *p != '\t' && *p != '\0') ++p;
  if (p == end) return false;
  ++p;
  bool digit = false;
  for (; p < end && *p != '\t' && *p != '\0'; ++p) {
    if (*p != '0') return false;
    digit = true;
  }
  return digit;
}

// FORMAT values of `tag` as integers per sample (a Float field floored: x < m <=> floor(x) < m for
// integer m). Returns the values per sample, 0 when the record has no such field.
int format_ints(const bcf_hdr_t* hdr, bcf1_t* rec, const char* tag, hts_buffer<int32_t>& ints,
                hts_buffer<float>& floats) {
  const int n = bcf_get_format_int32(hdr, rec, tag, &ints.data, &ints.capacity);
  if (n != -2) return n > 0 ? n / bcf_hdr_nsamples(hdr) : 0;
  const int nf = bcf_get_format_float(hdr, rec, tag, &floats.data, &floats.capacity);  // Type=Float
  if (nf <= 0) return 0;
  if (ints.capacity < nf) {
    ints.data = static_cast<int32_t*>(std::realloc(ints.data, sizeof(int32_t) * static_cast<size_t>(nf)));
    if (!ints.data) throw std::bad_alloc();
    ints.capacity = nf;
  }
  for (int k = 0; k < nf; ++k) {
    const float x = floats.data[k];
    ints.data[k] = bcf_float_is_vector_end(x) ? io::int_vector_end
                   : bcf_float_is_missing(x) || std::isnan(x) ? io::int_missing
                                                                   : io::floored_format_value(x);
  }
  return nf / bcf_hdr_nsamples(hdr);
}

}  // namespace

vcf_genotypes::vcf_genotypes(const std::string& path, const vcf_options& opt, progress_sink* progress)
    : decoded_genotypes(path) {
  // The library never prints: htslib's own messages are off, ours name the file and record.
  hts_set_log_level(HTS_LOG_OFF);
  errno = 0;
  std::unique_ptr<htsFile, hts_file_closer> fp(hts_open(path.c_str(), "r"));
  if (!fp)
    throw input_error("VCF/BCF file '" + path + "' cannot be opened" +
                      (errno ? std::string(": ") + std::strerror(errno) : std::string()));
  const htsFormat& fmt = *hts_get_format(fp.get());
  if (fmt.format != vcf && fmt.format != bcf) {
    char* what = hts_format_description(&fmt);
    const std::string seen = what ? what : "unknown";
    std::free(what);
    throw input_error(path + ": not a VCF or BCF file (" + seen + ")");
  }
  format_ = describe_format(fmt);
  // A BGZF file ends with an empty block; without it the file was cut short (maybe at a block
  // boundary, where nothing else would notice).
  if (fmt.compression == bgzf && bgzf_check_EOF(fp->fp.bgzf) == 0)
    throw input_error(path + ": truncated: the BGZF end-of-file block is missing (an interrupted "
                      "copy or download?)");
  if (opt.threads > 0 && fmt.compression != no_compression) hts_set_threads(fp.get(), opt.threads);

  std::unique_ptr<bcf_hdr_t, header_destroyer> hdr(bcf_hdr_read(fp.get()));
  if (!hdr) throw input_error(path + ": cannot read the " + format_ + " header (corrupt or truncated file?)");
  const int64_t n = bcf_hdr_nsamples(hdr.get());
  if (n == 0) throw input_error(path + ": no samples (a VCF without genotype columns)");
  std::vector<std::string> ids(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ids[static_cast<size_t>(i)] = hdr->samples[i];
  samples_ = io::vcf_sample_records(ids, opt, path);
  row_bytes_ = (n + 3) / 4;
  const int gt_id = bcf_hdr_id2int(hdr.get(), BCF_DT_ID, "GT");
  const bool gt_declared = gt_id >= 0 && bcf_hdr_idinfo_exists(hdr.get(), BCF_HL_FMT, gt_id);
  bool gt_seen = false;

  struct stat st {};
  const double file_bytes = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? double(st.st_size) : 0;

  // VCF text: htslib parses the eight fixed columns of each line (against a copy of the header
  // without samples) and the sample columns are read here straight into the row
  // (vcf_text_calls.hpp); BCF records are read whole by htslib.
  const bool text = fmt.format == vcf;
  std::unique_ptr<bcf_hdr_t, header_destroyer> fixed(text ? bcf_hdr_subset(hdr.get(), 0, nullptr, nullptr) : nullptr);
  if (text && !fixed) throw input_error(path + ": cannot read the " + format_ + " header");
  kstring_guard line, head;  // the line as read; its eight fixed columns for htslib
  size_t format_at = std::string::npos;  // where the line's FORMAT column starts
  std::vector<int32_t> text_gq, text_dp;
  auto read_record = [&](bcf1_t* r) -> int {
    if (!text) return bcf_read(fp.get(), hdr.get(), r);
    const int got = hts_getline(fp.get(), KS_SEP_LINE, &line.s);
    if (got < 0) return got;
    while (line.s.l > 0 && line.s.s[line.s.l - 1] == '\r') line.s.s[--line.s.l] = '\0';
    format_at = column_start(line.s.s, line.s.l, 8);
    const size_t fixed_length = format_at == std::string::npos ? line.s.l : format_at - 1;
    head.s.l = 0;
    kputsn(line.s.s, fixed_length, &head.s);
    if (vcf_parse(&head.s, fixed.get(), r) < 0 && r->errcode == 0) r->errcode = BCF_ERR_CHAR;
    return 0;
  };
  // Sample columns of a text line (0 when it ends at or before FORMAT).
  auto text_samples = [&]() -> std::pair<const char*, const char*> {
    if (format_at == std::string::npos) return {nullptr, nullptr};
    const char* f = line.s.s + format_at;
    const char* end = line.s.s + line.s.l;
    const void* tab = std::memchr(f, '\t', static_cast<size_t>(end - f));
    if (!tab) return {nullptr, nullptr};
    return {static_cast<const char*>(tab) + 1, end};
  };

  std::unique_ptr<bcf1_t, record_destroyer> rec(bcf_init());
  hts_buffer<int32_t> gt, ints;
  hts_buffer<float> floats;
  std::string chrom, last_chrom_name;
  std::unordered_set<std::string> finished;  // chromosomes already left behind
  int64_t last_pos = 0;
  std::string last_locus = "the header";  // the last record read whole, for a message about the next
  auto locus = [&](int64_t record) {
    return "record " + std::to_string(record) + " (" + last_chrom_name + ":" + std::to_string(rec->pos + 1) + ")";
  };
  auto where = [&](int64_t record) { return path + ": " + locus(record); };
  // A contig or tag the header does not declare: htslib adds it to the header and reads the
  // record on, as plink2 does; the other error bits mean a record it could not read.
  const int tolerated = BCF_ERR_CTG_UNDEF | BCF_ERR_TAG_UNDEF;
  int status = 0;
  while ((status = read_record(rec.get())) == 0) {
    const int64_t r = ++counts_.records;
    last_chrom_name = bcf_seqname_safe(text ? fixed.get() : hdr.get(), rec.get());
    if (compressed_data_error(fp.get()))
      throw input_error(where(r) + ": corrupt or truncated compressed data");
    if (rec->errcode & ~tolerated)
      throw input_error(where(r) + ": " + record_errors(rec->errcode & ~tolerated));
    // htslib reads a line without FORMAT and sample columns as a record without calls, and a POS
    // that is not a number as 0: a VCF line cut short, or a broken one.
    if (!text && rec->n_sample != static_cast<uint32_t>(n))
      throw input_error(where(r) + ": " + std::to_string(rec->n_sample) + " sample columns, the header names " +
                        std::to_string(n) + " (a line cut short?)");
    if (text && text_samples().first == nullptr)
      throw input_error(where(r) + ": 0 sample columns, the header names " + std::to_string(n) + " (a line cut short?)");
    if (rec->pos < 0 && text && !pos_field_is_zero(line.s))
      throw input_error(where(r) + ": POS is not a number");
    last_locus = locus(r);
    if (bcf_unpack(rec.get(), BCF_UN_STR) != 0) throw input_error(where(r) + ": cannot unpack the record");
    // plink2 --max-alleles 2 --snps-only: one ALT at most, every allele one character.
    if (rec->n_allele > 2) {
      ++counts_.multiallelic;
      continue;
    }
    if (rec->n_allele < 1 || std::strlen(rec->d.allele[0]) != 1 ||
        (rec->n_allele == 2 && std::strlen(rec->d.allele[1]) != 1)) {
      ++counts_.non_snp;
      continue;
    }
    const std::string name = opt.chromosomes.canonical(last_chrom_name);
    if (name != chrom) {
      if (finished.count(name))
        throw input_error(where(r) + ": chromosome " + name + " comes back after other chromosomes; "
                          "records must be grouped by chromosome, as plink2 requires (sort the file, "
                          "e.g. bcftools sort)");
      if (!chrom.empty()) finished.insert(chrom);
      chrom = name;
    } else if (rec->pos + 1 < last_pos) {
      ++counts_.unsorted;
    }
    last_pos = rec->pos + 1;

    const size_t at = rows_.size();
    rows_.resize(at + static_cast<size_t>(row_bytes_), 0);
    uint8_t* row = rows_.data() + at;
    io::format_keys keys;
    if (text) {
      const char* f = line.s.s + format_at;
      keys = io::find_format_keys({f, static_cast<size_t>(text_samples().first - 1 - f)});
    }
    // BCF: the record's own 8-bit GT values where it stores them so (fewer than 63 alleles), read in
    // place; others through htslib's widening copy.
    const bcf_fmt_t* gt8 = nullptr;
    if (!text && bcf_unpack(rec.get(), BCF_UN_FMT) == 0) {
      const bcf_fmt_t* f = bcf_get_fmt(hdr.get(), rec.get(), "GT");
      if (f && f->p && f->type == BCF_BT_INT8 && f->n > 0) gt8 = f;
    }
    const int ngt = text   ? (keys.gt >= 0 ? 1 : 0)
                    : gt8 ? gt8->n * static_cast<int>(n)
                          : bcf_get_genotypes(hdr.get(), rec.get(), &gt.data, &gt.capacity);
    if (ngt <= 0) {
      if (!gt_declared && !gt_seen)
        throw input_error(where(r) + ": no GT field, and the header declares no FORMAT/GT: there are "
                          "no genotype calls to read");
      ++counts_.without_gt;  // plink2 keeps such a record with every call missing
      for (int64_t i = 0; i < n; ++i) row[i >> 2] |= static_cast<uint8_t>(code_missing << (2 * (i & 3)));
    } else {
      gt_seen = true;
      io::gt_row_problem problem;
      if (text) {
        const auto [begin, end] = text_samples();
        const io::text_row t = io::encode_gt_text(begin, end, n, keys, rec->n_allele, opt.half_call, row,
                                                  opt.min_gq >= 0 ? &text_gq : nullptr,
                                                  opt.min_dp >= 0 ? &text_dp : nullptr);
        if (t.columns != n && t.problem.sample < 0)
          throw input_error(where(r) + ": the wrong number of columns: " +
                            (t.columns > n ? "more than " + std::to_string(n) : std::to_string(t.columns)) +
                            " sample columns, the header names " + std::to_string(n));
        counts_.half_calls += t.half_calls;
        problem = t.problem;
      } else if (gt8) {
        counts_.half_calls += io::encode_gt_row8(reinterpret_cast<const int8_t*>(gt8->p), gt8->n, n, rec->n_allele,
                                                 opt.half_call, row, problem);
      } else {
        counts_.half_calls += io::encode_gt_row(gt.data, ngt / static_cast<int>(n), n, rec->n_allele,
                                                opt.half_call, row, problem);
      }
      if (problem.sample >= 0) {
        const std::string who = "sample '" + ids[static_cast<size_t>(problem.sample)] + "'";
        if (problem.what == io::gt_row_problem::kind::half_call)
          throw input_error(where(r) + ": " + who + " has a half-call (one allele missing, as in "
                            "'./1'); say what it means with --vcf-half-call missing|haploid|reference");
        if (problem.what == io::gt_row_problem::kind::malformed)
          throw input_error(where(r) + ": " + who + " has a GT that is not alleles separated by '/' or '|'");
        throw input_error(where(r) + ": " + who + " has GT allele " + std::to_string(problem.allele) +
                          " but the record has " + std::to_string(rec->n_allele) + " allele(s)");
      }
      if (opt.min_gq >= 0) {
        if (text) {
          if (keys.gq >= 0) counts_.gq_masked += io::mask_below(text_gq.data(), 1, n, opt.min_gq, row);
        } else if (const int stride = format_ints(hdr.get(), rec.get(), "GQ", ints, floats); stride > 0) {
          counts_.gq_masked += io::mask_below(ints.data, stride, n, opt.min_gq, row);
        }
      }
      if (opt.min_dp >= 0) {
        if (text) {
          if (keys.dp >= 0) counts_.dp_masked += io::mask_below(text_dp.data(), 1, n, opt.min_dp, row);
        } else if (const int stride = format_ints(hdr.get(), rec.get(), "DP", ints, floats); stride > 0) {
          counts_.dp_masked += io::mask_below(ints.data, stride, n, opt.min_dp, row);
        }
      }
    }
    variant_record v;
    v.chrom = name;
    v.id = rec->d.id ? rec->d.id : ".";
    v.pos = rec->pos + 1;
    v.a2 = rec->d.allele[0];
    v.a1 = rec->n_allele == 2 ? rec->d.allele[1] : ".";
    variants_.push_back(std::move(v));
    if ((r & 4095) == 0) report(progress, "read " + format_, fraction_read(fp.get(), file_bytes));
  }
  // bcf_read: -1 at the end of the file, below -1 on a read error; a record htslib could not parse
  // may also come back as -1 with its error bits set.
  if (status < -1 || (rec->errcode & ~tolerated) || compressed_data_error(fp.get())) {
    const std::string what = compressed_data_error(fp.get())  ? "corrupt or truncated compressed data"
                             : rec->errcode & ~tolerated ? record_errors(rec->errcode & ~tolerated)
                             : fmt.compression != no_compression
                                 ? "corrupt or truncated compressed data"
                                 : "a read error or a record htslib cannot parse";
    throw input_error(path + ": record " + std::to_string(counts_.records + 1) + " (after " + last_locus +
                      "): " + what);
  }
  if (hts_close(fp.release()) != 0) throw input_error(path + ": error at the end of the file (truncated?)");
  report(progress, "read " + format_, 1.0);
}

}  // namespace pmx
