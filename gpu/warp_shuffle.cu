// The warp-shuffle variants (thesis family; the kernel and the meaning of each parameter are in
// gpu/warp_shuffle.cuh). One registered variant per thesis name, each with its parameters:
//   gpu_warp_shuffle                        distribution, rows_per_worker (simple)
//   gpu_warp_shuffle_multimat_right         right_matrices, distribution, rows_per_worker
//   gpu_warp_shuffle_multimat_both          left_matrices, right_matrices, distribution, ...
//   gpu_warp_shuffle_multirow_right         shifts_per_thread (+ distribution: none, triangle)
//   gpu_warp_shuffle_multirow_both          shifts_per_thread, left_rows (+ distribution)
//   gpu_warp_shuffle_multirow_both_multimat_right / _multimat_both: both sets
// When they win: rarely on an H200 (shuffle-bound: at best 1 FMA per ~1 shuffle); they are the
// thesis' baselines that the profiler and the benchmark compare against.
// Constraints: multimat_right needs one left per group of rights (one_to_many, n_to_m,
// n_to_mn), multimat_both n_to_m.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_model.cuh"
#include "gpu/gpu_correlator.cuh"
#include "gpu/variants.cuh"
#include "gpu/warp_shuffle.cuh"

namespace xcorr::gpu {
namespace {

Param shifts_param(std::vector<int> values, int def) {
  return {"shifts_per_thread", std::move(values), def, {}, "output rows per warp (multirow)"};
}
Param left_rows_param(std::vector<int> values, int def) {
  return {"left_rows", std::move(values), def, {}, "template rows per step (multirow_both)"};
}
Param left_mats_param(std::vector<int> values, int def) {
  return {"left_matrices", std::move(values), def, {}, "left matrices per warp (multimat_both)"};
}
Param right_mats_param(std::vector<int> values, int def) {
  return {"right_matrices", std::move(values), def, {}, "right matrices per warp (multimat)"};
}
// The work distribution's parameters: the kinds offered (Distribution values) and their default,
// and the rows per worker offered.
std::vector<Param> distribution_params(std::vector<int> kinds = {0, 1, 2}, int def = 2,
                                       std::vector<int> rows = {1, 4, 16, 64}) {
  static const char* const kNames[] = {"none", "rectangle", "triangle"};
  std::vector<std::string> names;
  for (int k : kinds) names.emplace_back(kNames[k]);
  const int rows_def = std::find(rows.begin(), rows.end(), 16) != rows.end() ? 16 : rows.front();
  return {{"distribution", std::move(kinds), def, std::move(names),
           "how a warp task's template rows are split among workers"},
          {"rows_per_worker",
           std::move(rows),
           rows_def,
           {},
           "template rows per worker (not for none)"}};
}
// The multirow families: the thesis runs them without a distribution (the default here); the
// triangle one is offered for problems with few warp tasks (one_to_many 128 x16: 2048 tasks of
// 4 x 2 rows for the H200's 132 SMs).
std::vector<Param> multirow_distribution_params() {
  return distribution_params({0, 2}, 0, {16});
}
std::vector<Param> join(std::vector<Param> a, const std::vector<Param>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Forms where several rights share a left (n_to_mn: the m rights of each left).
const std::vector<Form> kOneLeftForms = {Form::one_to_many, Form::n_to_m, Form::n_to_mn};

std::vector<VariantInfo> families() {
  auto info = [](std::string name, std::string summary, std::vector<Form> forms,
                 std::vector<Param> params) {
    return VariantInfo{std::move(name),
                       "warp_shuffle",
                       "gpu",
                       std::move(summary),
                       std::move(forms),
                       kBothModes,
                       {Normalization::none, Normalization::zncc},
                       true,
                       std::move(params)};
  };
  return {
      info("gpu_warp_shuffle",
           "thesis' warp shuffle (simple): 32 shifts per warp, values passed by shuffles",
           kAllForms, distribution_params()),
      info("gpu_warp_shuffle_multimat_right",
           "warp shuffle, one left against several rights per warp (thesis multimat_right)",
           kOneLeftForms, join({right_mats_param({2, 4, 8}, 4)}, distribution_params())),
      info("gpu_warp_shuffle_multimat_both",
           "warp shuffle, several lefts x several rights per warp (thesis multimat_both)",
           {Form::n_to_m},
           join({left_mats_param({2, 4, 8}, 2), right_mats_param({2, 4, 8}, 2)},
                distribution_params())),
      info("gpu_warp_shuffle_multirow_right",
           "warp shuffle, several output rows per warp from one template row (multirow_right)",
           kAllForms, join({shifts_param({2, 4, 8}, 4)}, multirow_distribution_params())),
      info("gpu_warp_shuffle_multirow_both",
           "warp shuffle, several output rows from several template rows (multirow_both)",
           kAllForms,
           join({shifts_param({2, 4}, 4), left_rows_param({2, 4}, 2)},
                multirow_distribution_params())),
      info("gpu_warp_shuffle_multirow_both_multimat_right",
           "warp shuffle multirow_both + multimat_right", kOneLeftForms,
           join({shifts_param({2, 4}, 4), left_rows_param({2}, 2), right_mats_param({2, 4}, 2)},
                multirow_distribution_params())),
      info("gpu_warp_shuffle_multirow_both_multimat_both",
           "warp shuffle multirow_both + multimat_both", {Form::n_to_m},
           join({shifts_param({2, 4}, 2), left_rows_param({2}, 2), left_mats_param({2}, 2),
                 right_mats_param({2, 4}, 2)},
                multirow_distribution_params())),
  };
}

// The shape a run uses: matrices per warp halved while half still covers the matrices the problem
// has (four right slots for one right per left would compute three dead sums), as long as the
// halved shape is instantiated.
ShuffleShape shape_for(ShuffleShape s, Form form, int n_left, int n_right) {
  const int lefts = form == Form::n_to_m ? n_left : 1;
  const int rights = form == Form::n_to_mn ? n_right / n_left : n_right;
  const auto instantiated = [](const ShuffleShape& t) {
    return find_multimat_instance(t) != nullptr || find_multirow_instance(t) != nullptr;
  };
  for (ShuffleShape t = s; t.left_mats > 1 && t.left_mats / 2 >= lefts;) {
    t.left_mats /= 2;
    if (!instantiated(t)) break;
    s = t;
  }
  for (ShuffleShape t = s; t.right_mats > 1 && t.right_mats / 2 >= rights;) {
    t.right_mats /= 2;
    if (!instantiated(t)) break;
    s = t;
  }
  return s;
}

int value_or(const ParamValues& v, const char* name, int fallback) {
  const auto it = v.find(name);
  return it == v.end() ? fallback : it->second;
}

class WarpShuffleCorrelator final : public GpuCorrelator {
 public:
  WarpShuffleCorrelator(VariantInfo info, ParamValues values)
      : info_(std::move(info)), values_(std::move(values)) {
    shape_ = {value_or(values_, "shifts_per_thread", 1), value_or(values_, "left_rows", 1),
              value_or(values_, "left_matrices", 1), value_or(values_, "right_matrices", 1)};
    distribution_ = static_cast<Distribution>(value_or(values_, "distribution", 0));
    rows_per_worker_ = value_or(values_, "rows_per_worker", 1);
  }

  const VariantInfo& info() const override { return info_; }
  ParamValues params() const override { return values_; }

  Result<std::unique_ptr<Correlator>> with_params(const ParamValues& values) const override {
    auto all = complete_params(info_.name, info_.params, values);
    if (!all.is_ok()) return all.status();
    return std::unique_ptr<Correlator>(
        std::make_unique<WarpShuffleCorrelator>(info_, std::move(all).value()));
  }

  double kernel_seconds(const CorrelationProblem& p) const override {
    // Shuffle-bound prior: the kernel's warp steps counted as it walks them (32 per right-column
    // chunk, every template row group), NR*(S+LR-1) + 2*NL*LR shuffles each, at 1.8e11 warp
    // shuffles/s (H200 run 55: 1.1-2.4e11, median 1.8e11, on every warp-shuffle row above
    // 0.3 ms), scaled down when there are fewer warp tasks than 16 per SM to hide the
    // shuffles' latency (one_to_one 128: 2e10).
    const ShuffleShape s = shape_for(shape_, p.request.form, static_cast<int>(p.left.count),
                                     static_cast<int>(p.right.count));
    const double shuffles =
        s.right_mats * (s.shifts + s.left_rows - 1) + 2.0 * s.left_mats * s.left_rows;
    const Steps st = warp_steps(p, s);
    const double rate = compute_rate(1.8e11) * std::min(1.0, st.tasks / (16.0 * sm_count()));
    // A floor for few pairs, where the warps' serial chains, not the shuffle rate, bound the
    // time: >= 8 us + 10 ns per template element (H200, runs 45-51: one_to_one 16 / 32 / 64
    // took 18-32 / 30-97 / 52-364 us across the family; without it auto picked
    // gpu_warp_shuffle_multirow_both for one_to_one 32 at 4x gpu_small_direct's time).
    const double floor =
        8e-6 + 1e-8 * static_cast<double>(p.left.rows) * static_cast<double>(p.left.cols);
    return std::max(8e-6 + st.steps * shuffles / rate, floor) + transfer_seconds(p);
  }

  // Warp steps and warp tasks of a run (what warp_shuffle_kernel and run_kernels do).
  struct Steps {
    double steps = 0, tasks = 0;
  };
  Steps warp_steps(const CorrelationProblem& p, const ShuffleShape& shape) const {
    const bool full = p.request.mode == Mode::full;
    const int h = p.left.rows, w = p.left.cols, H = p.right.rows, W = p.right.cols;
    const Shape out = p.surface_shape();
    const int n_left = p.left.count, n_right = p.right.count;
    double pair_groups = 1;
    switch (p.request.form) {
      case Form::one_to_one:
        break;
      case Form::one_to_many:
        pair_groups = (n_right + shape.right_mats - 1) / shape.right_mats;
        break;
      case Form::n_to_m:
        pair_groups = static_cast<double>((n_left + shape.left_mats - 1) / shape.left_mats) *
                      ((n_right + shape.right_mats - 1) / shape.right_mats);
        break;
      case Form::n_to_mn:
        pair_groups = static_cast<double>(n_left) *
                      ((n_right / n_left + shape.right_mats - 1) / shape.right_mats);
        break;
    }
    double x_steps = 0, chunks = 0;  // summed over the 32-column chunks
    for (int c0 = 0; c0 < out.cols; c0 += 32, ++chunks) {
      const int e0 = full ? c0 - (w - 1) : -c0;
      const int lo = std::max(0, full ? -e0 - 31 : -e0),
                hi = std::min(W, full ? w - e0 : w - e0 + 31);
      if (hi > lo) x_steps += 32.0 * ((hi - lo + 31) / 32);
    }
    double row_steps = 0, workers = 0;  // summed over the row groups
    for (int r0 = 0; r0 < out.rows; r0 += shape.shifts) {
      const int2 rows = shuffle_template_rows(p.request.mode, r0, shape.shifts, out.rows, h, H);
      const int n = std::max(0, rows.y - rows.x);
      row_steps += (n + shape.left_rows - 1) / shape.left_rows;
      workers += distribution_ == Distribution::none
                     ? 1
                     : std::max(1, (n + rows_per_worker_ - 1) / rows_per_worker_);
    }
    return {pair_groups * x_steps * row_steps, pair_groups * chunks * workers};
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    const ShuffleShape shape = shape_for(shape_, p.request.form, p.n_left, p.n_right);
    const ShuffleInstance* inst = find_multimat_instance(shape);
    if (inst == nullptr) inst = find_multirow_instance(shape);
    if (inst == nullptr) return {};
    return {{"warp_shuffle_kernel",
             p.request.mode == Mode::full ? inst->full_kernel : inst->valid_kernel, 128, 0}};
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const ShuffleShape shape = shape_for(shape_, p.request.form, p.n_left, p.n_right);
    const ShuffleInstance* inst = find_multimat_instance(shape);
    if (inst == nullptr) inst = find_multirow_instance(shape);
    if (inst == nullptr) {
      return {ErrorCode::internal, info_.name + ": shape " + format_params(info_.params, values_) +
                                       " is not instantiated (gpu/warp_shuffle_*.cu)"};
    }
    ShuffleGrid g;
    g.row_groups = (p.out_rows + shape.shifts - 1) / shape.shifts;
    g.chunks = (p.out_cols + 31) / 32;
    switch (p.request.form) {
      case Form::one_to_one:
        break;
      case Form::one_to_many:
        g.right_groups = (p.n_right + shape.right_mats - 1) / shape.right_mats;
        break;
      case Form::n_to_m:
        g.left_groups = (p.n_left + shape.left_mats - 1) / shape.left_mats;
        g.right_groups = (p.n_right + shape.right_mats - 1) / shape.right_mats;
        break;
      case Form::n_to_mn:  // per left, its m = n_right / n_left rights in groups of NR
        g.right_groups =
            p.n_left * ((p.n_right / p.n_left + shape.right_mats - 1) / shape.right_mats);
        break;
    }
    g.distribution = static_cast<int>(distribution_);
    g.rows_per_worker = rows_per_worker_;
    long long per_chunk = g.row_groups;
    if (distribution_ != Distribution::none) {
      std::vector<int> prefix(static_cast<std::size_t>(g.row_groups) + 1, 0);
      int most = 1;
      for (int k = 0; k < g.row_groups; ++k) {
        const int2 rows = shuffle_template_rows(p.request.mode, k * shape.shifts, shape.shifts,
                                                p.out_rows, p.left_rows, p.right_rows);
        const int workers =
            std::max(1, (rows.y - rows.x + rows_per_worker_ - 1) / rows_per_worker_);
        most = std::max(most, workers);
        prefix[static_cast<std::size_t>(k) + 1] = prefix[static_cast<std::size_t>(k)] + workers;
      }
      if (distribution_ == Distribution::rectangle) {
        g.workers_per_task = most;
        per_chunk = static_cast<long long>(g.row_groups) * most;
      } else {
        XCORR_RETURN_IF_ERROR(upload_prefix(prefix, stream));
        g.worker_prefix = prefix_device_.get();
        per_chunk = prefix.back();
      }
      XCORR_CUDA_TRY(cudaMemsetAsync(out, 0, static_cast<std::size_t>(p.out_elements()) * 4,
                                     stream));  // workers add into it
    }
    g.tasks = static_cast<long long>(g.left_groups) * g.right_groups * g.chunks * per_chunk;
    const int blocks =
        static_cast<int>(std::clamp<long long>((g.tasks + 3) / 4, 1, 16LL * sm_count()));
    (p.request.mode == Mode::full ? inst->full : inst->valid)(p, g, out, stream, blocks);
    XCORR_LAUNCH_TRY("warp_shuffle_kernel");
    return Status::ok();
  }

 private:
  // The triangle distribution's prefix table; uploaded only when it changes.
  Status upload_prefix(const std::vector<int>& prefix, cudaStream_t stream) const {
    std::lock_guard lock(prefix_mutex_);
    if (prefix == prefix_host_) return Status::ok();
    XCORR_RETURN_IF_ERROR(prefix_device_.allocate(prefix.size()));
    prefix_host_ = prefix;
    // Pageable source: the call returns once the data is staged, so prefix_host_ may change after.
    XCORR_CUDA_TRY(cudaMemcpyAsync(prefix_device_.get(), prefix_host_.data(),
                                   prefix_host_.size() * sizeof(int), cudaMemcpyHostToDevice,
                                   stream));
    return Status::ok();
  }

  VariantInfo info_;
  ParamValues values_;
  ShuffleShape shape_;
  Distribution distribution_ = Distribution::none;
  int rows_per_worker_ = 1;
  mutable std::mutex prefix_mutex_;
  mutable std::vector<int> prefix_host_;
  mutable DeviceBuffer<int> prefix_device_;
};

}  // namespace

std::vector<std::unique_ptr<Correlator>> make_warp_shuffle_correlators() {
  std::vector<std::unique_ptr<Correlator>> out;
  for (VariantInfo& f : families()) {
    auto defaults = complete_params(f.name, f.params, {});
    XCORR_CHECK(defaults.is_ok(), "warp shuffle defaults are in their lists");
    out.push_back(std::make_unique<WarpShuffleCorrelator>(f, std::move(defaults).value()));
  }
  return out;
}

}  // namespace xcorr::gpu
