#include "core/correlator.hpp"

#include <algorithm>

namespace xcorr {

Status Correlator::can_implement(const CorrelationProblem& p) const {
  const VariantInfo& v = info();
  auto has = [](const auto& list, auto value) {
    return std::find(list.begin(), list.end(), value) != list.end();
  };
  if (!has(v.forms, p.request.form)) {
    return {ErrorCode::unsupported, v.name + " does not support form " + to_string(p.request.form)};
  }
  if (!has(v.modes, p.request.mode)) {
    return {ErrorCode::unsupported,
            v.name + " does not support " + to_string(p.request.mode) + " mode"};
  }
  if (!has(v.norms, p.request.norm)) {
    return {ErrorCode::unsupported,
            v.name + " does not support normalization " + to_string(p.request.norm)};
  }
  if (!has(v.outputs, p.request.output)) {
    return {ErrorCode::unsupported,
            v.name + " does not support " + to_string(p.request.output) + " output"};
  }
  if (p.request.accuracy == Accuracy::exact && !computes_each_output_directly(v)) {
    return {ErrorCode::unsupported,
            v.name +
                " does not meet accuracy exact: its errors are relative to the output's "
                "largest magnitude, not to each element (docs/formats.md, Accuracy)"};
  }
  return Status::ok();
}

Result<std::unique_ptr<Correlator>> Correlator::with_params(const ParamValues& values) const {
  auto checked = complete_params(info().name, info().params, values);
  if (!checked.is_ok()) return checked.status();
  return Status{ErrorCode::unsupported, info().name + " has no parameters"};
}

}  // namespace xcorr
