// The warp-shuffle variants (thesis family; the kernel and the meaning of each parameter are in
// gpu/warp_shuffle.cuh). One registered variant per thesis name, each with its parameters:
//   gpu_warp_shuffle                        distribution, rows_per_worker (simple)
//   gpu_warp_shuffle_multimat_right         right_matrices, distribution, rows_per_worker
//   gpu_warp_shuffle_multimat_both          left_matrices, right_matrices, distribution, ...
//   gpu_warp_shuffle_multirow_right         shifts_per_thread
//   gpu_warp_shuffle_multirow_both          shifts_per_thread, left_rows
//   gpu_warp_shuffle_multirow_both_multimat_right / _multimat_both: both sets
// When they win: rarely on an H200 (shuffle-bound: at best 1 FMA per ~1 shuffle); they are the
// thesis' baselines that the profiler and the benchmark compare against.
// Constraints: normalisation none; multimat_right needs one left per group of rights
// (one_to_many, n_to_m), multimat_both n_to_m.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
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
std::vector<Param> distribution_params() {
  return {{"distribution",
           {0, 1, 2},
           2,
           {"none", "rectangle", "triangle"},
           "how a warp task's template rows are split among workers"},
          {"rows_per_worker", {1, 4, 16, 64}, 16, {}, "template rows per worker (not for none)"}};
}
std::vector<Param> join(std::vector<Param> a, const std::vector<Param>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<Form> kOneLeftForms = {Form::one_to_many, Form::n_to_m};

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
           join({left_mats_param({2, 4}, 2), right_mats_param({2, 4}, 2)}, distribution_params())),
      info("gpu_warp_shuffle_multirow_right",
           "warp shuffle, several output rows per warp from one template row (multirow_right)",
           kAllForms, {shifts_param({2, 4, 8}, 4)}),
      info("gpu_warp_shuffle_multirow_both",
           "warp shuffle, several output rows from several template rows (multirow_both)",
           kAllForms, {shifts_param({2, 4}, 4), left_rows_param({2, 4}, 2)}),
      info("gpu_warp_shuffle_multirow_both_multimat_right",
           "warp shuffle multirow_both + multimat_right", kOneLeftForms,
           {shifts_param({2, 4}, 4), left_rows_param({2}, 2), right_mats_param({2, 4}, 2)}),
      info("gpu_warp_shuffle_multirow_both_multimat_both",
           "warp shuffle multirow_both + multimat_both", {Form::n_to_m},
           {shifts_param({2}, 2), left_rows_param({2}, 2), left_mats_param({2}, 2),
            right_mats_param({2}, 2)}),
  };
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
    // Shuffle-bound prior: per warp step NL*LR + 2*NR*(S+LR-1) shuffles for NL*NR*S*LR FMAs per
    // lane; ~1.1e11 warp shuffles/s achieved (fitted: the simple form ran ~1.2 TMAC/s).
    const ShuffleShape& s = shape_;
    const double fmas = s.left_mats * s.right_mats * s.shifts * s.left_rows;
    const double shuffles =
        s.left_mats * s.left_rows + 2.0 * s.right_mats * (s.shifts + s.left_rows - 1);
    const double warp_steps = 1.3 * p.direct_multiply_adds() / (32.0 * fmas);
    // A floor for few pairs, where the warps' serial chains, not the shuffle rate, bound the
    // time: >= 8 us + 10 ns per template element (H200, runs 45-51: one_to_one 16 / 32 / 64
    // took 18-32 / 30-97 / 52-364 us across the family; without it auto picked
    // gpu_warp_shuffle_multirow_both for one_to_one 32 at 4x gpu_small_direct's time).
    const double floor =
        8e-6 + 1e-8 * static_cast<double>(p.left.rows) * static_cast<double>(p.left.cols);
    return std::max(8e-6 + warp_steps * shuffles / 1.1e11, floor) + transfer_seconds(p);
  }

  std::vector<Launch> kernel_launches(const DeviceProblem& p) const override {
    const ShuffleInstance* inst = find_multimat_instance(shape_);
    if (inst == nullptr) inst = find_multirow_instance(shape_);
    if (inst == nullptr) return {};
    return {{"warp_shuffle_kernel",
             p.request.mode == Mode::full ? inst->full_kernel : inst->valid_kernel, 128, 0}};
  }

  Status run_kernels(const DeviceProblem& p, float* out, cudaStream_t stream) const override {
    const ShuffleInstance* inst = find_multimat_instance(shape_);
    if (inst == nullptr) inst = find_multirow_instance(shape_);
    if (inst == nullptr) {
      return {ErrorCode::internal, info_.name + ": shape " + format_params(info_.params, values_) +
                                       " is not instantiated (gpu/warp_shuffle_*.cu)"};
    }
    ShuffleGrid g;
    g.row_groups = (p.out_rows + shape_.shifts - 1) / shape_.shifts;
    g.chunks = (p.out_cols + 31) / 32;
    switch (p.request.form) {
      case Form::one_to_one:
        break;
      case Form::one_to_many:
        g.right_groups = (p.n_right + shape_.right_mats - 1) / shape_.right_mats;
        break;
      case Form::n_to_m:
        g.left_groups = (p.n_left + shape_.left_mats - 1) / shape_.left_mats;
        g.right_groups = (p.n_right + shape_.right_mats - 1) / shape_.right_mats;
        break;
      case Form::n_to_mn:
        g.right_groups = p.out_count;
        break;
    }
    g.distribution = static_cast<int>(distribution_);
    g.rows_per_worker = rows_per_worker_;
    long long per_chunk = g.row_groups;
    if (distribution_ != Distribution::none) {
      std::vector<int> prefix(static_cast<std::size_t>(g.row_groups) + 1, 0);
      int most = 1;
      for (int k = 0; k < g.row_groups; ++k) {
        const int2 rows = shuffle_template_rows(p.request.mode, k * shape_.shifts, shape_.shifts,
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
    const int blocks = static_cast<int>(std::clamp<long long>((g.tasks + 3) / 4, 1, 132LL * 16));
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
