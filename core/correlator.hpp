// The variant descriptor: every correlator (CPU or GPU) is one registered Correlator.
// The CLI's --method, `xcorr list`, the dispatcher and the tests all iterate the registry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/correlation.hpp"
#include "core/params.hpp"

namespace xcorr {

// Every form / both modes: what most variants support.
inline const std::vector<Form> kAllForms = {Form::one_to_one, Form::one_to_many, Form::n_to_mn,
                                            Form::n_to_m};
inline const std::vector<Mode> kBothModes = {Mode::full, Mode::valid};

struct VariantInfo {
  std::string name;     // unique, e.g. "cpu_fft"; what --method takes
  std::string family;   // "reference", "direct", "fft", ...
  std::string device;   // "cpu" or "gpu"
  std::string summary;  // one line: what it is and when it wins
  std::vector<Form> forms;
  std::vector<Mode> modes;
  std::vector<Normalization> norms;
  bool auto_eligible = true;       // false for the float64 oracle
  std::vector<Param> params = {};  // tunable parameters (core/params.hpp); empty for most
  // Surface and/or peak output (core/correlation.hpp). Most variants answer peak requests from
  // their surfaces (core/peak_search.hpp, gpu/peak_reduce.cu); fused ones never write them.
  std::vector<Output> outputs = {Output::surface, Output::peak};
};

// Whether the variant computes each output element as its own sum (every family but "fft"):
// those meet Accuracy::exact (core/correlation.hpp); FFT paths' errors scale with the output's
// largest magnitude. The default can_implement refuses the others for exact requests.
inline bool computes_each_output_directly(const VariantInfo& v) {
  return v.family != "fft";
}

class Correlator {
 public:
  virtual ~Correlator() = default;
  virtual const VariantInfo& info() const = 0;

  // Whether this variant can run a (validated) problem; the reason when it cannot.
  // The default checks the forms/modes/norms lists of info().
  virtual Status can_implement(const CorrelationProblem& p) const;

  // Model prior for `auto`: predicted wall time in seconds on this machine.
  virtual double estimate_seconds(const CorrelationProblem& p) const = 0;

  // Writes every element of `out` (output_count() matrices of output_shape()).
  // Preconditions: p.validate() and can_implement(p) are ok; inputs are finite.
  virtual Status run(const CorrelationProblem& p, StackView<float> out) const = 0;

  // The parameter values this instance runs with: all of info().params, completed with defaults
  // (empty for variants without parameters).
  virtual ParamValues params() const { return {}; }

  // A copy of this variant running with `values` (the rest at their defaults). Errors name an
  // unknown parameter or value; variants without parameters refuse any.
  virtual Result<std::unique_ptr<Correlator>> with_params(const ParamValues& values) const;
};

}  // namespace xcorr
