// Row-major float matrices and stacks of equal-size matrices, with strided views.
// Index is signed (std::ptrdiff_t) so that shift arithmetic (dy = r - (h - 1)) stays simple.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "core/check.hpp"

namespace xcorr {

using Index = std::ptrdiff_t;

struct Shape {
  Index rows = 0;
  Index cols = 0;
  Index area() const { return rows * cols; }
  friend bool operator==(const Shape&, const Shape&) = default;
};

std::string to_string(Shape s);  // "rows x cols", e.g. "16x32" (matrices)
// An image's size as people read it: "32 x 16 px (width x height)".
std::string image_size(Shape s);

// A rows x cols window into memory; row_stride is in elements (>= cols).
template <class T>
struct MatrixView {
  T* data = nullptr;
  Index rows = 0;
  Index cols = 0;
  Index row_stride = 0;

  Shape shape() const { return {rows, cols}; }
  T* row(Index r) const { return data + r * row_stride; }
  T& operator()(Index r, Index c) const { return data[r * row_stride + c]; }
  // View of mutable data as const (a template, so that MatrixView<const T> declares no
  // conversion to itself).
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U> && std::is_same_v<U, T>>>
  operator MatrixView<const U>() const {  // NOLINT
    return {data, rows, cols, row_stride};
  }
};

// `count` matrices of equal shape; matrix i starts at data + i * matrix_stride (elements).
template <class T>
struct StackView {
  T* data = nullptr;
  Index rows = 0;
  Index cols = 0;
  Index count = 0;
  Index row_stride = 0;
  Index matrix_stride = 0;

  Shape shape() const { return {rows, cols}; }
  MatrixView<T> operator[](Index i) const {
    XCORR_CHECK(i >= 0 && i < count, "matrix index out of range");
    return {data + i * matrix_stride, rows, cols, row_stride};
  }
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U> && std::is_same_v<U, T>>>
  operator StackView<const U>() const {  // NOLINT
    return {data, rows, cols, count, row_stride, matrix_stride};
  }
};

// Owning, contiguous stack of `count` rows x cols matrices (count 1: a single matrix).
template <class T>
class Stack {
 public:
  Stack() = default;
  Stack(Index rows, Index cols, Index count, T fill = T{})
      : rows_(rows),
        cols_(cols),
        count_(count),
        data_(static_cast<std::size_t>(rows * cols * count), fill) {
    XCORR_CHECK(rows >= 0 && cols >= 0 && count >= 0, "negative stack extent");
  }

  Index rows() const { return rows_; }
  Index cols() const { return cols_; }
  Index count() const { return count_; }
  Shape shape() const { return {rows_, cols_}; }
  bool empty() const { return data_.empty(); }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  std::vector<T>& values() { return data_; }
  const std::vector<T>& values() const { return data_; }

  StackView<T> view() { return {data(), rows_, cols_, count_, cols_, rows_ * cols_}; }
  StackView<const T> view() const { return {data(), rows_, cols_, count_, cols_, rows_ * cols_}; }
  MatrixView<T> operator[](Index i) { return view()[i]; }
  MatrixView<const T> operator[](Index i) const { return view()[i]; }

 private:
  Index rows_ = 0;
  Index cols_ = 0;
  Index count_ = 0;
  std::vector<T> data_;
};

// Copies a (possibly strided) stack into a new contiguous one.
template <class T>
Stack<std::remove_const_t<T>> to_stack(StackView<T> v) {
  Stack<std::remove_const_t<T>> out(v.rows, v.cols, v.count);
  for (Index i = 0; i < v.count; ++i) {
    for (Index r = 0; r < v.rows; ++r) {
      for (Index c = 0; c < v.cols; ++c) out[i](r, c) = v[i](r, c);
    }
  }
  return out;
}

}  // namespace xcorr
