// A correlation problem whose inputs and output live in device memory (contiguous stacks).
// Plain data, passed to kernels by value.
#pragma once

#include "core/correlation.hpp"

namespace xcorr::gpu {

struct DeviceProblem {
  CorrelationRequest request;
  const float* left = nullptr;   // n_left matrices of left_rows x left_cols
  const float* right = nullptr;  // n_right matrices of right_rows x right_cols
  int left_rows = 0, left_cols = 0, n_left = 0;
  int right_rows = 0, right_cols = 0, n_right = 0;
  int out_rows = 0, out_cols = 0, out_count = 0;

  // (left index, right index) of output t; the same order as CorrelationProblem::pair.
  __host__ __device__ int2 pair(int t) const {
    switch (request.form) {
      case Form::one_to_one:
        return make_int2(0, 0);
      case Form::one_to_many:
        return make_int2(0, t);
      case Form::n_to_mn:
        return make_int2(t % n_left, t);
      case Form::n_to_m:
        return make_int2(t / n_right, t % n_right);
    }
    return make_int2(0, 0);
  }
  // Output element idx (flat over out_count x out_rows x out_cols): its row r, column c, its
  // (left, right) matrix indices lr and the first elements of those two matrices.
  struct Site {
    int r, c;
    int2 lr;
    const float* left;
    const float* right;
  };
  __device__ Site site(long long idx) const {
    const long long plane = static_cast<long long>(out_rows) * out_cols;
    const int t = static_cast<int>(idx / plane);
    const int2 lr = pair(t);
    return {static_cast<int>(idx % plane / out_cols), static_cast<int>(idx % out_cols), lr,
            left + static_cast<long long>(lr.x) * left_rows * left_cols,
            right + static_cast<long long>(lr.y) * right_rows * right_cols};
  }
  long long out_elements() const { return static_cast<long long>(out_rows) * out_cols * out_count; }
};

DeviceProblem make_device_problem(const CorrelationProblem& p, const float* left,
                                  const float* right);

}  // namespace xcorr::gpu
