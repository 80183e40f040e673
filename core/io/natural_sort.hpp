// Natural ordering of file names: digit runs compare as numbers ("img2" < "img10").
#pragma once

#include <string>
#include <vector>

namespace xcorr::io {

bool natural_less(const std::string& a, const std::string& b);
void natural_sort(std::vector<std::string>& names);

}  // namespace xcorr::io
