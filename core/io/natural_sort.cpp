#include "core/io/natural_sort.hpp"

#include <algorithm>
#include <cctype>

namespace xcorr::io {

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      std::size_t iz = i, jz = j;  // skip leading zeros, then compare by length, then digits
      while (iz + 1 < ie && a[iz] == '0') ++iz;
      while (jz + 1 < je && b[jz] == '0') ++jz;
      if (ie - iz != je - jz) return ie - iz < je - jz;
      const int cmp = a.compare(iz, ie - iz, b, jz, je - jz);
      if (cmp != 0) return cmp < 0;
      if (ie - i != je - j) return ie - i < je - j;  // "01" before "001"? fewer zeros first
      i = ie;
      j = je;
    } else {
      const auto ca = std::tolower(static_cast<unsigned char>(a[i]));
      const auto cb = std::tolower(static_cast<unsigned char>(b[j]));
      if (ca != cb) return ca < cb;
      ++i;
      ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // total order for names equal up to case
}

void natural_sort(std::vector<std::string>& names) {
  std::sort(names.begin(), names.end(), natural_less);
}

}  // namespace xcorr::io
