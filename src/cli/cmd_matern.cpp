// panoramix matern: the Whittle–Matérn covariance (and its parameter derivatives) at the distances
// of a file, or between the samples of a genotype file (thesis chapter 5).
#include "cli/cmd_matern.hpp"

#include <chrono>
#include <fstream>
#include <vector>

#include "cli/common.hpp"
#include "core/checked_number.hpp"
#include "core/number_text.hpp"
#include "panoramix/error.hpp"
#include "panoramix/matern.hpp"
#include "panoramix/output_file.hpp"

namespace pmx::cli {
namespace {

struct matern_cli {
  common_options common;
  std::string distances, method = "auto";
  double nu = 0.5, rho = 1, sigma2 = 1;
  bool standardize = false, derivatives = false;
};

// One distance a line ('#' comments and blank lines skipped); each finite and >= 0, else an
// input_error naming the file and line.
std::vector<double> read_distance_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw input_error(path + ": cannot open the distances file");
  std::vector<double> h;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    const std::string field = line.substr(first, last - first + 1);
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (field.find_first_of(" \t") != std::string::npos)
      throw input_error(where + "expected one distance per line, got '" + field + "'");
    double v = 0;
    switch (detail::parse_number_text(field, v)) {
      case detail::number_text_status::not_a_number:
        throw input_error(where + "distance '" + field + "' is not a number");
      case detail::number_text_status::not_finite:
        throw input_error(where + "distance '" + field + "' is not finite");
      case detail::number_text_status::ok: break;
    }
    if (v < 0) throw input_error(where + "distance must be >= 0 (got " + field + ")");
    h.push_back(v);
  }
  if (h.empty()) throw input_error(path + ": no distances");
  return h;
}

struct outputs {
  std::vector<double> v[5];
  matern_outputs view(int64_t n, bool derivatives) {
    for (int o = 0; o < (derivatives ? 5 : 1); ++o) v[o].resize(static_cast<size_t>(n));
    if (!derivatives) return {v[0].data()};
    return {v[0].data(), v[1].data(), v[2].data(), v[3].data(), v[4].data()};
  }
};
constexpr const char* output_names[5] = {"C", "DSIGMA2", "DRHO", "DNU", "D2NU"};
constexpr const char* output_suffixes[5] = {"", ".dsigma2", ".drho", ".dnu", ".d2nu"};

// --method auto: the fastest route that meets the accuracy for what is asked
// (bench/RESULTS.md): on the GPU, C alone by the host-device closed form (tens to hundreds of flops
// a distance against the trapezoid's 72-88 exps); otherwise the trapezoid route (on the CPU 5-7
// times faster a core than Boost's cyl_bessel_k for C alone, 18-24 times faster than Boost with
// finite differences for the ν-derivatives, and exact in ν). Above the quadrature tables' range of
// ν only the closed form serves C.
matern_method resolve_method(const std::string& requested, bool derivatives, const executor& exec,
                             const matern_params& p, run_log& log) {
  matern_method m = matern_method::trapezoid;
  if (requested == "bessel") m = matern_method::bessel;
  else if (requested == "quadrature") m = matern_method::quadrature;
  else if (requested == "auto" && !derivatives && (exec.kind() == backend::cuda || p.nu > matern_max_nu))
    m = matern_method::bessel;
  if (m != matern_method::bessel && p.nu > matern_max_nu)
    throw input_error("--nu " + detail::number_text(p.nu) + " is above the quadrature's range (<= " +
                      detail::number_text(matern_max_nu) + "); use --method bessel");
  if (m == matern_method::bessel && derivatives && exec.kind() == backend::cuda)
    throw input_error("--method bessel has no nu-derivatives on cuda; use --method trapezoid (or --device cpu for "
                      "Boost with finite differences)");
  log.message(std::string("Method: ") + matern_method_name(m) + (requested == "auto" ? " (--method auto)" : ""));
  return m;
}

void evaluate(const executor& exec, const matern_params& p, const std::string& requested, const std::vector<double>& h,
              outputs& o, bool derivatives, run_log& log) {
  const matern_method m = resolve_method(requested, derivatives, exec, p, log);
  int64_t small = 0;
  for (double x : h) small += matern_small_distance(p, x, m);
  if (small)
    log.message("Note: " + std::to_string(small) + " distances have 0 < h and nu h^2 / (2 rho^2) < " +
                (m == matern_method::quadrature ? "1e-12" : "1e-300") +
                ", below the exp-sinh table's domain: their values miss the integrals' part below u = "
                "2.4e-16, which at small nu is most of 1 - C/sigma2 (use --method bessel for C there)");
  log.begin("Matern covariance");
  const auto t0 = std::chrono::steady_clock::now();
  matern_covariance(exec, p, m, h.data(), static_cast<int64_t>(h.size()), o.view(static_cast<int64_t>(h.size()), derivatives));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  log.end();
  log.message(std::to_string(h.size()) + " evaluations in " + detail::number_text(s, 4) + " s (" +
              matern_method_name(m) + ")");
}

}  // namespace

void add_matern_command(CLI::App& app, int argc, char** argv, int& status) {
  auto c = std::make_shared<matern_cli>();
  auto* cmd = app.add_subcommand("matern", "Whittle-Matern covariance C(h) and its parameter derivatives");
  cmd->footer(
      "C(h) = sigma2 2^(1-nu)/Gamma(nu) (sqrt(2 nu) h/rho)^nu K_nu(sqrt(2 nu) h/rho).\n"
      "Input (one of):\n"
      "  --distances FILE  one distance h >= 0 a line ('#' comments allowed)\n"
      "  --bfile PREFIX    the samples' Euclidean genotype distances (A1 dosages, missing calls\n"
      "                    mean-imputed) from the exact integer crossproduct; --standardize divides\n"
      "                    D = h^2 by 2 sum p(1-p) (VanRaden GRM units)\n"
      "Methods:\n"
      "  quadrature  exp-sinh quadrature of the integral form on a fixed 2,720-node table; exact\n"
      "              nu-derivatives from the same nodes (cpu or cuda): the reference method\n"
      "  trapezoid   trapezoid rule in ln u (delta = 1/16) with per-call node factors: 72-88 exps a\n"
      "              distance, exact nu-derivatives (cpu or cuda; the exp-sinh sums where it is not\n"
      "              accurate: x = sqrt(2 nu) h / rho beyond ~100, nu beyond ~90)\n"
      "  bessel      the closed form: Boost cyl_bessel_k on the cpu (nu-derivatives by finite\n"
      "              differences); Temme's series / Steed's continued fraction on cuda (C, DSIGMA2,\n"
      "              DRHO only)\n"
      "  auto        (default) bessel for C alone on cuda or above nu = 150, else trapezoid\n"
      "Outputs:\n"
      "  --distances: PREFIX.matern, a header line H C [DSIGMA2 DRHO DNU D2NU] and one row a distance\n"
      "  --bfile: PREFIX.matern.bin (n x n float64, row-major) [+ .matern.dsigma2.bin .matern.drho.bin\n"
      "           .matern.dnu.bin .matern.d2nu.bin with --derivatives] and PREFIX.matern.id\n"
      "Example: panoramix matern --distances d.txt --nu 1.5 --rho 2 --derivatives --out m");
  add_common_options(cmd, c->common, true);
  cmd->add_option("--distances", c->distances, "file of distances, one a line");
  cmd->add_flag("--standardize", c->standardize, "genotype distances in VanRaden GRM units");
  cmd->add_option("--nu", c->nu, "smoothness nu > 0 (default 0.5)");
  cmd->add_option("--rho", c->rho, "range rho > 0 (default 1)");
  cmd->add_option("--sigma2", c->sigma2, "variance sigma2 > 0 (default 1)");
  cmd->add_flag("--derivatives", c->derivatives, "also dC/dsigma2, dC/drho, dC/dnu, d2C/dnu2");
  cmd->add_option("--method", c->method,
                  "auto|quadrature|trapezoid|bessel (default auto: bessel for C alone on cuda, else trapezoid)")
      ->check(CLI::IsMember({"auto", "quadrature", "trapezoid", "bessel"}));
  cmd->callback([c, argc, argv, &status] {
    status = run_command(c->common.out, argc, argv, [&](run_log& log) {
      check_common_options(c->common);
      detail::require_number(c->nu, "--nu", detail::number_range::above(0));
      detail::require_number(c->rho, "--rho", detail::number_range::above(0));
      detail::require_number(c->sigma2, "--sigma2", detail::number_range::above(0));
      if (c->distances.empty() == c->common.bfile.empty())
        throw input_error("give exactly one of --distances FILE and --bfile/--vcf/--bcf");
      if (c->standardize && !c->distances.empty()) throw input_error("--standardize applies to genotype distances only");
      check_output_prefix(c->common.out);
      const matern_params p{c->sigma2, c->rho, c->nu};
      log.message("Matern parameters: sigma2 = " + detail::number_text(p.sigma2) + ", rho = " +
                  detail::number_text(p.rho) + ", nu = " + detail::number_text(p.nu));
      outputs o;
      const int n_out = c->derivatives ? 5 : 1;
      if (!c->distances.empty()) {
        const std::vector<double> h = read_distance_file(c->distances);
        const executor exec = make_executor(c->common, log);
        evaluate(exec, p, c->method, h, o, c->derivatives, log);
        output_group out;
        auto& f = out.add(c->common.out + ".matern");
        f.write("H");
        for (int k = 0; k < n_out; ++k) f.printf("\t%s", output_names[k]);
        f.write("\n");
        for (size_t i = 0; i < h.size(); ++i) {
          f.printf("%.17g", h[i]);
          for (int k = 0; k < n_out; ++k) f.printf("\t%.17g", o.v[k][i]);
          f.write("\n");
        }
        out.commit_all();
        log.message("Written: " + c->common.out + ".matern");
        return;
      }
      auto data = open_input(c->common, log);
      const executor exec = make_executor(c->common, log);
      log.begin("genotype distances");
      genotype_distance_result d = genotype_distances(exec, *data, c->standardize, &log);
      log.end();
      log.message("Distances between " + std::to_string(d.n) + " samples from " + std::to_string(d.n_variants) +
                  " variants" + (c->standardize ? " (D / " + detail::number_text(d.scale, 8) + ")" : ""));
      const std::vector<double> h(d.h.data(), d.h.data() + d.h.size());
      d.h = {};
      evaluate(exec, p, c->method, h, o, c->derivatives, log);
      output_group out;
      for (int k = 0; k < n_out; ++k)
        out.add(c->common.out + ".matern" + output_suffixes[k] + ".bin").write(o.v[k].data(), o.v[k].size() * sizeof(double));
      auto& ids = out.add(c->common.out + ".matern.id");
      ids.write("#FID\tIID\n");
      for (int64_t i = 0; i < data->n_samples(); ++i)
        ids.printf("%s\t%s\n", data->sample(i).fid.c_str(), data->sample(i).iid.c_str());
      out.commit_all();
      log.message("Written: " + c->common.out + ".matern.bin" + (c->derivatives ? " (+ derivatives)" : "") + ", .matern.id");
    });
  });
}

}  // namespace pmx::cli
