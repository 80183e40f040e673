// The real `xcorr` executable: results, summaries, exit codes and error messages.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/cpu/cpu_variants.hpp"
#include "core/dic/options.hpp"
#include "core/io/image_io.hpp"
#include "core/io/matrix_csv.hpp"
#include "core/peak.hpp"
#include "tests/support/accuracy_testing.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/xcorr_cli.hpp"

namespace xcorr {
namespace {

namespace fs = std::filesystem;

using testing::CliRun;

CliRun xcorr(const std::string& args) {
  return testing::run_xcorr(args);
}

class Cli : public testing::TempDirTest {
 protected:
  std::string csv(const std::string& name, const Stack<float>& s) const {
    EXPECT_TRUE(io::write_matrix_csv(path(name), s.view()).is_ok());
    return path(name);
  }
  std::string text(const std::string& name, const std::string& content) const {
    std::ofstream(path(name)) << content;
    return path(name);
  }
  // A 3-frame 96x96 speckle stack moving by (0.5, -1.25) px a frame, and the 33x33 template cut
  // from its first frame at (30, 30).
  bool make_speckle_stack_and_template(const std::string& stack, const std::string& tmpl) const {
    return xcorr("speckle --out " + stack + " --size 96,96 --frames 3 --shift 0.5,-1.25 --seed 3")
                   .code == 0 &&
           xcorr("speckle --out " + tmpl + " --size 96,96 --frames 1 --seed 3 --crop 30,30,33,33")
                   .code == 0;
  }
  // Runs an expected failure: exit code 2, one line naming the problem, no output file.
  void expect_bad_input(const std::string& args, const std::string& message) {
    const CliRun r = xcorr(args + " --out " + path("out.csv"));
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_FALSE(fs::exists(path("out.csv")));
  }
};

TEST_F(Cli, VersionHelpAndList) {
  EXPECT_EQ(xcorr("--version").code, 0);
  EXPECT_NE(xcorr("--version").output.find("xcorr 0."), std::string::npos);
  for (const char* sub : {"", "correlate ", "list ", "speckle "}) {
    const CliRun r = xcorr(std::string(sub) + "--help");
    EXPECT_EQ(r.code, 0) << sub;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << sub;
  }
  const CliRun list = xcorr("list");
  EXPECT_EQ(list.code, 0);
  for (const char* v : {"cpu_reference", "cpu_direct", "cpu_fft"})
    EXPECT_NE(list.output.find(v), std::string::npos) << v;
  EXPECT_NE(list.output.find("GPU"), std::string::npos);
}

TEST_F(Cli, EveryFormThroughCsvMatchesTheReference) {
  struct Case {
    const char* form;
    Index nl, nr;
  };
  for (const Case c : {Case{"one_to_one", 1, 1}, Case{"one_to_many", 1, 3}, Case{"n_to_mn", 2, 4},
                       Case{"n_to_m", 2, 3}}) {
    const Stack<float> l = testing::random_stack(7, 11, c.nl, 1, 0, 1),
                       r = testing::random_stack(7, 11, c.nr, 2, 0, 1);
    const CliRun run =
        xcorr(std::string("correlate --form ") + c.form + " --left " + csv("l.csv", l) +
              " --right " + csv("r.csv", r) + " --out " + path("o.csv"));
    ASSERT_EQ(run.code, 0) << run.output;
    const auto out = io::read_matrix_csv(path("o.csv"));
    ASSERT_TRUE(out.is_ok()) << out.status().message();
    const CorrelationProblem p{{*parse_form(c.form), Mode::full}, l.view(), r.view()};
    EXPECT_MATRIX_NEAR(out.value().view(), cpu::correlate_reference(p).view(), 1e-5);
  }
}

TEST_F(Cli, ImagesInValidZnccFindTheKnownShiftAndWriteTiff) {
  const std::string stack = path("stack.tif"), tmpl = path("tmpl.tif");
  ASSERT_TRUE(make_speckle_stack_and_template(stack, tmpl));
  const CliRun r =
      xcorr("correlate --form one_to_many --mode valid --norm zncc --subpixel gaussian --left " +
            tmpl + " --right " + stack + " --out " + path("res.tif"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("result 3 x 64x64"), std::string::npos) << r.output;
  const auto res = io::read_image_stack(path("res.tif"));
  ASSERT_TRUE(res.is_ok()) << res.status().message();
  EXPECT_EQ(res.value().frames.count(), 3);
  EXPECT_NEAR(res.value().frames[0](30, 30), 1.0f, 1e-5f);
  // frame 2 moved by (1.0, -2.5): the template sits at (31.0, 27.5)
  const Peak p2 = find_peak(res.value().frames[2], SubpixelMethod::gaussian).value();
  EXPECT_NEAR(p2.sub_row(), 31.0, 0.05);
  EXPECT_NEAR(p2.sub_col(), 27.5, 0.05);
}

// --output peak: one CSV row per pair with the maximum and its refinement, the same as the
// surface's own peak; refused for full mode and for a .tif output, before any work.
TEST_F(Cli, PeakOutputWritesOneRowPerPairLikeTheSurfacesPeak) {
  const std::string stack = path("stack.tif"), tmpl = path("tmpl.tif");
  ASSERT_TRUE(make_speckle_stack_and_template(stack, tmpl));
  const std::string args =
      "correlate --form one_to_many --mode valid --norm zncc --subpixel "
      "quadratic2d --left " +
      tmpl + " --right " + stack;
  const CliRun r = xcorr(args + " --output peak --out " + path("peaks.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_EQ(xcorr(args + " --out " + path("surfaces.tif")).code, 0);
  const auto surfaces = io::read_image_stack(path("surfaces.tif")).value();
  std::ifstream in(path("peaks.csv"));
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  }
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], "result,left,right,row,col,value,sub_row,sub_col,fit");
  for (Index k = 0; k < 3; ++k) {
    long t = -1, li = -1, ri = -1, row = -1, col = -1;
    double value = 0, sub_row = 0, sub_col = 0;
    char fit[32] = {};
    ASSERT_EQ(std::sscanf(rows[static_cast<std::size_t>(k) + 1].c_str(),
                          "%ld,%ld,%ld,%ld,%ld,%lf,%lf,%lf,%31s", &t, &li, &ri, &row, &col, &value,
                          &sub_row, &sub_col, fit),
              9)
        << rows[static_cast<std::size_t>(k) + 1];
    const Peak p = find_peak(surfaces.frames[k], SubpixelMethod::quadratic2d).value();
    EXPECT_EQ(t, k);
    EXPECT_EQ(ri, k);
    EXPECT_EQ(row, p.row);
    EXPECT_EQ(col, p.col);
    EXPECT_NEAR(value, p.value, 1e-6);
    EXPECT_NEAR(sub_row, p.sub_row(), 1e-5);
    EXPECT_NEAR(sub_col, p.sub_col(), 1e-5);
    EXPECT_EQ(std::string(fit), p.refined ? to_string(p.used) : "none");
    if (k == 2) {  // moved by (1.0, -2.5): the template sits at (31.0, 27.5)
      EXPECT_NEAR(sub_row, 31.0, 0.05);
      EXPECT_NEAR(sub_col, 27.5, 0.05);
    }
  }
  const std::string good = csv("good.csv", testing::random_stack(8, 8, 1, 5));
  expect_bad_input("correlate --form one_to_one --output peak --left " + good + " --right " + good,
                   "--output peak needs --mode valid");
  const CliRun tif = xcorr(args + " --output peak --out " + path("peaks.tif"));
  EXPECT_EQ(tif.code, 2);
  EXPECT_NE(tif.output.find("must end in .csv (peak CSV)"), std::string::npos) << tif.output;
  EXPECT_FALSE(fs::exists(path("peaks.tif")));
}

TEST_F(Cli, ForcedMethodsAgree) {
  const Stack<float> l = testing::random_stack(16, 16, 1, 3, 0, 1),
                     r = testing::random_stack(16, 16, 2, 4, 0, 1);
  const std::string args =
      " --form one_to_many --left " + csv("l.csv", l) + " --right " + csv("r.csv", r);
  ASSERT_EQ(xcorr("correlate" + args + " --method cpu_direct --out " + path("a.csv")).code, 0);
  ASSERT_EQ(xcorr("correlate" + args + " --method cpu_fft --out " + path("b.csv")).code, 0);
  const auto a = io::read_matrix_csv(path("a.csv")).value();
  const auto b = io::read_matrix_csv(path("b.csv")).value();
  Stack<double> bd(b.rows(), b.cols(), b.count());
  for (std::size_t i = 0; i < b.values().size(); ++i) bd.values()[i] = b.values()[i];
  EXPECT_MATRIX_NEAR(a.view(), bd.view(), 1e-5);
}

// --accuracy exact: auto runs a direct variant where fast runs the FFT, the result meets the
// per-element bound on six decades of nonnegative values, and a named FFT variant is refused.
TEST_F(Cli, AccuracyExactRunsADirectVariant) {
  const Stack<float> l = testing::wide_range_stack(96, 96, 1, 21),
                     r = testing::wide_range_stack(96, 96, 1, 22);
  const std::string args =
      "correlate --form one_to_one --left " + csv("l.csv", l) + " --right " + csv("r.csv", r);
  const CliRun fast = xcorr(args + " --out " + path("fast.csv"));
  ASSERT_EQ(fast.code, 0) << fast.output;
  EXPECT_NE(fast.output.find("by cpu_fft"), std::string::npos) << fast.output;
  const CliRun exact = xcorr(args + " --accuracy exact --out " + path("exact.csv"));
  ASSERT_EQ(exact.code, 0) << exact.output;
  EXPECT_NE(exact.output.find("by cpu_direct"), std::string::npos) << exact.output;
  const auto out = io::read_matrix_csv(path("exact.csv"));
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  const CorrelationProblem p{{Form::one_to_one, Mode::full}, l.view(), r.view()};
  EXPECT_LE(testing::accuracy_of(out.value().view(), cpu::correlate_reference(p).view()).element,
            testing::kExactElementBound);
  expect_bad_input(args + " --accuracy exact --method cpu_fft",
                   "cpu_fft does not meet accuracy exact");
}

TEST_F(Cli, BadInputsExitWithTwoAndOneLineAndNoOutput) {
  const std::string good = csv("good.csv", testing::random_stack(8, 8, 1, 5));
  const std::string other = csv("other.csv", testing::random_stack(8, 6, 1, 6));
  const std::string big = csv("big.csv", testing::random_stack(10, 10, 1, 7));
  expect_bad_input("correlate --form one_to_one --left " + path("missing.csv") + " --right " + good,
                   "does not exist");
  expect_bad_input(
      "correlate --form one_to_one --left " + text("h.csv", "8,8\n") + " --right " + good,
      "header must be");
  expect_bad_input(
      "correlate --form one_to_one --left " + text("r.csv", "# 2,2\n1,2\n3\n") + " --right " + good,
      "r.csv:3: expected 2 values, found 1");
  expect_bad_input(
      "correlate --form one_to_one --left " + text("n.csv", "# 1,2\n1,x\n") + " --right " + good,
      "'x' is not a number");
  expect_bad_input("correlate --form one_to_one --left " + good + " --right " + other,
                   "full mode needs left and right matrices of equal size");
  expect_bad_input("correlate --form one_to_one --mode valid --left " + big + " --right " + good,
                   "larger than the search window");
  expect_bad_input("correlate --form one_to_one --left " + text("nan.csv", "# 1,2\n1,nan\n") +
                       " --right " + csv("r2.csv", testing::random_stack(1, 2, 1, 8)),
                   "left matrix 0 has a NaN at row 0, column 1");
  expect_bad_input("correlate --form one_to_one --norm zncc --left " + good + " --right " + good,
                   "zncc normalization needs valid mode");
  expect_bad_input("correlate --form one_to_one --method nope --left " + good + " --right " + good,
                   "unknown method 'nope'");
  expect_bad_input("correlate --form one_to_two --left " + good + " --right " + good, "--form");
  fs::create_directories(dir_ / "empty");
  expect_bad_input("correlate --form one_to_many --left " + good + " --right " + path("empty"),
                   "contains no images");
  ASSERT_EQ(xcorr("speckle --out " + path("t.tif") + " --size 64,64 --frames 3").code, 0);
  fs::resize_file(path("t.tif"), fs::file_size(path("t.tif")) / 2);
  expect_bad_input("correlate --form one_to_many --left " + good + " --right " + path("t.tif"),
                   "corrupt or truncated");
}

TEST_F(Cli, UnsupportedOutputIsRefusedBeforeAnyWork) {
  const std::string good = csv("good.csv", testing::random_stack(4, 4, 1, 9));
  const CliRun r = xcorr("correlate --form one_to_one --left " + good + " --right " + good +
                         " --out " + path("x.json"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("must end in .csv"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("x.json")));
  const CliRun missing_dir = xcorr("correlate --form one_to_one --left " + good + " --right " +
                                   good + " --out " + path("no/x.csv"));
  EXPECT_EQ(missing_dir.code, 2);
  EXPECT_NE(missing_dir.output.find("does not exist"), std::string::npos) << missing_dir.output;
}

TEST_F(Cli, BundledSampleFindsTheKnownTrajectory) {
  const std::string s = std::string(XCORR_SOURCE_DIR) + "/resources/sample/";
  const CliRun r =
      xcorr("correlate --form one_to_many --mode valid --norm zncc --left " + s +
            "template.tif --right " + s + "speckle_stack.tif --out " + path("sample.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto out = io::read_matrix_csv(path("sample.csv"));
  ASSERT_TRUE(out.is_ok()) << out.status().message();
  ASSERT_EQ(out.value().count(), 6);
  for (Index k = 0; k < 6; ++k) {  // truth: resources/sample/README.md
    const Peak p = find_peak(out.value()[k], SubpixelMethod::parabolic).value();
    EXPECT_NEAR(p.sub_row(), 96 + 0.6 * static_cast<double>(k), 0.05) << "frame " << k;
    EXPECT_NEAR(p.sub_col(), 96 - 0.35 * static_cast<double>(k), 0.05) << "frame " << k;
  }
}

TEST_F(Cli, BundledSampleIsWhatTheGeneratorMakes) {
  const std::string src = std::string(XCORR_SOURCE_DIR);
  const int code = std::system(("bash " + src + "/scripts/make-sample.sh " + XCORR_EXE + " " +
                                dir_.string() + " > /dev/null")
                                   .c_str());
  ASSERT_EQ(code, 0);
  for (const char* name : {"speckle_stack.tif", "template.tif", "dic_stack.tif"}) {
    const auto made = io::read_image_stack(dir_ / name);
    const auto committed = io::read_image_stack(src + "/resources/sample/" + name);
    ASSERT_TRUE(made.is_ok() && committed.is_ok()) << name;
    ASSERT_EQ(made.value().frames.values().size(), committed.value().frames.values().size())
        << name;
    for (std::size_t i = 0; i < made.value().frames.values().size(); ++i) {
      ASSERT_LE(std::abs(made.value().frames.values()[i] - committed.value().frames.values()[i]),
                1.0f)
          << name << " " << i;
    }
  }
}

// DIC on the bundled sample (resources/sample/README.md: page k is stretched by k x 0.4 % along
// x and -0.12 % along y about (127.5, 127.5), moved by k x (0.4, 0.25) px).
std::vector<std::vector<std::string>> csv_rows(const std::string& file, std::string* header) {
  std::ifstream f(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("#", 0) == 0) {
      if (header) *header += line + "\n";
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

// Options declared once: `xcorr dic` and `xcorr bench-dic` offer a flag for every DIC option with
// its doc line, and a bad value is refused at parse time naming the option and the rule.
TEST_F(Cli, DicFlagsComeFromTheOptionTable) {
  const CliRun dic_help = xcorr("dic --help"), bench_help = xcorr("bench-dic --help");
  for (const auto& f : dic::dic_option_table()) {
    for (const CliRun* h : {&dic_help, &bench_help}) {
      EXPECT_NE(h->output.find(flag_name(f.key)), std::string::npos) << f.key;
      EXPECT_NE(h->output.find(f.doc.substr(0, 30)), std::string::npos) << f.key;
    }
  }
  const std::string s = std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif";
  expect_bad_input("dic --reference " + s + " --subset 30", "subset 30 px: must be odd");
  expect_bad_input("dic --reference " + s + " --strain cauchy",
                   "strain 'cauchy': expected green_lagrange or engineering");
}

TEST_F(Cli, DicOnTheBundledSampleRecoversTheField) {
  const std::string s = std::string(XCORR_SOURCE_DIR) + "/resources/sample/";
  const CliRun r =
      xcorr("dic --reference " + s + "dic_stack.tif --roi ellipse:127.5,127.5,110,100 " +
            "--subset 31 --step 8 --timings --out " + path("dic.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  // Where the time went (--timings): the job's parts and the frames' phases.
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\ntime: setup [0-9.]+, frames [0-9.]+, "
                                                     "writing [0-9.]+")))
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\nper frame, ms: prepare [0-9.]+, "
                                                     "registrar call [0-9.]+,.* update [0-9.]+")))
      << r.output;
  std::string header;
  const auto rows = csv_rows(path("dic.csv"), &header);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"frame", "x", "y", "u", "v", "exx", "eyy", "exy", "zncc",
                                      "iterations", "status", "sigma_u", "sigma_v"}));
  for (const char* h :
       {"# software: xcorr", "# reference: dic_stack.tif", "# frame 5:", "subset=31 px",
        "step=8 px", "# roi: ellipse:127.5,127.5,110,100", "# units:"})
    EXPECT_NE(header.find(h), std::string::npos) << h;
  int converged = 0, outside = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& c = rows[i];
    ASSERT_EQ(c.size(), 13u);
    if (c[10] == "outside_roi") {
      ++outside;
      EXPECT_EQ(c[3], "nan");
      continue;
    }
    ASSERT_EQ(c[10], "converged") << i;
    ++converged;
    const double k = std::stod(c[0]), x = std::stod(c[1]), y = std::stod(c[2]);
    EXPECT_NEAR(std::stod(c[3]), k * (0.4 + 0.004 * (x - 127.5)), 0.02) << i;
    EXPECT_NEAR(std::stod(c[4]), k * (0.25 - 0.0012 * (y - 127.5)), 0.02) << i;
    if (c[5] != "nan") {
      const double ux = 0.004 * k, vy = -0.0012 * k;
      EXPECT_NEAR(std::stod(c[5]), ux + ux * ux / 2, 5e-4) << i;
      EXPECT_NEAR(std::stod(c[6]), vy + vy * vy / 2, 5e-4) << i;
    }
  }
  EXPECT_EQ(converged, 5 * 542);  // every grid point in the ellipse, 5 frames
  EXPECT_EQ(outside, 0) << "roi_only (the default): rows for the ROI's points only";
}

TEST_F(Cli, DicJobFileRunsTheSameAndBadJobsAreRefusedByKey) {
  const std::string s = std::string(XCORR_SOURCE_DIR) + "/resources/sample/";
  ASSERT_EQ(xcorr("dic --quiet --reference " + s + "dic_stack.tif --roi rect:40,40,180,170 " +
                  "--step 12 --out " + path("cli.csv"))
                .code,
            0);
  text("job.json", "{\"reference\": \"" + s +
                       "dic_stack.tif\", \"roi\": [\"rect:40,40,180,170\"],"
                       " \"step\": 12, \"out\": \"job.csv\"}");
  const CliRun r = xcorr("dic --quiet --job " + path("job.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream a(path("cli.csv")), b(path("job.csv"));
  std::stringstream ta, tb;
  ta << a.rdbuf();
  tb << b.rdbuf();
  EXPECT_EQ(ta.str(), tb.str()) << "CLI options and the job file give byte-identical CSV";

  auto expect_job_error = [&](const std::string& json, const std::string& message) {
    text("bad.json", json);
    const CliRun e = xcorr("dic --job " + path("bad.json"));
    EXPECT_EQ(e.code, 2) << json;
    EXPECT_NE(e.output.find(message), std::string::npos) << e.output;
    EXPECT_FALSE(fs::exists(path("bad.csv")));
  };
  const std::string ref = "\"reference\": \"" + s + "dic_stack.tif\", \"out\": \"bad.csv\"";
  expect_job_error("{" + ref + ", \"subsett\": 31}", "unknown key 'subsett'");
  expect_job_error("{" + ref + ", \"subset\": \"31\"}", "job key 'subset': expected an integer");
  expect_job_error("{" + ref + ", \"subset\": 30}", "subset 30 px: must be odd");
  expect_job_error("{" + ref + ", \"roi\": [\"rect:0,0,-1,5\"]}", "width and height must be > 0");
  expect_job_error("{" + ref + ", \"strain\": \"cauchy\"}",
                   "strain 'cauchy': expected green_lagrange or engineering");
  expect_job_error("{" + ref + ", \"roi\": [\"rect:0,0,5,5\"]}", "the ROI holds no point");
  expect_job_error("{\"out\": \"bad.csv\"}", "names no reference");
  expect_job_error("{" + ref, "not valid JSON");
  expect_job_error("{\"reference\": \"" + path("missing.tif") + "\", \"out\": \"bad.csv\"}",
                   "missing.tif");
}

TEST_F(Cli, DicPerFrameFilesAndMismatchedFrames) {
  const std::string s = std::string(XCORR_SOURCE_DIR) + "/resources/sample/";
  const CliRun r = xcorr("dic --quiet --reference " + s +
                         "dic_stack.tif --step 16 --per-frame --out " + path("f.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  for (int k = 1; k <= 5; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "f_frame%04d.csv", k);
    const auto rows = csv_rows(path(name), nullptr);
    ASSERT_GT(rows.size(), 1u) << name;
    EXPECT_EQ(rows[1][0], std::to_string(k)) << name;
  }
  ASSERT_EQ(xcorr("speckle --out " + path("small.tif") + " --size 200,256").code, 0);
  const CliRun bad = xcorr("dic --reference " + s + "dic_stack.tif --frames " + path("small.tif") +
                           " --out " + path("m.csv"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(
      bad.output.find(
          "is 256 x 200 px (width x height) but the reference is 256 x 256 px (width x height)"),
      std::string::npos)
      << bad.output;
  EXPECT_FALSE(fs::exists(path("m.csv")));
}

// One job runner (docs/design.md): `xcorr dic --job` and `xcorr run` on the same job file write the
// same bytes (the CSV header names images and settings, not the output file).
TEST_F(Cli, DicJobAndRunWriteTheSameBytes) {
  const std::string sample = std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif";
  for (const char* out : {"by_dic.csv", "by_run.csv"}) {
    std::ofstream job(path(std::string(out) + ".json"));
    job << "{\"reference\": \"" << sample << "\", \"out\": \"" << path(out)
        << "\", \"step\": 16, \"roi\": [\"rect:30,30,190,190\"]}";
  }
  const CliRun d = xcorr("dic --quiet --job " + path("by_dic.csv.json"));
  ASSERT_EQ(d.code, 0) << d.output;
  const CliRun r = xcorr("run --quiet " + path("by_run.csv.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream a(path("by_dic.csv"), std::ios::binary), b(path("by_run.csv"), std::ios::binary);
  const std::string da((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  const std::string db((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  ASSERT_GT(da.size(), 1000u);
  EXPECT_EQ(da, db);
}

// Bad input (docs/reliability.md): `xcorr run` and `xcorr dic` (one runner) on a multi-page TIFF
// cut inside page 3 list the lost pages as a failed frame, write the frames they could use (the
// same bytes) and exit 2 (`run` used to exit 0 with fewer frames). An unknown guess method is
// refused before any frame by both, by name, leaving nothing behind.
TEST_F(Cli, RunListsTheLostPagesOfACutStackAndExitsTwo) {
  const std::string sample = std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif";
  fs::copy_file(sample, path("cut.tif"));
  fs::resize_file(path("cut.tif"), fs::file_size(path("cut.tif")) * 7 / 12);  // inside page 3
  auto write_job = [&](const std::string& name, const std::string& out, const std::string& extra) {
    std::ofstream job(path(name));
    job << "{\"reference\": \"" << path("cut.tif") << "\", \"out\": \"" << path(out)
        << "\", \"step\": 16" << extra << "}";
  };
  write_job("job.json", "out.csv", "");
  const CliRun r = xcorr("run " + path("job.json"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("cut.tif[page 3 and later]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 frame(s) failed"), std::string::npos) << r.output;
  ASSERT_TRUE(fs::exists(path("out.csv"))) << "the usable frames are written";
  const CliRun d =
      xcorr("dic --quiet --reference " + path("cut.tif") + " --step 16 --out " + path("d.csv"));
  EXPECT_EQ(d.code, 2) << d.output;
  EXPECT_NE(d.output.find("cut.tif[page 3 and later]"), std::string::npos) << d.output;
  std::ifstream a(path("out.csv"), std::ios::binary), b(path("d.csv"), std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}),
            std::string(std::istreambuf_iterator<char>(b), {}));
  EXPECT_FALSE(fs::exists(path("d.csv.partial")));

  write_job("nope.json", "nope.csv", ", \"method\": \"nope\"");
  for (const std::string& cmd : {"run " + path("nope.json"), "dic --job " + path("nope.json")}) {
    const CliRun e = xcorr(cmd);
    EXPECT_EQ(e.code, 2) << cmd << ": " << e.output;
    EXPECT_NE(e.output.find("unknown method 'nope'"), std::string::npos) << cmd << ": " << e.output;
    EXPECT_FALSE(fs::exists(path("nope.csv")));
  }
  EXPECT_FALSE(fs::exists(path("nope.csv.partial"))) << "dic leaves nothing behind";

  // An existing folder as the output is refused before any frame (it was found only after
  // computing them all, as "cannot write ...: Success").
  fs::create_directories(path("isdir.csv"));
  write_job("isdir.json", "isdir.csv", "");
  const CliRun f = xcorr("run " + path("isdir.json"));
  EXPECT_EQ(f.code, 2) << f.output;
  EXPECT_NE(f.output.find("is a folder, not a file"), std::string::npos) << f.output;
  EXPECT_EQ(f.output.find("frame 1/"), std::string::npos) << "no frame ran: " << f.output;
  EXPECT_FALSE(fs::exists(path("isdir.csv.partial")));
}

// xcorr register on the bundled sample stack (frame k moved by u = k (0.4 + ...) px: a stretch,
// so the drift is that of the region measured): the drift table and the corrected stack, the
// scale given on the command line, and bad settings named.
TEST_F(Cli, RegisterWritesTheDriftAndTheCorrectedStack) {
  const std::string sample = std::string(XCORR_SOURCE_DIR) + "/resources/sample/speckle_stack.tif";
  const CliRun r = xcorr("register " + sample + " --out " + path("c.tif") + " --drift " +
                         path("d.csv") + " --pixel-size 0.5um --frame-interval 2s --crop");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("registered 6 frame\\(s\\) in [0-9.]+ s \\([0-9.]+ "
                           "frames/s, measured on the [a-z' ]+; setup [0-9.]+, frames "
                           "[0-9.]+, writing [0-9.]+[;)]")))
      << r.output;
  std::ifstream f(path("d.csv"));
  const std::string csv((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // The sample moves by (dx, dy) = (-0.35, 0.6) px per frame (resources/sample/README.md).
  EXPECT_NE(csv.find("frame,time_s,dx,dy,dx_um,dy_um,peak\n0,0,0.000000,0.000000,0,0,1.000000\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n5,10,-1.75"), std::string::npos) << csv;
  auto out = io::read_image_stack(path("c.tif"));
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(out.value().frames.count(), 6);
  EXPECT_LT(out.value().frames.shape().cols, 256) << "cropped";

  const CliRun bad =
      xcorr("register " + sample + " --drift " + path("e.csv") + " --region rect:0,0,4,4");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("region 'rect:0,0,4,4' is 4 x 4 px: it must be at least 8 x 8 px"),
            std::string::npos)
      << bad.output;
  const CliRun both = xcorr("register " + sample + " --drift " + path("e.csv") + " --crop --pad");
  EXPECT_EQ(both.code, 2);
  const CliRun method = xcorr("register " + sample + " --drift " + path("e.csv") + " --method fft");
  EXPECT_EQ(method.code, 2);
  EXPECT_NE(method.output.find("expected phase or zncc"), std::string::npos) << method.output;
  EXPECT_FALSE(fs::exists(path("e.csv")));
  // --save-job writes the job that xcorr run runs to the same drift table.
  const CliRun saved =
      xcorr("register " + sample + " --drift " + path("j.csv") +
            " --pixel-size 0.5um --frame-interval 2s --save-job " + path("job.json"));
  ASSERT_EQ(saved.code, 0) << saved.output;
  EXPECT_FALSE(fs::exists(path("j.csv")));
  const CliRun run = xcorr("run " + path("job.json"));
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("register job 1: 6 frames (6 computed, 0 resumed, 0 failed)"),
            std::string::npos)
      << run.output;
  std::ifstream g(path("j.csv"));
  const std::string from_job((std::istreambuf_iterator<char>(g)), std::istreambuf_iterator<char>());
  EXPECT_EQ(from_job.substr(from_job.find("\nframe,")), csv.substr(csv.find("\nframe,")));
}

}  // namespace
}  // namespace xcorr
