// Job and batch files (core/dic/job.hpp, batch_file.hpp): a job round-trips through its JSON; a
// value nested past the limit is refused by name, in a job and inside a batch's job
// (docs/reliability.md: 10^5 levels crashed `xcorr run` with a stack overflow), while the limit
// itself parses; numbers too large to read are refused in one short line.
#include "core/dic/job.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/batch/batch_file.hpp"
#include "core/io/json_parse.hpp"

namespace xcorr::dic {
namespace {

std::string nested(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') +
         std::string(static_cast<std::size_t>(depth), ']');
}

TEST(JobFile, RoundTripsThroughItsJson) {
  DicJob job;
  job.name = "specimen";
  job.reference = "/data/ref.tif";
  job.frames = {"/data/frames"};
  job.out = "/data/out.csv";
  job.options.subset = 41;
  job.options.step = 7;
  job.roi.shapes.push_back(parse_roi_shape("ellipse:50,60,20,10").value());
  job.templates = {{40, 50, 32, 24}, {0, 0, 1, 1}};
  job.reference_page = 3;
  job.display = R"({"u":{"colours":"viridis","range":[-1.0,2.5]}})";
  auto back = parse_dic_job(to_json(job), "/");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(to_json(back.value()), to_json(job));
  EXPECT_EQ(back.value().options.subset, 41);
  EXPECT_EQ(back.value().frames, job.frames);
  EXPECT_EQ(back.value().templates, job.templates);
  EXPECT_EQ(back.value().reference_page, 3);
  EXPECT_EQ(back.value().display, job.display);
  job.reference_page = 0;  // the default is not written: older job files read the same
  EXPECT_EQ(to_json(job).find("reference_page"), std::string::npos);
  EXPECT_NE(to_json(job).find("\"40,50,32,24\""), std::string::npos)
      << "the file format is x,y,w,h";
}

TEST(JobFile, AReferencePageIsANonNegativeInteger) {
  const std::string head = R"({"reference": "s.tif", "out": "o.csv", "reference_page": )";
  EXPECT_EQ(parse_dic_job(head + "2}", "/").value().reference_page, 2);
  const auto negative = parse_dic_job(head + "-1}", "/");
  ASSERT_FALSE(negative.is_ok());
  EXPECT_NE(negative.status().message().find("'reference_page'"), std::string::npos);
  const auto text = parse_dic_job(head + "\"2\"}", "/");
  ASSERT_FALSE(text.is_ok());
  EXPECT_NE(text.status().message().find("expected an integer"), std::string::npos)
      << text.status().message();
}

// The desktop app's display settings are an object, kept as they are; anything else is refused
// by name.
TEST(JobFile, DisplaySettingsAreAnObject) {
  const std::string head = R"({"reference": "s.tif", "out": "o.csv", "display": )";
  EXPECT_EQ(parse_dic_job(head + R"({"v": {"range": "locked"}}})", "/").value().display,
            R"({"v":{"range":"locked"}})");
  const auto bad = parse_dic_job(head + "[1, 2]}", "/");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("job key 'display': expected an object"), std::string::npos)
      << bad.status().message();
}

// Templates are typed in the job and refused by name when a file spells one wrong (the window
// used to find out only when it opened the project, after opening its stack).
TEST(JobFile, TemplatesAreParsedStrictly) {
  EXPECT_EQ(parse_template_rect("40,50,32,24").value(), (TemplateRect{40, 50, 32, 24}));
  EXPECT_EQ(to_string(TemplateRect{7, 8, 9, 10}), "7,8,9,10");
  for (const char* bad : {"40,50,32", "40,50,32,24x", "-1,0,3,3", "1,1,0,3", "", "a,b,c,d"}) {
    const auto r = parse_template_rect(bad);
    ASSERT_FALSE(r.is_ok()) << bad;
    EXPECT_NE(r.status().message().find(std::string("'") + bad + "'"), std::string::npos)
        << r.status().message();
  }
  const auto job = parse_dic_job(
      R"({"reference": "r.tif", "out": "o.csv", "templates": ["1,2,3,4", "5,6,7"]})", "/");
  ASSERT_FALSE(job.is_ok());
  EXPECT_NE(job.status().message().find("templates"), std::string::npos) << job.status().message();
  EXPECT_NE(job.status().message().find("'5,6,7'"), std::string::npos) << job.status().message();
}

// The ROI manager's named shapes travel with the job ("rois") and come back as written; a shape
// spelled wrong, a subtracted one or another form is refused by name.
TEST(JobFile, NamedRoisRoundTripAndAreParsedStrictly) {
  const std::string head = R"({"reference": "r.tif", "out": "o.csv", "rois": )";
  auto job = parse_dic_job(
      head +
          R"([{"name": "cell 1", "shape": "rect:5,6,12,9"}, {"name": "n", "shape": "poly:1,1,9,1,5,7.25"}]})",
      "/");
  ASSERT_TRUE(job.is_ok()) << job.status().message();
  ASSERT_EQ(job.value().rois.size(), 2u);
  EXPECT_EQ(job.value().rois[0].name, "cell 1");
  EXPECT_EQ(to_string(job.value().rois[1].shape), "poly:1,1,9,1,5,7.25");
  auto again = parse_dic_job(to_json(job.value()), "/");
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  EXPECT_EQ(again.value().rois, job.value().rois);
  const std::pair<const char*, const char*> bad[] = {
      {R"(["rect:1,2,3,4"]})", "expected a list of {\"name\""},
      {R"([{"name": "a", "shape": "rect:1,2,3"}]})", "job key 'rois': ROI shape 'rect:1,2,3'"},
      {R"([{"name": "a", "shape": "-rect:1,2,3,4"}]})", "'-' (subtract) belongs in 'roi'"},
      {R"([{"name": "a", "shape": "rect:1,2,3,4", "colour": "red"}]})", "expected a list of"}};
  for (const auto& [text, why] : bad) {
    const auto r = parse_dic_job(head + text, "/");
    ASSERT_FALSE(r.is_ok()) << text;
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
  }
}

TEST(JobFile, DeepNestingIsRefusedByName) {
  const std::string deep = nested(100000);
  const auto job =
      parse_dic_job("{\"reference\": \"a.tif\", \"out\": \"o.csv\", \"name\": " + deep + "}", "/");
  ASSERT_FALSE(job.is_ok());
  EXPECT_NE(job.status().message().find("deeper than 64 levels"), std::string::npos)
      << job.status().message();
  const auto batch = parse_batch("{\"jobs\": [{\"name\": " + deep + "}]}", "/");
  ASSERT_FALSE(batch.is_ok());
  EXPECT_EQ(batch.status().code(), ErrorCode::parse_error);
  EXPECT_NE(batch.status().message().find("deeper than 64 levels"), std::string::npos)
      << batch.status().message();
  EXPECT_TRUE(io::parse_json(nested(io::kMaxJsonDepth), "x").is_ok());
  // Numbers past double or 64-bit range (docs/reliability.md: exit 1 "internal error" with the
  // whole token).
  for (const std::string& number : {std::string("1e400"), "1" + std::string(5000, '0')}) {
    const auto huge = parse_dic_job(
        "{\"reference\": \"a.tif\", \"out\": \"o.csv\", \"step\": " + number + "}", "/");
    ASSERT_FALSE(huge.is_ok());
    EXPECT_NE(huge.status().message().find("a number too large to read"), std::string::npos)
        << huge.status().message().substr(0, 300);
    EXPECT_LT(huge.status().message().size(), 300u);
  }
  EXPECT_FALSE(io::parse_json(nested(io::kMaxJsonDepth + 1), "x").is_ok());
}

}  // namespace
}  // namespace xcorr::dic
