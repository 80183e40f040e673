// Variant parameters: parsing "name=value" text (numbers and labels), completion with defaults,
// errors that name the problem, and the Cartesian product the GPU tests iterate.
#include "core/params.hpp"

#include <gtest/gtest.h>

namespace xcorr {
namespace {

const std::vector<Param> kParams = {
    {"shifts", {1, 2, 4}, 2, {}, "rows"},
    {"distribution", {0, 1, 2}, 2, {"none", "rectangle", "triangle"}, "split"},
};

TEST(Params, ParsesNumbersAndLabels) {
  const auto v = parse_params("v", kParams, "shifts=4,distribution=rectangle");
  ASSERT_TRUE(v.is_ok()) << v.status().message();
  EXPECT_EQ(v.value(), (ParamValues{{"shifts", 4}, {"distribution", 1}}));
  EXPECT_EQ(format_params(kParams, v.value()), "shifts=4,distribution=rectangle");
  EXPECT_TRUE(parse_params("v", kParams, "").is_ok());
}

TEST(Params, CompletesWithDefaults) {
  const auto v = complete_params("v", kParams, {{"shifts", 1}});
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(v.value(), (ParamValues{{"shifts", 1}, {"distribution", 2}}));
}

TEST(Params, ErrorsNameTheProblem) {
  const auto unknown = parse_params("gpu_x", kParams, "tile=2");
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_EQ(unknown.status().message(),
            "gpu_x has no parameter 'tile' (its parameters: shifts, distribution)");
  const auto value = parse_params("gpu_x", kParams, "shifts=3");
  ASSERT_FALSE(value.is_ok());
  EXPECT_EQ(value.status().message(), "gpu_x: shifts=3 is not one of 1,2,4");
  const auto label = parse_params("gpu_x", kParams, "distribution=diagonal");
  ASSERT_FALSE(label.is_ok());
  EXPECT_EQ(label.status().message(),
            "gpu_x: distribution=diagonal is not one of none,rectangle,triangle");
  EXPECT_FALSE(parse_params("gpu_x", kParams, "shifts").is_ok());
  EXPECT_FALSE(parse_params("gpu_x", kParams, "shifts=2x").is_ok());
}

TEST(Params, ProductCoversEveryCombinationOnce) {
  const auto all = all_param_combinations(kParams);
  ASSERT_EQ(all.size(), 9u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = i + 1; j < all.size(); ++j) EXPECT_NE(all[i], all[j]);
  }
  EXPECT_EQ(all_param_combinations({}).size(), 1u);
}

}  // namespace
}  // namespace xcorr
