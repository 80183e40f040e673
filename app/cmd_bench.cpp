// xcorr bench: times each GPU variant, `auto` (model prior) and `auto_tuned` (measured choice,
// cached per device) on the anchor case matrix (full mode;
// shared/data/anchors-h200-2026-11-21.json), DIC-shaped pair batches (full mode), and valid-mode
// ZNCC cases, as surfaces and as peak output: DIC-shaped (template 21/31/41 in a window 20 px
// larger, 10^4 pairs) and whole frames (32 in 512^2, 64 and 128 in 2048^2). CUDA events:
// kernel = device-resident, device = the same with the host's enqueueing held outside the events
// (-1: not measurable), e2e = pinned host -> device -> run -> host. Median (and min, p90) of
// repeats after warm-up, plus back-to-back throughput. Writes JSON rows {form, mode, norm, output,
// template, window, pairs, size, n, m, variant, params, kernel_ms, kernel_min_ms, kernel_p90_ms,
// device_ms, device_min_ms, back_to_back_ms, e2e_ms, gflops} (template and window: side lengths in
// px; pairs: the request's results; gflops counts 2 x the direct definition's multiply-adds).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/commands.hpp"
#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/synth/speckle.hpp"

namespace xcorr::app {
namespace {

struct BenchCase {
  Form form;
  int size, n, m;  // n lefts; m rights (one_to_many, n_to_m) or rights per left (n_to_mn)
  const char* group;
  int window = 0;  // valid mode: the window's side (px); 0 = full mode (left and right `size`)
  Output output = Output::surface;
};

// The anchor matrix, DIC-shaped n_to_mn (subsets 21, 31, 41; 10^4 pairs), then valid ZNCC.
const BenchCase kCases[] = {
    {Form::one_to_one, 16, 1, 1, "anchors"},
    {Form::one_to_one, 32, 1, 1, "anchors"},
    {Form::one_to_one, 64, 1, 1, "anchors"},
    {Form::one_to_one, 128, 1, 1, "anchors"},
    {Form::one_to_one, 256, 1, 1, "anchors"},
    {Form::one_to_one, 512, 1, 1, "anchors"},
    {Form::one_to_many, 32, 1, 64, "anchors"},
    {Form::one_to_many, 64, 1, 64, "anchors"},
    {Form::one_to_many, 128, 1, 16, "anchors"},
    {Form::one_to_many, 256, 1, 16, "anchors"},
    {Form::n_to_m, 32, 16, 16, "anchors"},
    {Form::n_to_m, 64, 8, 8, "anchors"},
    {Form::n_to_m, 128, 8, 8, "anchors"},
    {Form::n_to_m, 256, 4, 4, "anchors"},
    {Form::n_to_mn, 16, 4096, 1, "anchors"},
    {Form::n_to_mn, 32, 4096, 1, "anchors"},
    {Form::n_to_mn, 64, 1024, 1, "anchors"},
    {Form::n_to_mn, 128, 256, 1, "anchors"},
    {Form::n_to_mn, 21, 10000, 1, "dic"},
    {Form::n_to_mn, 31, 10000, 1, "dic"},
    {Form::n_to_mn, 41, 10000, 1, "dic"},
    {Form::n_to_mn, 21, 10000, 1, "zncc", 41},
    {Form::n_to_mn, 31, 10000, 1, "zncc", 51},
    {Form::n_to_mn, 41, 10000, 1, "zncc", 61},
    {Form::one_to_one, 32, 1, 1, "zncc", 512},
    {Form::one_to_one, 64, 1, 1, "zncc", 2048},
    {Form::one_to_one, 128, 1, 1, "zncc", 2048},
    {Form::n_to_mn, 21, 10000, 1, "peak", 41, Output::peak},
    {Form::n_to_mn, 31, 10000, 1, "peak", 51, Output::peak},
    {Form::n_to_mn, 41, 10000, 1, "peak", 61, Output::peak},
    {Form::one_to_one, 32, 1, 1, "peak", 512, Output::peak},
    {Form::one_to_one, 64, 1, 1, "peak", 2048, Output::peak},
    {Form::one_to_one, 128, 1, 1, "peak", 2048, Output::peak},
};

struct BenchOptions {
  std::string cases = "all", out = "bench.json";
  std::vector<std::string> variants;  // empty: every GPU variant
  std::vector<std::string> forms;     // empty: every form
  bool with_auto = true;              // time auto and auto_tuned too
  int warmup = 5, repeats = 30;
};

Status run_bench(const BenchOptions& o) {
  const Registry& reg = engine::registry();
  if (std::none_of(reg.all().begin(), reg.all().end(),
                   [](const auto& v) { return engine::is_gpu_variant(*v); })) {
    const auto devices = engine::devices();
    return {ErrorCode::unsupported,
            "no GPU variant to benchmark: " +
                (devices.is_ok() ? std::string("none registered") : devices.status().message())};
  }
  nlohmann::json rows = nlohmann::json::array();
  std::printf("%-12s %5s %6s %4s  %-44s %10s %10s %10s  %s\n", "case", "size", "n", "m", "variant",
              "kernel_ms", "e2e_ms", "GFLOP/s", "params");
  for (const BenchCase& c : kCases) {
    if (o.cases != "all" &&
        ("," + o.cases + ",").find("," + std::string(c.group) + ",") == std::string::npos)
      continue;
    if (!o.forms.empty() && std::none_of(o.forms.begin(), o.forms.end(),
                                         [&](const auto& f) { return parse_form(f) == c.form; }))
      continue;
    const int n_right = c.form == Form::n_to_mn ? c.n * c.m : c.m;
    const int window = c.window > 0 ? c.window : c.size;
    const Stack<float> left = synth::uniform_noise(c.size, c.size, c.n, 1),
                       right = synth::uniform_noise(window, window, n_right, 2);
    const CorrelationProblem p =
        c.window > 0 ? CorrelationProblem{{c.form, Mode::valid, Normalization::zncc, c.output,
                                           SubpixelMethod::quadratic2d},
                                          left.view(),
                                          right.view()}
                     : CorrelationProblem{{c.form, Mode::full}, left.view(), right.view()};
    const double flops = 2 * p.direct_multiply_adds();
    const std::string label = c.window > 0
                                  ? std::string(c.output == Output::peak ? "peak/" : "zncc/") +
                                        to_string(c.form) + "/" + std::to_string(window)
                                  : std::string(to_string(c.form));
    auto emit = [&](const std::string& name, const std::string& params,
                    const engine::GpuTiming& t) {
      const double gflops = flops / (t.kernel_median_ms * 1e-3) / 1e9;
      std::printf("%-12s %5d %6d %4d  %-44s %10.4f %10.4f %10.1f  %s\n", label.c_str(), c.size, c.n,
                  c.m, name.c_str(), t.kernel_median_ms, t.e2e_median_ms, gflops, params.c_str());
      std::fflush(stdout);
      rows.push_back({{"form", to_string(c.form)},
                      {"mode", to_string(p.request.mode)},
                      {"norm", to_string(p.request.norm)},
                      {"output", to_string(p.request.output)},
                      {"template", c.size},
                      {"window", window},
                      {"pairs", p.output_count()},
                      {"size", c.size},
                      {"n", c.n},
                      {"m", c.m},
                      {"variant", name},
                      {"params", params},
                      {"kernel_ms", t.kernel_median_ms},
                      {"kernel_min_ms", t.kernel_min_ms},
                      {"kernel_p90_ms", t.kernel_p90_ms},
                      {"device_ms", t.device_median_ms},
                      {"device_min_ms", t.device_min_ms},
                      {"back_to_back_ms", t.back_to_back_ms},
                      {"e2e_ms", t.e2e_median_ms},
                      {"gflops", gflops}});
    };
    std::map<std::string, engine::GpuTiming> timed;
    for (const auto& v : reg.all()) {
      const std::string& name = v->info().name;
      if (!engine::is_gpu_variant(*v) || !v->can_implement(p).is_ok()) continue;
      if (!o.variants.empty() &&
          std::find(o.variants.begin(), o.variants.end(), name) == o.variants.end())
        continue;
      // Slow baselines (prior > 5 ms, e.g. the warp-shuffle family on 512x512) get 1 + 3 runs.
      const bool slow = v->estimate_seconds(p) > 5e-3;
      auto t = engine::time_on_gpu(*v, p, slow ? 1 : o.warmup, slow ? 3 : o.repeats);
      if (!t.is_ok()) return t.status();
      timed[name] = t.value();
      emit(name, format_params(v->info().params, v->params()), t.value());
    }
    // Variants with parameters ("name:param=value,...") named in --variants, on top.
    for (const std::string& method : o.variants) {
      const std::size_t colon = method.find(':');
      if (colon == std::string::npos) continue;
      auto v = configure_variant(reg, method.substr(0, colon), method.substr(colon + 1));
      if (!v.is_ok()) return v.status();
      if (!engine::is_gpu_variant(*v.value()) || !v.value()->can_implement(p).is_ok()) continue;
      auto t = engine::time_on_gpu(*v.value(), p, o.warmup, o.repeats);
      if (!t.is_ok()) return t.status();
      emit(v.value()->info().name, format_params(v.value()->info().params, v.value()->params()),
           t.value());
    }
    if (!o.with_auto) continue;
    auto chosen = choose_variant(reg, p, "auto", "gpu");
    if (!chosen.is_ok()) return chosen.status();
    const std::string name = chosen.value()->info().name;
    if (!timed.count(name)) {
      auto t = engine::time_on_gpu(*chosen.value(), p, o.warmup, o.repeats);
      if (!t.is_ok()) return t.status();
      timed[name] = t.value();
    }
    emit("auto", "chosen=" + name, timed[name]);
    auto tuned = engine::tuned_gpu_variant(reg, p);
    if (!tuned.is_ok()) return tuned.status();
    const Correlator& tc = *tuned.value();
    const std::string tuned_params = format_params(tc.info().params, tc.params());
    if (timed.count(tc.info().name) && tc.params() != reg.find(tc.info().name)->params()) {
      auto t = engine::time_on_gpu(tc, p, o.warmup, o.repeats);  // tuned parameters: time them
      if (!t.is_ok()) return t.status();
      emit("auto_tuned", "chosen=" + tc.info().name + ":" + tuned_params, t.value());
    } else {
      emit("auto_tuned", "chosen=" + tc.info().name,
           timed.count(tc.info().name) ? timed[tc.info().name] : timed[name]);
    }
  }
  if (rows.empty())
    return {ErrorCode::unsupported,
            "no GPU variant ran: is a CUDA device present? (see `xcorr list`)"};
  return io::write_text_atomically(o.out, rows.dump(1) + "\n");
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* c =
      app.add_subcommand("bench", "Time the GPU variants and auto on the benchmark case matrix");
  c->add_option("--cases", o->cases,
                "anchors, dic, zncc (valid ZNCC surfaces), peak, a comma-separated list of "
                "them, or all")
      ->check([](const std::string& v) -> std::string {
        std::stringstream list(v);
        for (std::string g; std::getline(list, g, ',');) {
          if (g != "anchors" && g != "dic" && g != "zncc" && g != "peak" && g != "all")
            return "'" + g + "' is not a case group (anchors, dic, zncc, peak, all)";
        }
        return {};
      })
      ->capture_default_str();
  c->add_option("--variants", o->variants,
                "Only these variants (default: every GPU variant); name:param=value,... times that "
                "variant with those parameters too");
  c->add_option("--forms", o->forms, "Only cases of these forms (default: every form)")
      ->check(CLI::IsMember({"one_to_one", "one_to_many", "n_to_mn", "n_to_m"}));
  c->add_flag("!--no-auto", o->with_auto, "Leave out auto and auto_tuned (no tuning runs)");
  c->add_option("--warmup", o->warmup, "Untimed runs first")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  c->add_option("--repeats", o->repeats, "Timed runs (median, min, p90)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  c->add_option("--out", o->out, "JSON rows")->capture_default_str();
  return {c, [o] { return run_bench(*o); }};
}

}  // namespace xcorr::app
