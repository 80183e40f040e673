// Stack registration on real TIFF files of an analytic speckle pattern moved by a known random
// walk (synth::render_speckle: exact at any sub-pixel shift, not periodic): the drift of every
// frame for each reference and method, the corrected stack (bit depth, size, content back on the
// reference, scale kept in its metadata), crop, a damaged stack, cancel, and bad settings.
#include "core/register/register_stack.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "core/batch/batch_file.hpp"
#include "core/batch/batch_run.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "core/io/image_metadata.hpp"
#include "core/io/tiff_writer.hpp"
#include "core/synth/speckle.hpp"
#include "tests/support/cpu_registry.hpp"
#include "tests/support/split_engines.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiff_tags.hpp"

namespace xcorr::reg {
namespace {

namespace fs = std::filesystem;

Engines cpu_engine() {
  return {&testing::cpu_registry(), cpu_phase_engines, cpu_volume_engines};
}

class Register : public testing::TempDirTest {
 protected:
  static constexpr Index kFrames = 8;
  // 8 frames of 120 x 150 px, 16-bit, drifting by a random walk (up to ~6 px), with an ImageJ
  // description: 0.5 um pixels, 3 s per frame.
  void SetUp() override {
    TempDirTest::SetUp();
    std::mt19937 g(7);
    std::normal_distribution<double> step(0, 1.2);
    synth::SpeckleOptions o;
    o.rows = 120;
    o.cols = 150;
    o.speckle_radius = 2.2;
    o.offset = 1000;
    o.gain = 40000;
    Stack<float> frames(o.rows, o.cols, kFrames);
    double x = 0, y = 0;
    for (Index k = 0; k < kFrames; ++k) {
      if (k > 0) x += step(g), y += step(g);
      truth_.push_back({x, y});
      const Stack<float> f = synth::render_speckle(o, y, x);
      std::copy_n(f.data(), o.rows * o.cols, frames[k].data);
    }
    stack_ = path("drift.tif");
    ASSERT_TRUE(io::write_image_stack(stack_, frames.view(), io::PixelType::u16).is_ok());
    ASSERT_TRUE(testing::set_tiff_description(
        stack_, "ImageJ=1.54f\nimages=8\nframes=8\nunit=micron\nfinterval=3\n", 2.0f));
  }
  RegisterJob job(const std::string& stem) const {
    RegisterJob j;
    j.stack = stack_;
    j.out = path(stem + ".tif");
    j.drift = path(stem + ".csv");
    return j;
  }
  // The largest error of the drift against the truth (px).
  double worst(const RegisterReport& r) const {
    double e = 0;
    for (std::size_t k = 0; k < truth_.size(); ++k)
      e = std::max(e,
                   std::hypot(r.drift[k].dx - truth_[k].first, r.drift[k].dy - truth_[k].second));
    return e;
  }
  std::string stack_;
  std::vector<std::pair<double, double>> truth_;  // (dx, dy) px per frame
};

TEST_F(Register, EveryReferenceAndMethodFindsTheDrift) {
  struct Case {
    Reference reference;
    Method method;
    double tolerance;  // px
  };
  const Case cases[] = {{Reference::first, Method::phase, 0.01},
                        {Reference::previous, Method::phase, 0.02},
                        {Reference::mean, Method::phase, 0.01},
                        {Reference::first, Method::zncc, 0.05},
                        {Reference::previous, Method::zncc, 0.1}};
  for (const Case& c : cases) {
    RegisterJob j = job("r");
    j.out.clear();
    j.options.reference = c.reference;
    j.options.method = c.method;
    auto r = register_stack(j, cpu_engine());
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    ASSERT_EQ(r.value().drift.size(), static_cast<std::size_t>(kFrames));
    EXPECT_LT(worst(r.value()), c.tolerance) << label(c.reference) << " " << label(c.method);
    EXPECT_EQ(r.value().failed, 0);
    for (const DriftRow& d : r.value().drift) EXPECT_GT(d.peak, 0.9) << d.frame;
  }
  // Without the window and with whitening (scikit-image's default) the frames' borders pull the
  // drift towards none: the reason for the defaults (docs/registration.md).
  RegisterJob plain = job("plain");
  plain.out.clear();
  plain.options.window = Window::none;
  plain.options.whiten = Whiten::on;
  plain.options.iterations = 1;
  auto p = register_stack(plain, cpu_engine());
  ASSERT_TRUE(p.is_ok());
  EXPECT_GT(worst(p.value()), 0.05);
}

// The report says where the time went: its parts add up to no more than the call's wall time,
// each phase took time, and a job of one process spent none in exchanges.
TEST_F(Register, TheReportSaysWhereTheTimeWent) {
  const auto start = std::chrono::steady_clock::now();
  auto r = register_stack(job("timed"), cpu_engine());
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const JobTimes& t = r.value().times;
  EXPECT_GT(t.setup_s, 0);
  EXPECT_GT(t.frames_s, 0);
  EXPECT_GT(t.writing_s, 0);  // the corrected stack and the drift table
  EXPECT_LE(t.total_s(), wall);
  EXPECT_LE(t.reading_wait_s + t.commits_s, t.frames_s);
  EXPECT_GT(t.commits_s, 0);  // a commit per block
  EXPECT_EQ(t.exchanges_s, 0);
}

TEST_F(Register, TheCorrectedStackComesBackOntoTheReferenceWithItsScale) {
  RegisterJob j = job("c");
  auto r = register_stack(j, cpu_engine());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value().written, (std::vector<std::string>{j.out, j.drift}));
  auto out = io::read_image_stack(j.out);
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(out.value().pixel_type, io::PixelType::u16);
  ASSERT_EQ(out.value().frames.count(), kFrames);
  EXPECT_EQ(out.value().frames.shape(), (Shape{120, 150}));
  auto in = io::read_image_stack(stack_);
  // Inside the area every frame covers, corrected frame k equals frame 0 (interpolation error
  // of a speckle of radius 2.2 px: well below 1 % of the 40000 range).
  double largest = 0;
  for (Index k = 1; k < kFrames; ++k)
    for (Index row = 12; row < 108; ++row)
      for (Index col = 12; col < 138; ++col)
        largest = std::max(largest, std::abs(static_cast<double>(out.value().frames[k](row, col)) -
                                             in.value().frames[0](row, col)));
  EXPECT_LT(largest, 400);
  // The scale is kept: an ImageJ description and resolution, read back the same.
  auto meta = io::read_stack_metadata(j.out);
  ASSERT_TRUE(meta.is_ok());
  EXPECT_EQ(meta.value().scale.unit, "um");
  EXPECT_NEAR(meta.value().scale.pixel_x, 0.5, 1e-6);
  EXPECT_EQ(meta.value().scale.frame_interval_s, 3);
  // The drift CSV: units, scale and time columns.
  std::ifstream f(j.drift);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("# scale: pixel 0.5 x 0.5 um (ImageJ description); frame interval 3 "
                            "s (ImageJ description)\n"),
            std::string::npos);
  EXPECT_NE(text.str().find("\nframe,time_s,dx,dy,dx_um,dy_um,peak\n0,0,0.000000,0.000000,0,0,"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("\n7,21,"), std::string::npos);
}

TEST_F(Register, CropKeepsTheAreaEveryFrameCovers) {
  RegisterJob j = job("crop");
  j.options.border = Border::crop;
  auto r = register_stack(j, cpu_engine());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  double x0 = 0, x1 = 149, y0 = 0, y1 = 119;
  for (const auto& [dx, dy] : truth_) {
    x0 = std::max(x0, -dx), x1 = std::min(x1, 149 - dx);
    y0 = std::max(y0, -dy), y1 = std::min(y1, 119 - dy);
  }
  EXPECT_NEAR(r.value().width, std::floor(x1) - std::ceil(x0) + 1, 1);
  EXPECT_NEAR(r.value().height, std::floor(y1) - std::ceil(y0) + 1, 1);
  auto out = io::read_image_stack(j.out);
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(out.value().frames.shape(), (Shape{r.value().height, r.value().width}));
  for (const float v : out.value().frames.values()) ASSERT_GT(v, 500) << "no padding left";
}

TEST_F(Register, ADamagedFrameIsListedAndTheOthersAreWritten) {
  // The frames again without the description (its rewrite moved page 0's directory to the end of
  // the file), then cut inside page 5 of 8.
  auto frames = io::read_image_stack(stack_);
  ASSERT_TRUE(frames.is_ok());
  const fs::path cut = path("cut.tif");
  ASSERT_TRUE(io::write_image_stack(cut, frames.value().frames.view(), io::PixelType::u16).is_ok());
  fs::resize_file(cut, fs::file_size(cut) * 11 / 16);
  RegisterJob j = job("cut_out");
  j.stack = cut.string();
  auto r = register_stack(j, cpu_engine());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_GE(r.value().failed, 1);
  long good = 0;
  for (const DriftRow& d : r.value().drift) good += d.failed.empty() ? 1 : 0;
  auto out = io::read_image_stack(j.out);
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(out.value().frames.count(), good);
  std::ifstream f(j.drift);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("# failed: frame "), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("corrupt or truncated"), std::string::npos) << text.str();
}

// Cancel writes no output; the drift measured so far stays committed, and running the job again
// measures only the rest, with the outputs of an uninterrupted run, for each reference.
// The stack in memory (the Python module's way in) gives the file's drift and corrected pages bit
// for bit; cancel is looked at between the frames of a block, not only after it (a GPU block is
// 32 frames, whose reading alone can pass a second): progress is asked once per frame at least.
TEST_F(Register, AStackInMemoryGivesTheFilesResultsAndCancelIsAskedWhileReading) {
  auto read = io::read_image_stack(stack_);
  ASSERT_TRUE(read.is_ok());
  auto meta = io::read_stack_metadata(stack_);
  ASSERT_TRUE(meta.is_ok());
  MemoryStack m;
  m.name = "drift.tif";
  m.type = io::PixelType::u16;
  m.metadata = meta.value();
  auto pages = std::make_shared<std::vector<Stack<float>>>();
  for (Index k = 0; k < kFrames; ++k) {
    pages->emplace_back(read.value().frames.rows(), read.value().frames.cols(), 1);
    const MatrixView<const float> f = std::as_const(read.value().frames)[k];
    std::copy_n(f.data, f.rows * f.cols, pages->back().data());
  }
  m.pages = pages;
  RegisterJob j = job("memory");
  auto file = register_stack(j, cpu_engine());
  ASSERT_TRUE(file.is_ok());
  long asked = 0;
  Stack<float> corrected;
  auto memory = register_memory(m, j.options, cpu_engine(), &corrected, [&](double, double) {
    ++asked;
    return true;
  });
  ASSERT_TRUE(memory.is_ok()) << memory.status().message();
  for (Index k = 0; k < kFrames; ++k) {
    EXPECT_EQ(memory.value().drift[k].dx, file.value().drift[k].dx) << k;
    EXPECT_EQ(memory.value().drift[k].dy, file.value().drift[k].dy) << k;
  }
  EXPECT_GE(asked, 2);  // each block as read and as measured
  // Cancel is asked while a block is read (every 0.1 s, and once it is read), before its frames
  // are measured: cancelled at the first ask, nothing is measured or committed.
  RegisterJob first_ask = job("first_ask");
  std::vector<double> done_when_asked;
  auto stopped = register_stack(first_ask, cpu_engine(), [&](double done, double) {
    done_when_asked.push_back(done);
    return false;
  });
  EXPECT_EQ(stopped.status().code(), ErrorCode::cancelled);
  EXPECT_EQ(done_when_asked, std::vector<double>{0.0});
  EXPECT_EQ(first_uncommitted_frame(first_ask, kFrames), 1);
  auto written = io::read_image_stack(j.out);
  ASSERT_TRUE(written.is_ok());
  ASSERT_EQ(corrected.count(), written.value().frames.count());
  for (Index i = 0; i < corrected.count() * corrected.rows() * corrected.cols(); ++i)
    ASSERT_EQ(corrected.data()[i], written.value().frames.data()[i]) << i;
  EXPECT_TRUE(memory.value().written.empty());
}

TEST_F(Register, CancelWritesNothingAndTheJobResumes) {
  for (const Reference reference : {Reference::first, Reference::previous, Reference::mean}) {
    const std::string stem = std::string("resume_") + label(reference);
    RegisterJob whole = job(stem + "_whole");
    whole.options.reference = reference;
    auto measured = register_stack(whole, cpu_engine());
    ASSERT_TRUE(measured.is_ok());
    const long pages = static_cast<long>(measured.value().drift.size());
    EXPECT_FALSE(fs::exists(partial_folder(whole))) << "removed when done";
    EXPECT_EQ(first_uncommitted_frame(whole, pages), 1) << "no commits";
    RegisterJob j = job(stem);
    j.options.reference = reference;
    auto r = register_stack(j, cpu_engine(), [](double done, double) { return done < 2; });
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), ErrorCode::cancelled);
    EXPECT_FALSE(fs::exists(j.out));
    EXPECT_FALSE(fs::exists(j.drift));
    EXPECT_TRUE(fs::exists(fs::path(partial_folder(j)) / "drift.txt"));
    const long next = first_uncommitted_frame(j, pages);  // what xcorr-mpi names as lost
    auto again = register_stack(j, cpu_engine());
    ASSERT_TRUE(again.is_ok()) << again.status().message();
    EXPECT_EQ(again.value().resumed, next - 1) << label(reference);
    // Blocks are a few frames per thread: at least the first block was committed.
    EXPECT_GE(again.value().resumed, 2) << label(reference);
    EXPECT_FALSE(fs::exists(partial_folder(j)));
    const auto text = [](const std::string& p) {
      std::ifstream f(p, std::ios::binary);
      std::stringstream s;
      s << f.rdbuf();
      return s.str();
    };
    EXPECT_EQ(text(j.drift), text(whole.drift)) << label(reference);
    EXPECT_EQ(text(j.out), text(whole.out)) << label(reference);
  }
  // Commits of another job (other settings) are set aside, not resumed.
  RegisterJob a = job("other");
  ASSERT_FALSE(
      register_stack(a, cpu_engine(), [](double done, double) { return done < 5; }).is_ok());
  EXPECT_GT(first_uncommitted_frame(a, 100), 1);
  a.options.upsample = 20;
  EXPECT_EQ(first_uncommitted_frame(a, 100), 1) << "another job's commits";
  auto other = register_stack(a, cpu_engine());
  ASSERT_TRUE(other.is_ok());
  EXPECT_EQ(other.value().resumed, 0);
}

// Blocks shared among lanes as among GPUs (PhaseEngine::frames_per_call: blocks of 2 lanes x 3
// frames, the next block read while one is measured) give the drift and the corrected stack of
// one engine, byte for byte, for every reference; a cancelled run of them resumes to the same.
TEST_F(Register, BlocksSharedAmongLanesGiveTheBytesOfOneEngineAndResume) {
  const Engines split{
      &testing::cpu_registry(),
      [](Shape shape, const PhaseOptions& o, int iterations, const std::string&,
         const std::string&) { return testing::split_cpu_engine(2, 3, shape, o, iterations); },
      cpu_volume_engines};
  const auto text = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  for (const Reference reference : {Reference::first, Reference::previous, Reference::mean}) {
    const std::string stem = std::string("lanes_") + label(reference);
    RegisterJob one = job(stem + "_one"), lanes = job(stem + "_lanes");
    one.options.reference = lanes.options.reference = reference;
    ASSERT_TRUE(register_stack(one, cpu_engine()).is_ok());
    auto shared = register_stack(lanes, split);
    ASSERT_TRUE(shared.is_ok()) << shared.status().message();
    EXPECT_EQ(text(lanes.drift), text(one.drift)) << label(reference);
    EXPECT_EQ(text(lanes.out), text(one.out)) << label(reference);
    RegisterJob cut = job(stem + "_cut");
    cut.options.reference = reference;
    auto r = register_stack(cut, split, [](double done, double) { return done < 2; });
    ASSERT_EQ(r.status().code(), ErrorCode::cancelled) << label(reference);
    EXPECT_EQ(first_uncommitted_frame(cut, kFrames), 7) << "one block of 6 committed";
    auto again = register_stack(cut, split);
    ASSERT_TRUE(again.is_ok()) << again.status().message();
    EXPECT_EQ(again.value().resumed, 6) << label(reference);
    EXPECT_EQ(text(cut.drift), text(one.drift)) << label(reference);
  }
}

TEST_F(Register, BadSettingsAreNamed) {
  RegisterJob bad = job("bad");
  bad.options.region = "rect:100,10,80,40";
  EXPECT_EQ(register_stack(bad, cpu_engine()).status().message(),
            "region 'rect:100,10,80,40' must lie inside the 150 x 120 px frame (width x height)");
  bad.options.region = "rect:10,10";
  EXPECT_EQ(register_stack(bad, cpu_engine()).status().message(),
            "region 'rect:10,10': expected rect:x,y,w,h (px)");
  bad.options.region.clear();
  bad.out = path("bad.png");
  EXPECT_EQ(
      register_stack(bad, cpu_engine()).status().message(),
      "corrected stack '" + path("bad.png") + "' must end in .tif or .tiff (a multi-page TIFF)");
  bad.out.clear();
  bad.drift.clear();
  EXPECT_NE(register_stack(bad, cpu_engine()).status().message().find("the job writes nothing"),
            std::string::npos);
  RegisterJob region = job("region");
  region.out.clear();
  region.options.region = "rect:30,20,90,70";
  auto in_region = register_stack(region, cpu_engine());
  ASSERT_TRUE(in_region.is_ok());
  EXPECT_LT(worst(in_region.value()), 0.02);
  // Several GPUs share the phase method's 2-D translations only.
  RegisterJob gpus = job("gpus");
  gpus.options.devices = "0,1";
  gpus.options.transform = Transform::rigid;
  EXPECT_EQ(register_stack(gpus, cpu_engine()).status().message(),
            "devices 0,1: only the phase method's 2-D translations share frames among GPUs; "
            "transforms, zncc and volumes run on one (devices 0)");
  gpus.options.transform = Transform::translation;
  gpus.options.devices = "0,zero";
  EXPECT_NE(register_stack(gpus, cpu_engine()).status().message().find("0,zero"),
            std::string::npos);
}

// A register job in a job or batch file: strict parsing that names the key, a round trip through
// its JSON, and `xcorr run`'s batch runner running it after the DIC jobs with the same outputs as
// register_stack.
TEST_F(Register, ARegisterJobRunsFromABatchFile) {
  const std::string text = R"({"type": "register", "name": "d", "stack": "drift.tif",
    "out": "b.tif", "drift": "b.csv", "reference": "previous", "border": "crop"})";
  auto job = parse_register_job(text, dir_);
  ASSERT_TRUE(job.is_ok()) << job.status().message();
  EXPECT_EQ(job.value().stack, stack_);
  EXPECT_EQ(job.value().options.reference, Reference::previous);
  auto again = parse_register_job(to_json(job.value()), "/");
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(to_json(again.value()), to_json(job.value()));
  EXPECT_EQ(parse_register_job(R"({"type": "register", "stack": "s.tif", "drift": "d.csv",
    "upsample": "many"})",
                               dir_)
                .status()
                .message(),
            "job key 'upsample': expected an integer");
  // smoothing: "auto" (the default), or a sigma of 0-10 px, as a string or a number.
  EXPECT_EQ(job.value().options.smoothing, "auto");
  for (const char* given : {R"(2)", R"("2")", R"(0.5)"}) {
    auto s = parse_register_job(
        std::string(R"({"type": "register", "stack": "s.tif", "drift": "d.csv", "transform":
        "rigid", "smoothing": )") +
            given + "}",
        dir_);
    ASSERT_TRUE(s.is_ok()) << given << ": " << s.status().message();
    EXPECT_EQ(s.value().options.smoothing_px(), given[0] == '0' ? 0.5 : 2.0);
  }
  for (const char* given : {R"("sharp")", R"(-1)", R"("11")", R"("")"}) {
    auto s = parse_register_job(
        std::string(R"({"type": "register", "stack": "s.tif", "drift": "d.csv", "smoothing": )") +
            given + "}",
        dir_);
    const std::string said = s.is_ok() ? s.value().options.check().message() : s.status().message();
    EXPECT_NE(said.find("is neither auto nor a sigma of 0-10 px"), std::string::npos)
        << given << ": " << said;
  }
  EXPECT_EQ(parse_register_job(R"({"type": "register", "stack": "s.tif", "drift": "d.csv",
    "subset": 31})",
                               dir_)
                .status()
                .message(),
            "the register job has an unknown key 'subset'");
  EXPECT_EQ(parse_register_job(R"({"type": "drift", "stack": "s.tif"})", dir_).status().message(),
            "job key 'type': expected \"register\" or \"dic\" (a DIC job may leave it out), "
            "found \"drift\"");
  // "type": "dic" is a DIC job; its keys are checked as a DIC job's (was: "the register job
  // has an unknown key").
  const auto typed = dic::parse_batch(
      R"({"jobs": [{"type": "dic", "reference": "s.tif", "out": "o.csv"}]})", dir_);
  ASSERT_TRUE(typed.is_ok()) << typed.status().message();
  EXPECT_EQ(typed.value().jobs.size(), 1u);
  EXPECT_NE(dic::parse_batch(R"({"jobs": [{"type": "dic", "stack": "s.tif"}]})", dir_)
                .status()
                .message()
                .find("job 1: the job file has an unknown key 'stack'"),
            std::string::npos)
      << dic::parse_batch(R"({"jobs": [{"type": "dic", "stack": "s.tif"}]})", dir_)
             .status()
             .message();

  const std::string batch = R"({"jobs": [)" + to_json(job.value()) + "]}";
  auto b = dic::parse_batch(batch, dir_);
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  ASSERT_EQ(b.value().registrations.size(), 1u);
  EXPECT_EQ(dic::job_label(b.value(), 0), "register job 1 ('d')");
  std::vector<double> progress;
  batch::BatchHooks hooks;
  hooks.frame = [&](std::size_t, double done, Index) {
    progress.push_back(done);
    return true;
  };
  auto reports = batch::run_batch(b.value(), {}, hooks);
  ASSERT_TRUE(reports.is_ok()) << reports.status().message();
  ASSERT_EQ(reports.value().size(), 1u);
  EXPECT_EQ(reports.value()[0].frames, kFrames);
  EXPECT_EQ(reports.value()[0].written, (std::vector<std::string>{path("b.tif"), path("b.csv")}));
  EXPECT_FALSE(progress.empty());
  EXPECT_NEAR(progress.back(), static_cast<double>(kFrames), 1e-9);
  // The same drift table as register_stack writes for the job.
  std::ifstream f(path("b.csv"));
  std::stringstream batch_csv;
  batch_csv << f.rdbuf();
  RegisterJob direct = job.value();
  direct.out.clear();
  direct.drift = path("direct.csv");
  ASSERT_TRUE(register_stack(direct, cpu_engine()).is_ok());
  std::ifstream g(direct.drift);
  std::stringstream direct_csv;
  direct_csv << g.rdbuf();
  EXPECT_EQ(batch_csv.str(), direct_csv.str());
  // Two jobs writing one file are refused before any work, naming both.
  dic::Batch twice = b.value();
  twice.registrations.push_back(twice.registrations[0]);
  EXPECT_NE(batch::validate_batch(twice).message().find(
                "register job 2 ('d'): the corrected stack (out) '" + path("b.tif") +
                "' is also register job 1 ('d')"),
            std::string::npos);
}

}  // namespace
}  // namespace xcorr::reg

namespace xcorr::reg {
namespace {

// A texture defined at every point: 150 plane waves of periods 3-40 px in random directions.
double waves(double x, double y) {
  struct Wave {
    double fx, fy, phase;
  };
  static const std::vector<Wave> w = [] {
    std::mt19937 g(11);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<Wave> v;
    for (int k = 0; k < 150; ++k) {
      const double period = 3 + 37 * u(g), theta = 6.283185307179586 * u(g);
      v.push_back({std::cos(theta) / period, std::sin(theta) / period, 6.283185307179586 * u(g)});
    }
    return v;
  }();
  double v = 0;
  for (const Wave& k : w) v += std::cos(6.283185307179586 * (k.fx * x + k.fy * y) + k.phase);
  return 1000 + 10 * v;
}

class RegisterTransform : public testing::TempDirTest {};

TEST_F(RegisterTransform, ARigidStackGivesItsAnglesTableCorrectedStackAndApply) {
  const Index rows = 101, cols = 127, frames = 5;
  const double angles[] = {0, 2.5, -4, 7.5, -9.7};  // degrees
  const double cx = 63, cy = 50;
  std::vector<Affine> truth;
  Stack<float> s(rows, cols, frames);
  for (Index k = 0; k < frames; ++k) {
    const Affine a =
        Affine::about(cx, cy, 0.3 * static_cast<double>(k), -0.7 * static_cast<double>(k),
                      Affine::rotation(angles[k] * 3.141592653589793 / 180));
    truth.push_back(a);
    const Affine back = a.inverse();
    for (Index r = 0; r < rows; ++r)
      for (Index c = 0; c < cols; ++c)
        s[k](r, c) =
            static_cast<float>(waves(back.x(static_cast<double>(c), static_cast<double>(r)),
                                     back.y(static_cast<double>(c), static_cast<double>(r))));
  }
  const std::string stack = path("turning.tif");
  ASSERT_TRUE(io::write_image_stack(stack, s.view(), io::PixelType::f32).is_ok());
  RegisterJob j;
  j.stack = stack;
  j.out = path("rigid.tif");
  j.drift = path("rigid.csv");
  j.options.transform = Transform::rigid;
  auto r = register_stack(j, cpu_engine());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r.value().failed, 0) << r.value().drift[1].failed;
  for (Index k = 0; k < frames; ++k) {
    const Affine fit = drift_map(r.value().drift[static_cast<std::size_t>(k)], {rows, cols});
    EXPECT_NEAR(fit.angle_degrees(), angles[k], 0.01) << k;
    // The frame's centre moved as the truth moves it.
    EXPECT_NEAR(fit.x(cx, cy), truth[static_cast<std::size_t>(k)].x(cx, cy), 0.02) << k;
    EXPECT_NEAR(fit.y(cx, cy), truth[static_cast<std::size_t>(k)].y(cx, cy), 0.02) << k;
  }
  std::ifstream f(j.drift);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("\nframe,dx,dy,angle_deg,scale,a11,a12,a13,a21,a22,a23,peak\n"),
            std::string::npos)
      << text.str();
  // The corrected frames are back on frame 0 where their source is inside the frame.
  auto out = io::read_image_stack(j.out);
  ASSERT_TRUE(out.is_ok());
  double largest = 0;
  for (Index k = 1; k < frames; ++k)
    for (Index row = 30; row < 70; ++row)
      for (Index col = 40; col < 87; ++col)
        largest = std::max(largest, std::abs(static_cast<double>(out.value().frames[k](row, col)) -
                                             s[0](row, col)));
  EXPECT_LT(largest, 5);  // of a ~700 grey-value range
  // --apply with the table gives the same corrected stack.
  RegisterJob a;
  a.stack = stack;
  a.apply = j.drift;
  a.out = path("applied.tif");
  auto applied = register_stack(a, cpu_engine());
  ASSERT_TRUE(applied.is_ok()) << applied.status().message();
  auto again = io::read_image_stack(a.out);
  ASSERT_TRUE(again.is_ok());
  double apart = 0;
  for (Index k = 0; k < frames; ++k)
    for (Index i = 0; i < rows * cols; ++i)
      apart = std::max(apart, std::abs(static_cast<double>(again.value().frames[k].data[i]) -
                                       out.value().frames[k].data[i]));
  EXPECT_LT(apart, 1e-2);  // the table's 9 digits
  // Crop: the area every rotated frame covers, no padding left.
  j.options.border = Border::crop;
  j.out = path("crop.tif");
  j.drift = path("crop.csv");
  auto c = register_stack(j, cpu_engine());
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  EXPECT_LT(c.value().width, cols - 10);
  auto cropped = io::read_image_stack(j.out);
  ASSERT_TRUE(cropped.is_ok());
  for (const float v : cropped.value().frames.values()) ASSERT_GT(v, 500) << "no padding left";
  // A frame rotated beyond the searched range fails by name; the rest is written.
  j.options.border = Border::pad;
  j.options.max_rotation = 5;
  j.out = path("limited.tif");
  j.drift = path("limited.csv");
  auto limited = register_stack(j, cpu_engine());
  ASSERT_TRUE(limited.is_ok()) << limited.status().message();
  EXPECT_EQ(limited.value().failed, 2)
      << limited.value().drift[1].failed << "; " << limited.value().drift[2].failed;
  EXPECT_NE(limited.value().drift[3].failed.find("beyond the searched +-5 degrees"),
            std::string::npos)
      << limited.value().drift[3].failed;
}

}  // namespace
}  // namespace xcorr::reg

namespace xcorr::reg {
namespace {

// A 3-D texture defined at every point: 100 plane waves of periods 4-24 voxels.
double waves3(double x, double y, double z) {
  struct Wave {
    double fx, fy, fz, phase;
  };
  static const std::vector<Wave> w = [] {
    std::mt19937 g(5);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<Wave> v;
    for (int k = 0; k < 100; ++k) {
      const double period = 4 + 20 * u(g), theta = 6.283185307179586 * u(g), cz = 2 * u(g) - 1;
      const double sz = std::sqrt(1 - cz * cz);
      v.push_back({sz * std::cos(theta) / period, sz * std::sin(theta) / period, cz / period,
                   6.283185307179586 * u(g)});
    }
    return v;
  }();
  double v = 0;
  for (const Wave& k : w)
    v += std::cos(6.283185307179586 * (k.fx * x + k.fy * y + k.fz * z) + k.phase);
  return v;
}

class RegisterVolumes : public testing::TempDirTest {};

constexpr Index kZRows = 48, kZCols = 56;
constexpr long kZSlices = 12, kZChannels = 2, kZFrames = 5;
constexpr double kZDrift[][3] = {
    {0, 0, 0}, {1.3, -0.6, 0.4}, {2.2, -1.4, 0.9}, {-0.7, 0.8, -0.6}, {3.1, 1.9, 1.3}};
using Texture = std::function<float(long c, double x, double y, double z)>;

// A TZCYX hyperstack of 2 channels, 12 z-planes (dims auto: volumes), 5 time points of
// `value` drifting by kZDrift in x, y and z; 0.5 um pixels, 1.5 um z spacing.
Status write_zstack(const std::string& stack, const Texture& value) {
  const Index rows = kZRows, cols = kZCols;
  const long slices = kZSlices, channels = kZChannels, frames = kZFrames;
  io::StackMetadata m;
  m.layout.channels = channels;
  m.layout.slices = slices;
  m.layout.frames = frames;
  m.spacing_z = 1.5;
  io::ImageScale scale;
  scale.pixel_x = scale.pixel_y = 0.5;
  scale.unit = "um";
  const std::string description =
      io::derived_description(m, {rows, cols}, frames, io::PixelType::f32, scale);
  return io::write_atomically(stack, [&](const fs::path& tmp) -> Status {
    auto w = io::TiffWriter::create(tmp, io::PixelType::f32, {rows, cols},
                                    channels * slices * frames, description, scale);
    if (!w.is_ok()) return w.status();
    for (long p = 0; p < channels * slices * frames; ++p) {
      // ImageJ order: channel fastest, then z, then time.
      const long c = p % channels, z = (p / channels) % slices, t = p / (channels * slices);
      const auto& d = kZDrift[t];
      XCORR_RETURN_IF_ERROR(w.value()->add_page_rows([&](Index r, float* out) {
        for (Index k = 0; k < cols; ++k)
          out[k] = value(c, static_cast<double>(k) - d[0], static_cast<double>(r) - d[1],
                         static_cast<double>(z) - d[2]);
      }));
    }
    return w.value()->close();
  });
}

// A volume registration of write_zstack's stack: every time point measured, kZDrift within
// 0.05 px in x and y and 0.1 plane in z.
void expect_zstack_drift(const RegisterReport& r) {
  ASSERT_TRUE(r.volumes);
  ASSERT_EQ(r.failed, 0);
  for (long t = 0; t < kZFrames; ++t) {
    const DriftRow& d = r.drift[static_cast<std::size_t>(t)];
    EXPECT_NEAR(d.dx, kZDrift[t][0], 0.05) << t;
    EXPECT_NEAR(d.dy, kZDrift[t][1], 0.05) << t;
    EXPECT_NEAR(d.dz, kZDrift[t][2], 0.1) << t;
  }
}

TEST_F(RegisterVolumes, AZStackOverTimeGivesItsXYZDriftAndMovesEveryPlane) {
  const Index rows = kZRows, cols = kZCols;
  const long slices = kZSlices, channels = kZChannels, frames = kZFrames;
  const std::string stack = path("zstack.tif");
  const auto value = [](long c, double x, double y, double z) {
    return static_cast<float>(1000 + 100 * waves3(x + 40 * static_cast<double>(c), y, z));
  };
  ASSERT_TRUE(write_zstack(stack, value).is_ok());
  RegisterJob j;
  j.stack = stack;
  j.out = path("zstack_registered.tif");
  j.drift = path("zstack.csv");
  auto r = register_stack(j, cpu_engine());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  expect_zstack_drift(r.value());
  std::ifstream f(j.drift);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("\nframe,dx,dy,dz,dx_um,dy_um,dz_um,peak\n"), std::string::npos)
      << text.str();
  // The corrected hyperstack: every channel and z-plane, back on time point 0 inside (the
  // planes near the ends of z and the borders have no source for the drifted volumes).
  auto meta = io::read_stack_metadata(j.out);
  ASSERT_TRUE(meta.is_ok());
  EXPECT_EQ(meta.value().layout.slices, slices);
  EXPECT_EQ(meta.value().layout.channels, channels);
  auto out = io::read_image_stack(j.out);
  ASSERT_TRUE(out.is_ok());
  ASSERT_EQ(out.value().frames.count(), channels * slices * frames);
  double largest = 0;
  for (long t = 1; t < frames; ++t)
    for (long c = 0; c < channels; ++c)
      for (long z = 3; z < slices - 3; ++z) {
        const Index p = (t * slices + z) * channels + c;
        for (Index row = 8; row < rows - 8; ++row)
          for (Index col = 8; col < cols - 8; ++col)
            largest = std::max(largest,
                               std::abs(static_cast<double>(out.value().frames[p](row, col)) -
                                        value(c, static_cast<double>(col), static_cast<double>(row),
                                              static_cast<double>(z))));
      }
  EXPECT_LT(largest, 30);  // of a ~2000 grey-value range: cubic interpolation of 4-voxel waves
  // --apply with the table (it has dz): the same corrected stack.
  RegisterJob a;
  a.stack = stack;
  a.apply = j.drift;
  a.out = path("applied.tif");
  auto applied = register_stack(a, cpu_engine());
  ASSERT_TRUE(applied.is_ok()) << applied.status().message();
  auto again = io::read_image_stack(a.out);
  ASSERT_TRUE(again.is_ok());
  double apart = 0;
  for (Index p = 0; p < out.value().frames.count(); ++p)
    for (Index i = 0; i < rows * cols; ++i)
      apart = std::max(apart, std::abs(static_cast<double>(again.value().frames[p].data[i]) -
                                       out.value().frames[p].data[i]));
  EXPECT_LT(apart, 0.05);
  // Resume: a run cancelled after its first block keeps what it measured; the next run measures
  // only the rest and writes the same bytes as the uninterrupted run.
  RegisterJob rj = j;
  rj.out = path("resumed.tif");
  rj.drift = path("resumed.csv");
  auto stopped = register_stack(rj, cpu_engine(), [](double done, double) { return done < 2.5; });
  ASSERT_FALSE(stopped.is_ok());
  EXPECT_EQ(stopped.status().code(), ErrorCode::cancelled);
  EXPECT_FALSE(fs::exists(rj.out));
  EXPECT_TRUE(fs::exists(rj.drift + ".partial/drift.txt"));
  auto resumed = register_stack(rj, cpu_engine());
  ASSERT_TRUE(resumed.is_ok()) << resumed.status().message();
  EXPECT_GT(resumed.value().resumed, 0);
  EXPECT_FALSE(fs::exists(rj.drift + ".partial"));
  const auto bytes = [](const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(rj.drift), bytes(j.drift));
  EXPECT_EQ(bytes(rj.out), bytes(j.out));
  // dims 2 on the same stack: the 2-D path (no dz column), as before --dims.
  j.options.dims = "2";
  j.out.clear();
  j.drift = path("flat.csv");
  auto flat = register_stack(j, cpu_engine());
  ASSERT_TRUE(flat.is_ok()) << flat.status().message();
  EXPECT_FALSE(flat.value().volumes);
  // dims 3 with reference mean or a transform is refused by name.
  j.options.dims = "3";
  j.options.reference = Reference::mean;
  auto refused = register_stack(j, cpu_engine());
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("reference mean is 2-D only"), std::string::npos);
}

// channel sum: channel 0 is flat (it alone has nothing to measure), channel 1 the texture; the
// sum measures the drift, channel 0 alone fails every time point by name, and frames (dims 2)
// refuse the sum by name.
TEST_F(RegisterVolumes, ChannelSumMeasuresOnEveryChannelAdded) {
  const std::string stack = path("half_flat.tif");
  ASSERT_TRUE(write_zstack(stack, [](long c, double x, double y, double z) {
                return static_cast<float>(c == 0 ? 500.0 : 1000 + 100 * waves3(x, y, z));
              }).is_ok());
  RegisterJob j;
  j.stack = stack;
  j.drift = path("sum.csv");
  j.options.channel = "sum";
  auto r = register_stack(j, cpu_engine());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  expect_zstack_drift(r.value());
  j.options.channel = "0";
  j.drift = path("flat.csv");
  auto flat = register_stack(j, cpu_engine());
  ASSERT_FALSE(flat.is_ok());  // the reference volume itself is flat
  EXPECT_NE(flat.status().message().find("reference time point 0 cannot be used"),
            std::string::npos)
      << flat.status().message();
  j.options.channel = "sum";
  j.options.dims = "2";
  auto frames = register_stack(j, cpu_engine());
  ASSERT_FALSE(frames.is_ok());
  EXPECT_EQ(frames.status().message(),
            "channel sum adds the channels of volumes (dims 3) only: name the channel that "
            "frames are measured on");
}

}  // namespace
}  // namespace xcorr::reg
