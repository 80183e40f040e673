// DIC options declared once (dic_option_table()): every field round-trips through its text form,
// the job file and the CSV settings header, and check() names the key and the rule of a bad value.
// Also the one enum <-> label mechanism (core/enum_labels.hpp) for every enum that has labels.
#include "core/dic/options.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/correlation.hpp"
#include "core/dic/icgn.hpp"
#include "core/dic/job.hpp"
#include "core/dic/results_csv.hpp"
#include "core/peak.hpp"
#include "tests/support/member_count.hpp"
#include "tests/support/option_values.hpp"

namespace xcorr::dic {
namespace {

// The member count the guard below relies on.
struct ThreeMembers {
  int a = 0;
  double b = 0;
  std::string c;
};
static_assert(testing::member_count<ThreeMembers>() == 3);

const auto& table() {
  return dic_option_table();
}

TEST(DicOptionTable, EveryStructMemberHasOneUniqueEntry) {
  std::set<std::string> keys;
  for (const auto& f : table()) {
    EXPECT_TRUE(keys.insert(f.key).second) << "duplicate key " << f.key;
    EXPECT_FALSE(f.label.empty()) << f.key;
    EXPECT_FALSE(f.doc.empty()) << f.key;
  }
  // Every member has its entry: a member added without one fails here (on any ABI).
  EXPECT_EQ(testing::member_count<DicOptions>(), table().size())
      << "DicOptions has a member without a dic_option_table() entry";
  EXPECT_TRUE(DicOptions{}.check().is_ok());
}

TEST(DicOptionTable, EveryFieldRoundTripsThroughTextJobFileAndCsvHeader) {
  const DicOptions defaults;
  DicOptions changed;
  for (const auto& f : table()) {
    const std::string text = testing::off_default_text(f, defaults);
    ASSERT_NE(text, f.get(defaults)) << f.key;
    ASSERT_TRUE(set_field(f, changed, text).is_ok()) << f.key << " = " << text;
    EXPECT_EQ(f.get(changed), text) << f.key;
  }
  ASSERT_TRUE(changed.check().is_ok()) << changed.check().message();
  DicJob job;
  job.reference = "/data/ref.tif";
  job.out = "/data/out.csv";
  job.options = changed;
  const auto back = parse_dic_job(to_json(job), {});
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  const CsvContext ctx{"ref", {"frame 1"}, changed, {}, "cpu_fft", "cpu", {}, {}};
  const std::string header = csv_header(ctx);
  for (const auto& f : table()) {
    EXPECT_EQ(f.get(back.value().options), f.get(changed)) << f.key << " lost in the job file";
    // Placement fields (where the work runs: devices) are not results settings.
    EXPECT_EQ(header.find(f.key + "=" + value_with_unit(f, changed)) != std::string::npos,
              !f.placement)
        << f.key << (f.placement ? " in" : " missing from") << " the CSV header:\n"
        << header;
  }
}

TEST(DicOptionTable, BadValuesNameTheKeyAndTheRule) {
  DicOptions o;
  const auto& subset = *find_field(table(), "subset");
  EXPECT_EQ(set_field(subset, o, "30").message(), "subset 30 px: must be odd and at least 5");
  EXPECT_EQ(set_field(subset, o, "x").message(), "subset 'x': expected an integer");
  EXPECT_EQ(set_field(subset, o, "4294967327").message(), "subset '4294967327': out of range");
  EXPECT_EQ(o.subset, 31) << "a refused value leaves the option unchanged";
  EXPECT_EQ(set_field(*find_field(table(), "min_zncc"), o, "1.5").message(),
            "min_zncc 1.5: must be in [-1, 1]");
  EXPECT_EQ(set_field(*find_field(table(), "convergence"), o, "0").message(),
            "convergence 0 px: must be > 0");
  EXPECT_EQ(set_field(*find_field(table(), "strain"), o, "cauchy").message(),
            "strain 'cauchy': expected green_lagrange or engineering");
  EXPECT_EQ(set_field(*find_field(table(), "device"), o, "tpu").message(),
            "device 'tpu': expected auto, cpu or gpu");
  EXPECT_TRUE(set_field(*find_field(table(), "method"), o, "gpu_zncc_tiled").is_ok());
  o.strain_window = 4;
  EXPECT_EQ(o.check().message(), "strain_window 4 points: must be odd and at least 3");
}

TEST(DicJobFile, RefusesUnknownKeysAndWrongTypesByName) {
  auto bad = [](const std::string& json) {
    return parse_dic_job(R"({"reference": "r.tif", "out": "o.csv", )" + json + "}", {})
        .status()
        .message();
  };
  EXPECT_EQ(bad(R"("subsett": 31)"), "the job file has an unknown key 'subsett'");
  EXPECT_EQ(bad(R"("subset": "31")"), "job key 'subset': expected an integer");
  EXPECT_EQ(bad(R"("subset": 4294967327)"), "subset '4294967327': out of range");
  EXPECT_EQ(bad(R"("min_zncc": "high")"), "job key 'min_zncc': expected a number");
  EXPECT_EQ(bad(R"("shape": 2)"), "job key 'shape': expected a string");
}

template <class E>
void expect_labels_round_trip() {
  std::set<std::string> seen;
  for (const std::string& text : labels<E>()) {
    EXPECT_TRUE(seen.insert(text).second) << "duplicate label " << text;
    const auto v = parse_label<E>(text);
    ASSERT_TRUE(v.has_value()) << text;
    EXPECT_EQ(label(*v), text);
  }
  EXPECT_FALSE(parse_label<E>("no such label").has_value());
}

TEST(EnumLabels, EveryEnumRoundTrips) {
  expect_labels_round_trip<Form>();
  expect_labels_round_trip<Mode>();
  expect_labels_round_trip<Normalization>();
  expect_labels_round_trip<Output>();
  expect_labels_round_trip<SubpixelMethod>();
  expect_labels_round_trip<ShapeFunction>();
  expect_labels_round_trip<Propagation>();
  expect_labels_round_trip<StackMode>();
  expect_labels_round_trip<StrainKind>();
  expect_labels_round_trip<PointStatus>();
  expect_labels_round_trip<RoiShapeKind>();
  EXPECT_EQ(labels<Form>().size(), 4u);
  EXPECT_EQ(label_choices<Mode>(), "full or valid");
}

}  // namespace
}  // namespace xcorr::dic
