// xcorr correlate: one correlation request over matrix CSV or image inputs.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/device_list.hpp"
#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "core/io/matrix_csv.hpp"
#include "core/io/output_rules.hpp"
#include "core/io/peaks_csv.hpp"
#include "core/peak.hpp"

namespace xcorr::app {
namespace {

struct CorrelateOptions {
  std::string form, left, right, out;
  std::string mode = "full", norm = "none", output = "surface", method = "auto",
              subpixel = "parabolic", accuracy = "fast";
  int summary_rows = 10;
  std::vector<std::string> params;  // "name=value" for --method's variant
  bool quiet = false;
  bool tune = false;
  std::string devices = "0";  // GPUs sharing the results (core/device_list.hpp)
};

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void print_summary(const CorrelateOptions& o, const CorrelationProblem& p,
                   const CorrelationOutput& r, SubpixelMethod subpixel) {
  const bool full = p.request.mode == Mode::full;
  std::printf("%s, %s mode, normalization %s, %s output\n", to_string(p.request.form),
              to_string(p.request.mode), to_string(p.request.norm), to_string(p.request.output));
  std::printf("left   %ld x %s  (%s)\n", static_cast<long>(p.left.count),
              to_string(p.left.shape()).c_str(), o.left.c_str());
  std::printf("right  %ld x %s  (%s)\n", static_cast<long>(p.right.count),
              to_string(p.right.shape()).c_str(), o.right.c_str());
  std::printf("result %ld x %s by %s%s%s in %.3f ms\n", static_cast<long>(r.result.count()),
              to_string(r.result.shape()).c_str(), r.variant.c_str(),
              r.params.empty() ? "" : (" [" + r.params + "]").c_str(),
              o.method == "auto" ? " (auto)" : "", r.seconds * 1e3);
  std::printf("%6s %5s %5s %9s %9s %12s %10s %10s\n", "result", "left", "right", "peak_row",
              "peak_col", "value", full ? "dy_px" : "row_px", full ? "dx_px" : "col_px");
  const Index shown = std::min<Index>(r.result.count(), o.summary_rows);
  for (Index t = 0; t < shown; ++t) {
    const auto [li, ri] = p.pair(t);
    const auto peak = p.request.output == Output::peak
                          ? Result<Peak>(decode_peak(r.result[t].row(0)))
                          : find_peak(r.result[t], subpixel);
    if (!peak.is_ok()) {
      std::printf("%6ld %5ld %5ld  no peak: %s\n", static_cast<long>(t), static_cast<long>(li),
                  static_cast<long>(ri), peak.status().message().c_str());
      continue;
    }
    const Peak& k = peak.value();
    const Displacement d = output_position_to_displacement(p, k.sub_row(), k.sub_col());
    std::printf("%6ld %5ld %5ld %9ld %9ld %12.6g %10s %10s%s\n", static_cast<long>(t),
                static_cast<long>(li), static_cast<long>(ri), static_cast<long>(k.row),
                static_cast<long>(k.col), k.value, fixed(d.dy, 3).c_str(), fixed(d.dx, 3).c_str(),
                k.refined || subpixel == SubpixelMethod::none ? "" : "  (not refined)");
  }
  if (shown < r.result.count())
    std::printf("... %ld more\n", static_cast<long>(r.result.count() - shown));
  std::printf("wrote %s\n", o.out.c_str());
}

// --method (with --param) or auto; with --tune, the measured GPU choice (cached per device),
// else the model prior. A configured variant is kept in `configured`.
Result<const Correlator*> choose_correlator(const CorrelateOptions& o, const CorrelationProblem& p,
                                            std::unique_ptr<Correlator>& configured) {
  const Registry& reg = engine::registry();
  if (o.method == "auto") {
    if (!o.params.empty())
      return Status{ErrorCode::invalid_argument, "--param needs --method NAME, not auto"};
    if (o.tune) {
      XCORR_RETURN_IF_ERROR(p.validate());
      if (auto tuned = engine::tuned_gpu_variant(reg, p); tuned.is_ok()) return tuned.value();
    }
    return choose_variant(reg, p, "auto");
  }
  auto c = choose_variant(reg, p, o.method);
  if (!c.is_ok() || o.params.empty()) return c;
  std::string text;
  for (const auto& s : o.params) text += (text.empty() ? "" : ",") + s;
  auto made = configure_variant(reg, o.method, text);
  if (!made.is_ok()) return made.status();
  configured = std::move(made).value();
  return configured.get();
}

Status run_correlate(const CorrelateOptions& o) {
  CorrelationProblem p;
  const auto form = parse_form(o.form);
  const auto mode = parse_mode(o.mode);
  const auto norm = parse_normalization(o.norm);
  const auto subpixel = parse_subpixel_method(o.subpixel);
  const auto output = parse_output(o.output);
  const auto accuracy = parse_accuracy(o.accuracy);
  XCORR_CHECK(form && mode && norm && subpixel && output && accuracy,
              "CLI11 validated the enum options");
  p.request = {*form, *mode, *norm, *output, *subpixel, *accuracy};

  // Check the output's format before any work, so a typo costs nothing and writes nothing.
  const std::string ext = io::lowercase_extension(o.out);
  if (*output == Output::peak && ext != ".csv")
    return {ErrorCode::invalid_argument, "output '" + o.out + "' must end in .csv (peak CSV)"};
  if (ext != ".csv" && ext != ".tif" && ext != ".tiff") {
    return {ErrorCode::invalid_argument,
            "output '" + o.out + "' must end in .csv (matrix CSV) or .tif (32-bit float TIFF)"};
  }
  XCORR_RETURN_IF_ERROR(io::check_output_target(o.out));
  XCORR_RETURN_IF_ERROR(
      io::check_outputs({{{"--left", o.left}, {"--right", o.right}}, {{"--out", o.out}}, {}}));
  if (*output == Output::peak && *mode != Mode::valid) {
    return {ErrorCode::invalid_argument,
            "--output peak needs --mode valid (template inside a search window)"};
  }
  auto left = io::read_matrices(o.left);
  if (!left.is_ok()) return left.status();
  auto right = io::read_matrices(o.right);
  if (!right.is_ok()) return right.status();
  p.left = left.value().view();
  p.right = right.value().view();

  std::unique_ptr<Correlator> configured;
  auto chosen = choose_correlator(o, p, configured);
  if (!chosen.is_ok()) return chosen.status();
  // Several GPUs: the chosen variant's results shared among them (engine::on_devices).
  const Correlator* variant = chosen.value();
  std::unique_ptr<Correlator> shared;
  if (o.devices != "0") {
    XCORR_RETURN_IF_ERROR(parse_device_list(o.devices, -1).status());  // the text first
    const auto visible = engine::devices();
    if (!visible.is_ok()) return visible.status();
    auto list = parse_device_list(o.devices, static_cast<int>(visible.value().size()));
    if (!list.is_ok()) return list.status();
    if (list.value() != std::vector<int>{0}) {
      auto split = engine::on_devices(*variant, list.value());
      if (!split.is_ok()) return split.status();
      shared = std::move(split).value();
      variant = shared.get();
    }
  }
  auto result = correlate_with(*variant, p);
  if (!result.is_ok()) return result.status();
  const StackView<const float> out = result.value().result.view();
  if (*output == Output::peak) {
    XCORR_RETURN_IF_ERROR(io::write_peaks_csv(o.out, p, out, result.value().variant));
  } else {
    XCORR_RETURN_IF_ERROR(ext == ".csv" ? io::write_matrix_csv(o.out, out)
                                        : io::write_image_stack(o.out, out, io::PixelType::f32));
  }
  if (!o.quiet) print_summary(o, p, result.value(), *subpixel);
  return Status::ok();
}

}  // namespace

Command add_correlate_command(CLI::App& app) {
  auto o = std::make_shared<CorrelateOptions>();
  CLI::App* c = app.add_subcommand(
      "correlate", "Cross-correlate left with right matrices and write the results");
  c->footer(
      "Inputs are matrix CSV ('# rows,cols,count' then the rows) or images: TIFF (multi-page),\n"
      "PNG, BMP, JPEG, or a folder of images. full: out = correlate2d(left, right, 'full').\n"
      "valid: left is the template, right the search window; the peak is the template's\n"
      "top-left position. Result order: one_to_many i=(left,right_i); n_to_mn t=(left[t mod n],\n"
      "right[t]); n_to_m r*m+t=(left_r,right_t).");
  c->add_option("--form", o->form, "Input form")
      ->required()
      ->check(CLI::IsMember({"one_to_one", "one_to_many", "n_to_mn", "n_to_m"}));
  c->add_option("--left", o->left, "Left matrices (CSV, image, multi-page TIFF or folder)")
      ->required();
  c->add_option("--right", o->right, "Right matrices (CSV, image, multi-page TIFF or folder)")
      ->required();
  c->add_option("--out", o->out, "Output: .csv (matrix CSV) or .tif (32-bit float, multi-page)")
      ->required();
  c->add_option("--mode", o->mode, "full or valid")
      ->check(CLI::IsMember({"full", "valid"}))
      ->capture_default_str();
  c->add_option("--norm", o->norm, "none or zncc (zncc needs valid mode)")
      ->check(CLI::IsMember({"none", "zncc"}))
      ->capture_default_str();
  c->add_option("--output", o->output,
                "surface (every shift) or peak (per pair: the maximum and its refinement by "
                "--subpixel; valid mode; written as peak CSV)")
      ->check(CLI::IsMember({"surface", "peak"}))
      ->capture_default_str();
  c->add_option("--method", o->method, "auto or a variant name from `xcorr list`")
      ->capture_default_str();
  c->add_option("--accuracy", o->accuracy,
                "fast: auto picks the fastest variant (FFT errors are relative to the largest "
                "output); exact: only direct variants, each output its own sum (docs/formats.md)")
      ->check(CLI::IsMember({"fast", "exact"}))
      ->capture_default_str();
  c->add_option("--param", o->params,
                "A parameter of --method's variant, name=value (repeatable; see `xcorr list`)");
  c->add_option("--subpixel", o->subpixel,
                "Peak refinement (the summary; with --output peak, the records)")
      ->check(CLI::IsMember({"none", "parabolic", "gaussian", "quadratic2d"}))
      ->capture_default_str();
  c->add_option("--summary-rows", o->summary_rows, "Results listed in the summary")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->add_option("--devices", o->devices,
                "GPUs sharing the results: 0,1 or all (a GPU variant; direct ones give the same "
                "output bit for bit as one GPU: docs/scale-out.md)")
      ->capture_default_str();
  c->add_flag("--tune", o->tune,
              "With --method auto: time the GPU variants on this size once and cache the winner");
  return {c, [o] { return run_correlate(*o); }};
}

}  // namespace xcorr::app
