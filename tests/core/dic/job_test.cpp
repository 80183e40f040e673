// Job and batch files (core/dic/job.hpp, batch_file.hpp): a job round-trips through its JSON; a
// value nested past the limit is refused by name, in a job and inside a batch's job (issue 15
// item 6: 10^5 levels crashed `xcorr run` with a stack overflow), while the limit itself parses;
// numbers too large to read are refused in one short line.
#include "core/dic/job.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/dic/batch_file.hpp"
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
  auto back = parse_dic_job(to_json(job), "/");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(to_json(back.value()), to_json(job));
  EXPECT_EQ(back.value().options.subset, 41);
  EXPECT_EQ(back.value().frames, job.frames);
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
  // Numbers past double or 64-bit range (issue 15: exit 1 "internal error" with the whole token).
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
