// The `devices` option's text (core/device_list.hpp) and its place among the DIC options: a
// placement field, so neither the CSV settings header nor a job's settings depend on it.
#include "core/device_list.hpp"

#include <gtest/gtest.h>

#include "core/dic/options.hpp"
#include "core/options_table.hpp"

namespace xcorr {
namespace {

TEST(DeviceList, ReadsNumbersAndAll) {
  EXPECT_EQ(parse_device_list("0", 1).value(), std::vector<int>{0});
  EXPECT_EQ(parse_device_list("1,0,3", 4).value(), (std::vector<int>{1, 0, 3}));
  EXPECT_EQ(parse_device_list("all", 3).value(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parse_device_list("2,5", -1).value(), (std::vector<int>{2, 5}));  // text alone
  EXPECT_TRUE(parse_device_list("all", -1).value().empty());
}

TEST(DeviceList, NamesWhatIsWrong) {
  auto message = [](const char* text, int visible) {
    auto r = parse_device_list(text, visible);
    EXPECT_FALSE(r.is_ok()) << text;
    return r.is_ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(message("0,x", 2).find("'x' is not a device number"), std::string::npos);
  EXPECT_NE(message("0,,1", 2).find("'' is not a device number"), std::string::npos);
  EXPECT_NE(message("-1", 2).find("'-1' is not a device number"), std::string::npos);
  EXPECT_NE(message("1,1", 2).find("device 1 is listed twice"), std::string::npos);
  EXPECT_NE(message("0,2", 2).find("GPU 2 does not exist: this process sees 2 (0-1)"),
            std::string::npos);
  EXPECT_NE(message("all", 0).find("no GPU is visible"), std::string::npos);
  EXPECT_NE(message("", 1).find("expected device numbers"), std::string::npos);
  EXPECT_NE(message("0,", 1).find("'' is not a device number"), std::string::npos);
}

TEST(DeviceList, IsADicOptionOutsideTheResultsSettings) {
  dic::DicOptions o;
  EXPECT_EQ(o.devices, "0");
  const auto& table = dic::dic_option_table();
  const auto* f = find_field(table, "devices");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->placement);
  ASSERT_TRUE(set_field(*f, o, "0,1").is_ok());
  EXPECT_TRUE(o.check().is_ok());
  EXPECT_EQ(describe_fields(table, o), describe_fields(table, dic::DicOptions{}));
  EXPECT_EQ(describe_fields(table, o).find("devices"), std::string::npos);
  EXPECT_EQ(without_placement(table, o).devices, "0");
  o.devices = "0,zero";
  const Status bad = o.check();
  EXPECT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("devices '0,zero'"), std::string::npos) << bad.message();
  o.devices = "0";
  o.subset = 33;  // a results setting still shows
  EXPECT_NE(describe_fields(table, o), describe_fields(table, dic::DicOptions{}));
}

}  // namespace
}  // namespace xcorr
