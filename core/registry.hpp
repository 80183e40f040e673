// The one list of correlation variants, and the front door that validates, dispatches and runs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/correlator.hpp"

namespace xcorr {

class Registry {
 public:
  void add(std::unique_ptr<Correlator> c);  // names must be unique
  const std::vector<std::unique_ptr<Correlator>>& all() const { return variants_; }
  const Correlator* find(std::string_view name) const;
  // Why the registry has no GPU variants (the build, the device, the driver); empty when it has
  // them or was built without asking. A method named gpu_* is then refused with this reason.
  void set_gpu_absent(std::string why) { gpu_absent_ = std::move(why); }
  const std::string& gpu_absent() const { return gpu_absent_; }

 private:
  std::vector<std::unique_ptr<Correlator>> variants_;
  std::string gpu_absent_;
};

// The variant `method` names: "name" or "name:param=value,..." (the parameters checked too);
// invalid_argument naming an unknown method or a bad parameter. Not for "auto".
Result<const Correlator*> find_method(const Registry& r, std::string_view method);

// A copy of the variant `name` with the parameters `params` ("param=value,...", checked).
Result<std::unique_ptr<Correlator>> configure_variant(const Registry& r, std::string_view name,
                                                      std::string_view params);

// `auto` picks the auto-eligible variant that can run `p` with the smallest estimate_seconds()
// (only among variants of `device`, "cpu" or "gpu", when given); any other method names a
// variant, which must be able to run `p`.
Result<const Correlator*> choose_variant(const Registry& r, const CorrelationProblem& p,
                                         std::string_view method, std::string_view device = {});

struct CorrelationOutput {
  Stack<float> result;  // output_count() matrices of output_shape(), in the form's order
  std::string variant;  // the variant that ran
  std::string params;   // its parameters, "name=value,..." ("" for most variants)
  double seconds = 0;   // wall time of run() alone
};

// Validates the problem (shapes, counts, finite inputs, memory), chooses and runs a variant.
Result<CorrelationOutput> correlate(const Registry& r, const CorrelationProblem& p,
                                    std::string_view method = "auto");

// The same with a given (e.g. configured or tuned) variant.
Result<CorrelationOutput> correlate_with(const Correlator& c, const CorrelationProblem& p);

}  // namespace xcorr
