#include "core/matrix.hpp"

namespace xcorr {

std::string to_string(Shape s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols);
}

std::string image_size(Shape s) {
  return std::to_string(s.cols) + " x " + std::to_string(s.rows) + " px (width x height)";
}

}  // namespace xcorr
