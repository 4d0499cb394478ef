// Built instead of the cairo drawings (manhattan_plot.cpp, qq_plot.cpp, plot_canvas.cpp) when
// cairo is not found: `plot` says why it cannot draw.
#include "panoramix/error.hpp"
#include "panoramix/plot_files.hpp"

namespace pmx {

bool plots_compiled_in() { return false; }

void require_plots() {
  throw unsupported_error("this build of panoramix draws no plots (cairo was not found when it was built; "
                          "install libcairo2-dev and rebuild)");
}

plot_drawing write_manhattan_plot(output_group&, const std::string&, const manhattan_layout&, const plot_style&) {
  require_plots();
  return {};
}

plot_drawing write_qq_plot(output_group&, const std::string&, const qq_layout&, const plot_style&) {
  require_plots();
  return {};
}

}  // namespace pmx
