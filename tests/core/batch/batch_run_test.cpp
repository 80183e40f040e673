// Resumable batch runs on real image files (the bundled sample stack, and frames written to a
// folder): Cancel mid-job then run again gives byte-for-byte the uninterrupted CSV (reference and
// incremental modes); a truncated frame fails alone and is listed; validation names bad jobs
// before any work.
#include "core/batch/batch_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/cpu/add_variants.hpp"
#include "core/io/image_io.hpp"
#include "core/io/lazy_stack.hpp"
#include "core/registry.hpp"
#include "tests/support/matrix_testing.hpp"
#include "tests/support/pipeline_testing.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiff_writing.hpp"

namespace xcorr::batch {
namespace {

namespace fs = std::filesystem;
const std::string kSample = std::string(XCORR_SOURCE_DIR) + "/resources/sample/dic_stack.tif";

Registry& cpu_engine() {
  static Registry r = [] {
    Registry reg;
    add_cpu_variants(reg);
    return reg;
  }();
  return r;
}

RegistrarFactory cpu_factory() {
  return [](const dic::DicOptions&) -> Result<std::unique_ptr<dic::FrameRegistrar>> {
    return dic::make_cpu_registrar(cpu_engine());
  };
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class BatchRun : public testing::TempDirTest {
 protected:
  dic::DicJob job(const std::string& out) const {
    dic::DicJob j;
    j.name = "sample";
    j.reference = kSample;
    j.out = path(out);
    j.roi.shapes.push_back(dic::parse_roi_shape("rect:40,40,180,180").value());
    j.options.subset = 31;
    j.options.step = 10;
    return j;
  }
};

// `resume_devices`: the rerun's `devices` (a placement option: it must not stop the resume).
void resume_equals_uninterrupted(BatchRun& t, dic::DicJob full, dic::DicJob parts,
                                 const std::string& resume_devices = "0") {
  auto frames = count_frames(full);
  ASSERT_TRUE(frames.is_ok()) << frames.status().message();
  EXPECT_EQ(frames.value(), 5);
  auto whole = run_job(full, cpu_factory());
  ASSERT_TRUE(whole.is_ok()) << whole.status().message();
  ASSERT_EQ(whole.value().frames, 5);
  // Cancel after frame 2: the CSV is not written, two frames are committed.
  auto stopped = run_job(parts, cpu_factory(), [](double done, Index) { return done < 2; });
  ASSERT_FALSE(stopped.is_ok());
  EXPECT_EQ(stopped.status().code(), ErrorCode::cancelled);
  EXPECT_FALSE(fs::exists(parts.out));
  EXPECT_TRUE(fs::exists(fs::path(partial_folder(parts)) / "frame_000002.bin"));
  // What xcorr-mpi names as not computed when a rank is lost: what the next run computes.
  EXPECT_EQ(uncommitted_frames(dic::Batch{{parts}, {}, {}}, 0, 5), (std::vector<Index>{3, 4, 5}));
  dic::DicJob fresh = parts;
  fresh.out += ".fresh.csv";
  EXPECT_EQ(uncommitted_frames(dic::Batch{{fresh}, {}, {}}, 0, 5),
            (std::vector<Index>{1, 2, 3, 4, 5}))
      << "no commits: every frame";
  parts.options.devices = resume_devices;
  auto again = run_batch(dic::Batch{{parts}, {}, {}}, cpu_factory());
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  const JobReport& resumed = again.value().at(0);
  EXPECT_EQ(resumed.resumed, 2);
  EXPECT_EQ(resumed.computed, 3);
  EXPECT_FALSE(fs::exists(partial_folder(parts))) << "removed when the batch is done";
  // Same bytes apart from the output name, which the CSV header does not carry.
  EXPECT_EQ(slurp(full.out), slurp(parts.out));
  (void)t;
}

TEST_F(BatchRun, CancelThenRunAgainGivesTheUninterruptedCsv) {
  resume_equals_uninterrupted(*this, job("whole.csv"), job("parts.csv"));
}

TEST_F(BatchRun, ARunResumesOnOtherDevices) {
  resume_equals_uninterrupted(*this, job("whole.csv"), job("parts.csv"), "0,1");
}

TEST_F(BatchRun, IncrementalModeResumesFromTheMovedReference) {
  dic::DicJob a = job("whole.csv"), b = job("parts.csv");
  for (dic::DicJob* j : {&a, &b}) {
    j->options.stack_mode = dic::StackMode::incremental;
    j->options.reference_update = 2;  // the reference moves to frame 2 before the cancel
  }
  resume_equals_uninterrupted(*this, a, b);
}

// A batch stopped in its second job recomputes nothing of the first when run again: every job's
// commits are kept until the whole batch is done.
TEST_F(BatchRun, ABatchStoppedInItsSecondJobKeepsTheFirstJobsFrames) {
  const dic::Batch b{{job("first.csv"), job("second.csv")}, {}, {}};
  std::vector<Index> totals;
  std::vector<std::size_t> started, done;
  BatchHooks stop;
  stop.started = [&](const std::vector<Index>& frames) { totals = frames; };
  stop.job_started = [&](std::size_t k) { started.push_back(k); };
  stop.frame = [](std::size_t k, double n, Index) { return k == 0 || n < 2; };
  stop.job_done = [&](std::size_t k, const JobReport&) { done.push_back(k); };
  auto stopped = run_batch(b, cpu_factory(), stop);
  ASSERT_FALSE(stopped.is_ok());
  EXPECT_EQ(stopped.status().code(), ErrorCode::cancelled);
  EXPECT_NE(stopped.status().message().find("job 2"), std::string::npos)
      << stopped.status().message();
  EXPECT_EQ(totals, (std::vector<Index>{5, 5}));
  EXPECT_EQ(started, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(done, (std::vector<std::size_t>{0}));
  EXPECT_TRUE(fs::exists(b.jobs[0].out));
  EXPECT_TRUE(fs::exists(partial_folder(b.jobs[0]))) << "kept until the batch is done";
  const std::string first = slurp(b.jobs[0].out);

  auto again = run_batch(b, cpu_factory());
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  EXPECT_EQ(again.value()[0].computed, 0);
  EXPECT_EQ(again.value()[0].resumed, 5);
  EXPECT_EQ(again.value()[1].computed, 3);
  EXPECT_EQ(again.value()[1].resumed, 2);
  EXPECT_EQ(slurp(b.jobs[0].out), first);
  EXPECT_FALSE(fs::exists(partial_folder(b.jobs[0])));
  EXPECT_FALSE(fs::exists(partial_folder(b.jobs[1])));
  // The same bytes as a batch that ran through.
  const dic::Batch through{{job("through.csv")}, {}, {}};
  ASSERT_TRUE(run_batch(through, cpu_factory()).is_ok());
  EXPECT_EQ(slurp(b.jobs[1].out), slurp(through.jobs[0].out));
}

// Jobs in a pipeline: job 1's results are written while job 2 runs. A write that fails (here job
// 1's output became a folder during its last frame) stops the batch with job 1's message once job
// 2 has run; job_done is not called for job 1, job 2's commits are kept and nothing of it is
// written. Run again: both jobs come from their commits, to an uninterrupted batch's bytes.
TEST_F(BatchRun, AFailedWriteWhileTheNextJobRunsStopsTheBatchWithItsJobsMessage) {
  const dic::Batch b{{job("one.csv"), job("two.csv")}, {}, {}};
  std::vector<std::size_t> done;
  std::vector<double> second;  // job 2's progress, frames
  BatchHooks hooks;
  hooks.frame = [&](std::size_t k, double n, Index total) {
    if (k == 0 && n >= static_cast<double>(total)) fs::create_directory(b.jobs[0].out);
    if (k == 1) second.push_back(n);
    return true;
  };
  hooks.job_done = [&](std::size_t k, const JobReport&) { done.push_back(k); };
  auto failed = run_batch(b, cpu_factory(), hooks);
  ASSERT_FALSE(failed.is_ok());
  EXPECT_EQ(failed.status().message().rfind("job 1 ('sample'): ", 0), 0u)
      << failed.status().message();
  EXPECT_NE(failed.status().message().find("is a folder"), std::string::npos)
      << failed.status().message();
  EXPECT_TRUE(done.empty());
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(second.back(), 5.0) << "job 2 ran while job 1 was written";
  EXPECT_FALSE(fs::exists(b.jobs[1].out));
  EXPECT_TRUE(fs::exists(fs::path(partial_folder(b.jobs[1])) / "frame_000005.bin"));

  fs::remove(b.jobs[0].out);
  auto again = run_batch(b, cpu_factory());
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  ASSERT_EQ(again.value().size(), 2u);
  for (const JobReport& r : again.value()) {
    EXPECT_EQ(r.computed, 0);
    EXPECT_EQ(r.resumed, 5);
  }
  const dic::Batch through{{job("through.csv")}, {}, {}};
  ASSERT_TRUE(run_batch(through, cpu_factory()).is_ok());
  EXPECT_EQ(slurp(b.jobs[0].out), slurp(through.jobs[0].out));
  EXPECT_EQ(slurp(b.jobs[1].out), slurp(through.jobs[0].out));
}

// A batch job reads each frame's window while the frame before registers (a read-ahead with the
// window as it was) and finishes and commits a frame while the next registers. With a window that
// grows (points that travel 4-5 px a frame from a small ROI), so that read-aheads are refused and
// read again: the results equal run_dic's on the same frames in memory, bit for bit. Read-aheads
// that are ready are handed to the session early (dic::UpcomingFrame).
TEST_F(BatchRun, AGrowingWindowReadAheadGivesTheInMemoryResultsBitForBit) {
  const testing::TravellingStack t = testing::travelling_stack(29, 2.2);
  const auto kFrames = static_cast<Index>(t.frames.size());
  Stack<float> pages(200, 200, kFrames + 1);
  std::vector<testing::TiffPageSpec> spec;
  for (Index k = 0; k <= kFrames; ++k) {
    const Stack<float>& f = k == 0 ? t.reference : t.frames[static_cast<std::size_t>(k - 1)];
    std::copy(f.values().begin(), f.values().end(), pages[k].data);
    testing::TiffPageSpec p;
    p.width = p.height = 200;
    p.bits = 32;
    p.format = SAMPLEFORMAT_IEEEFP;
    p.values.assign(f.values().begin(), f.values().end());
    spec.push_back(std::move(p));
  }
  testing::write_tiff(path("moving.tif"), spec);
  dic::DicJob j;
  j.reference = path("moving.tif");
  j.roi = t.roi;
  j.options = t.options;
  for (const dic::StackMode mode : {dic::StackMode::reference, dic::StackMode::incremental}) {
    SCOPED_TRACE(mode == dic::StackMode::reference ? "reference" : "incremental");
    j.options.stack_mode = mode;
    dic::DicResult batch;
    // Its registrar counts the frames handed over early (the read-ahead, once read).
    const auto cpu = dic::make_cpu_registrar(cpu_engine());
    testing::PreloadCounts counts;
    const RegistrarFactory counting =
        [&](const dic::DicOptions&) -> Result<std::unique_ptr<dic::FrameRegistrar>> {
      return std::unique_ptr<dic::FrameRegistrar>(
          std::make_unique<testing::CountingRegistrar>(*cpu, counts));
    };
    auto report = run_job(j, counting, {}, [&](const dic::DicResult& r) { batch = r; });
    ASSERT_TRUE(report.is_ok()) << report.status().message();
    EXPECT_GE(counts.preloaded_calls, 1) << "no frame came from the read-ahead handed over early";
    auto memory = dic::run_dic(
        cpu_engine(), pages[0],
        StackView<const float>{pages[1].data, 200, 200, kFrames, 200, 200 * 200}, j.roi, j.options);
    ASSERT_TRUE(memory.is_ok()) << memory.status().message();
    ASSERT_EQ(batch.frames.size(), memory.value().frames.size());
    for (std::size_t f = 0; f < batch.frames.size(); ++f)
      EXPECT_GE(testing::expect_same_frame(batch.frames[f], memory.value().frames[f]), 20);
    // The same stack grows a session's window (so read-aheads were refused and read again).
    const auto registrar = dic::make_cpu_registrar(cpu_engine());
    const testing::PipelineRun run = testing::expect_pipeline_equals_sequential(
        *registrar, t.reference[0], t.frames, t.roi, j.options);
    EXPECT_NE(run.first, run.last) << "the test needs a grown window";
  }
}

// Commits are not flushed to the disk one by one (io::Durability::system): after a power loss a
// commit before the last may be missing. That frame and the later ones are computed again from
// the state after the last good commit, to the uninterrupted run's bytes.
TEST_F(BatchRun, AMissingCommitBeforeTheLastIsRecomputedWithTheLaterOnes) {
  const dic::DicJob full = job("whole.csv");
  ASSERT_TRUE(run_job(full, cpu_factory()).is_ok());
  const dic::DicJob j = job("gap.csv");
  ASSERT_EQ(run_job(j, cpu_factory(), [](double done, Index) { return done < 3; }).status().code(),
            ErrorCode::cancelled);
  const fs::path partial = partial_folder(j);
  ASSERT_TRUE(fs::exists(partial / "frame_000003.bin"));
  fs::remove(partial / "frame_000002.bin");
  EXPECT_EQ(uncommitted_frames(dic::Batch{{j}, {}, {}}, 0, 5), (std::vector<Index>{2, 3, 4, 5}))
      << "what the next run computes";
  auto r = run_job(j, cpu_factory());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_TRUE(r.value().failed.empty());
  EXPECT_EQ(r.value().recomputed_from, 2);
  EXPECT_EQ(r.value().resumed, 1);
  EXPECT_EQ(r.value().computed, 4);
  const auto lines = summary_lines("job", r.value());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("RECOMPUTED frames from 2 on"), std::string::npos) << lines[1];
  EXPECT_EQ(slurp(full.out), slurp(j.out));
}

TEST_F(BatchRun, ATruncatedFrameFailsAloneAndIsListed) {
  auto stack = io::read_image_stack(kSample);
  ASSERT_TRUE(stack.is_ok());
  const fs::path frames = dir_ / "frames";
  fs::create_directories(frames);
  for (Index k = 1; k < stack.value().frames.count(); ++k) {
    const auto all = stack.value().frames.view();
    const StackView<const float> one{all[k].data, all.rows,       all.cols,
                                     1,           all.row_stride, all.matrix_stride};
    ASSERT_TRUE(
        io::write_image_stack(frames / ("f" + std::to_string(k) + ".tif"), one, io::PixelType::u16)
            .is_ok());
  }
  fs::resize_file(frames / "f3.tif", fs::file_size(frames / "f3.tif") / 3);  // cut short
  dic::DicJob j = job("cut.csv");
  j.frames = {frames.string()};
  ASSERT_TRUE(count_frames(j).is_ok());
  EXPECT_EQ(count_frames(j).value(), 5) << "the damaged file is still a frame (it fails alone)";
  auto r = run_job(j, cpu_factory());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r.value().failed.size(), 1u);
  EXPECT_EQ(r.value().failed[0].frame, 3);
  EXPECT_NE(r.value().failed[0].source.find("f3.tif"), std::string::npos);
  EXPECT_FALSE(r.value().failed[0].reason.empty());
  EXPECT_EQ(r.value().computed, 4);
  const std::string csv = slurp(j.out);
  EXPECT_NE(csv.find("\n4,"), std::string::npos);
  EXPECT_EQ(csv.find("\n3,"), std::string::npos);  // no rows for the failed frame
}

// Bad input (docs/reliability.md): a multi-page TIFF cut inside page 3. Its pages from the damage
// on are one failed frame of their own, named and listed (never silently dropped), and with several
// frame sources the good frames after it keep their numbers and are computed.
TEST_F(BatchRun, ACutMultiPageStackListsItsLostPagesAsFailed) {
  const fs::path cut = dir_ / "cut.tif";
  fs::copy_file(kSample, cut);
  const auto full = fs::file_size(cut);
  fs::resize_file(cut, full * 7 / 12);  // inside page 3 of 6
  {
    auto lazy = io::LazyStack::open(cut);
    ASSERT_TRUE(lazy.is_ok()) << lazy.status().message();
    ASSERT_FALSE(lazy.value()->wait_indexed().is_ok()) << "precondition: the cut is detected";
    ASSERT_EQ(lazy.value()->count(), 3) << "precondition: pages 0-2 survive the cut";
  }
  dic::DicJob alone = job("alone.csv");
  alone.reference = cut.string();
  ASSERT_TRUE(validate_job(alone).is_ok()) << validate_job(alone).message();
  EXPECT_EQ(count_frames(alone).value(), 3) << "pages 1, 2, and one for the lost pages";
  auto r = run_job(alone, cpu_factory());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r.value().frames, 3);
  EXPECT_EQ(r.value().computed, 2);
  ASSERT_EQ(r.value().failed.size(), 1u);
  EXPECT_EQ(r.value().failed[0].frame, 3);
  EXPECT_NE(r.value().failed[0].source.find("cut.tif[page 3 and later]"), std::string::npos)
      << r.value().failed[0].source;
  EXPECT_FALSE(r.value().failed[0].reason.empty());
  const std::string csv = slurp(alone.out);
  EXPECT_NE(csv.find("\n2,"), std::string::npos);
  EXPECT_EQ(csv.find("\n3,"), std::string::npos);

  dic::DicJob both = job("both.csv");
  both.frames = {cut.string(), kSample};  // 3 good pages, the lost ones, then 6 good pages
  auto b = run_job(both, cpu_factory());
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(b.value().frames, 10);
  EXPECT_EQ(b.value().computed, 9);
  ASSERT_EQ(b.value().failed.size(), 1u);
  EXPECT_EQ(b.value().failed[0].frame, 4);
  EXPECT_NE(b.value().failed[0].source.find("cut.tif"), std::string::npos);
  const std::string both_csv = slurp(both.out);
  EXPECT_NE(both_csv.find("\n5,"), std::string::npos) << "the other file's page 0 is computed";
  EXPECT_EQ(both_csv.find("\n4,"), std::string::npos);
}

std::string without_comments(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  while (std::getline(in, line))
    if (!line.starts_with("#")) out += line + "\n";
  return out;
}

// A page of a multi-page TIFF other than the first can be the reference: the others are the
// frames in their order, and the numbers equal those of the same images given as files.
TEST_F(BatchRun, AnyPageOfAStackCanBeTheReference) {
  auto pages = io::read_image_stack(kSample);
  ASSERT_TRUE(pages.is_ok());
  std::vector<std::string> files;
  for (Index k = 0; k < 6; ++k) {
    StackView<const float> one = pages.value().frames.view();
    one.data += k * one.matrix_stride;
    one.count = 1;
    files.push_back(path("page" + std::to_string(k) + ".tif"));
    ASSERT_TRUE(io::write_image_stack(files.back(), one, io::PixelType::u16).is_ok());
  }
  dic::DicJob paged = job("paged.csv");
  paged.reference_page = 2;
  ASSERT_TRUE(validate_job(paged).is_ok()) << validate_job(paged).message();
  dic::DicJob listed = job("listed.csv");
  listed.reference = files[2];
  listed.frames = {files[0], files[1], files[3], files[4], files[5]};
  auto a = run_job(paged, cpu_factory());
  auto b = run_job(listed, cpu_factory());
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(a.value().frames, 5);
  const std::string csv = slurp(paged.out);
  EXPECT_NE(csv.find("# reference: dic_stack.tif[page 2]"), std::string::npos)
      << csv.substr(0, 400);
  EXPECT_NE(csv.find("# frame 2: dic_stack.tif[page 1]"), std::string::npos);
  EXPECT_NE(csv.find("# frame 3: dic_stack.tif[page 3]"), std::string::npos);
  EXPECT_EQ(without_comments(csv), without_comments(slurp(listed.out)));
  paged.reference_page = 6;
  EXPECT_EQ(validate_job(paged).message(),
            "no reference page 6: 'dic_stack.tif' holds 6 pages (numbered from 0)");
}

// Bad input (docs/reliability.md): one output file spelled two ways is one output (refused before
// any work), and a job never resumes the commits of another job that wrote the same file (it used
// to write job A's numbers under job B's header, exit 0).
TEST_F(BatchRun, OneFileSpelledTwoWaysIsOneOutputAndForeignCommitsAreNeverResumed) {
  fs::create_directories(dir_ / "sub");
  for (const fs::path& spelled : {dir_ / "." / "dup.csv", dir_ / "sub" / ".." / "dup.csv",
                                  dir_ / "nosuch" / ".." / "dup.csv"}) {
    dic::Batch b;
    b.jobs = {job("dup.csv"), job("dup.csv")};
    b.jobs[1].out = spelled.string();
    const Status s = validate_batch(b);
    ASSERT_FALSE(s.is_ok()) << spelled;
    EXPECT_NE(s.message().find("is also job 1"), std::string::npos) << s.message();
  }
  const dic::DicJob a = job("dup.csv");
  auto stopped = run_job(a, cpu_factory(), [](double done, Index) { return done < 1; });
  ASSERT_FALSE(stopped.is_ok());
  ASSERT_EQ(stopped.status().code(), ErrorCode::cancelled);
  dic::DicJob other = job("dup.csv");
  other.out = (dir_ / "." / "dup.csv").string();
  other.options.step = 12;
  ASSERT_TRUE(fs::exists(partial_folder(other) + "/frame_000001.bin")) << "the same folder";
  auto b = run_job(other, cpu_factory());
  ASSERT_FALSE(b.is_ok());
  EXPECT_NE(b.status().message().find("holds frames of a different job"), std::string::npos)
      << b.status().message();
  EXPECT_FALSE(fs::exists(a.out));
  auto resumed = run_job(a, cpu_factory());  // the job itself still resumes
  ASSERT_TRUE(resumed.is_ok()) << resumed.status().message();
  EXPECT_EQ(resumed.value().resumed, 1);
}

// Commits made from other versions of the inputs are never resumed: a damaged stack replaced by a
// good one (same path, same settings) is refused by name instead of mixing the two files' frames.
TEST_F(BatchRun, CommitsFromAnotherVersionOfTheInputsAreNotResumed) {
  dic::DicJob j = job("changed.csv");
  fs::copy_file(kSample, path("stack.tif"));
  j.reference = path("stack.tif");
  auto stopped = run_job(j, cpu_factory(), [](double done, Index) { return done < 1; });
  ASSERT_EQ(stopped.status().code(), ErrorCode::cancelled);
  fs::last_write_time(path("stack.tif"),
                      fs::last_write_time(path("stack.tif")) + std::chrono::seconds(5));
  auto again = run_job(j, cpu_factory());
  ASSERT_FALSE(again.is_ok());
  EXPECT_NE(again.status().message().find("other versions of the input files"), std::string::npos)
      << again.status().message();
  EXPECT_FALSE(fs::exists(j.out));
}

// Bad input (docs/reliability.md): every commit carries its size and CRC-32. One flipped bit in a
// commit, or a commit cut short, makes that frame and the later ones be computed again (the summary
// says so), and the CSV equals the uninterrupted run's; before, the bit changed a CSV value
// silently.
TEST_F(BatchRun, ADamagedCommitIsRecomputedAndTheSummarySaysSo) {
  const dic::DicJob full = job("full.csv");
  ASSERT_TRUE(run_job(full, cpu_factory()).is_ok());
  for (const bool cut : {false, true}) {
    const dic::DicJob parts = job(cut ? "cut.csv" : "flip.csv");
    auto stopped = run_job(parts, cpu_factory(), [](double done, Index) { return done < 3; });
    ASSERT_EQ(stopped.status().code(), ErrorCode::cancelled);
    const fs::path commit = fs::path(partial_folder(parts)) / "frame_000002.bin";
    ASSERT_TRUE(fs::exists(commit));
    if (cut) {
      fs::resize_file(commit, fs::file_size(commit) - 5);
    } else {
      std::fstream f(commit, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(200);  // inside frame 2's point results
      char c = 0;
      f.read(&c, 1);
      c = static_cast<char>(c ^ 0x10);
      f.seekp(200);
      f.write(&c, 1);
    }
    auto again = run_job(parts, cpu_factory());
    ASSERT_TRUE(again.is_ok()) << again.status().message();
    EXPECT_EQ(again.value().recomputed_from, 2);
    EXPECT_EQ(again.value().resumed, 1);
    EXPECT_EQ(again.value().computed, 4);
    EXPECT_TRUE(again.value().failed.empty());
    const auto lines = summary_lines("job", again.value());
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_NE(lines[1].find("RECOMPUTED frames from 2 on"), std::string::npos) << lines[1];
    EXPECT_EQ(slurp(full.out), slurp(parts.out)) << (cut ? "cut" : "flipped bit");
  }
}

TEST_F(BatchRun, ValidationNamesTheJobAndTheProblemBeforeAnyWork) {
  dic::Batch b;
  b.jobs = {job("a.csv"), job("b.csv")};
  EXPECT_TRUE(validate_batch(b).is_ok());
  auto expect_error = [&](dic::Batch bad, const std::string& words) {
    const Status s = validate_batch(bad);
    ASSERT_FALSE(s.is_ok()) << words;
    EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("job 2 ('sample')"), std::string::npos) << s.message();
  };
  dic::Batch missing = b;
  missing.jobs[1].reference = path("nope.tif");
  expect_error(missing, "not found");
  EXPECT_NE(validate_job(missing.jobs[1]).message().find("not found"), std::string::npos);
  EXPECT_TRUE(validate_job(b.jobs[1]).is_ok());
  dic::Batch outside = b;
  outside.jobs[1].roi.shapes[0] = dic::parse_roi_shape("rect:200,200,400,100").value();
  expect_error(outside, "reaches outside");
  dic::Batch same_out = b;
  same_out.jobs[1].out = b.jobs[0].out;
  expect_error(same_out, "two outputs of one run never share a file");
  // A slice of the jobs (xcorr-mpi): only its problems, output names compared with every job.
  EXPECT_TRUE(validate_batch(missing, {true, false}).is_ok());
  EXPECT_NE(validate_batch(missing, {false, true}).message().find("not found"), std::string::npos);
  EXPECT_TRUE(validate_batch(same_out, {true, false}).is_ok());
  EXPECT_NE(validate_batch(same_out, {false, true}).message().find("never share"),
            std::string::npos);
  auto counted = count_batch_frames(missing, {true, false});
  ASSERT_TRUE(counted.is_ok()) << counted.status().message();
  EXPECT_GT(counted.value()[0], 0);
  EXPECT_EQ(counted.value()[1], 0) << "a job outside the slice is not opened";
  EXPECT_FALSE(count_batch_frames(missing, {false, true}).is_ok());
  dic::Batch other_job = b;
  fs::create_directories(partial_folder(b.jobs[1]));
  std::ofstream(fs::path(partial_folder(b.jobs[1])) / "job.json") << "{}";
  expect_error(other_job, "different job");
  EXPECT_FALSE(fs::exists(b.jobs[0].out));
  // Parsing: unknown keys and wrong types, with the job's number.
  auto parsed = dic::parse_batch(R"({"jobs": [{"reference": "a.tif", "out": "a.csv"},
                                              {"reference": "b.tif", "out": "b.csv", "sbuset": 3}]})",
                                 dir_);
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_NE(parsed.status().message().find("job 2"), std::string::npos);
  EXPECT_NE(parsed.status().message().find("sbuset"), std::string::npos);
  EXPECT_FALSE(dic::parse_batch(R"({"jobs": [], "x": 1})", dir_).is_ok());
  auto round = dic::parse_batch(dic::to_json(b), dir_);
  ASSERT_TRUE(round.is_ok()) << round.status().message();
  EXPECT_EQ(dic::to_json(round.value()), dic::to_json(b));
}

}  // namespace
}  // namespace xcorr::batch

namespace xcorr::batch {
namespace {

// A pair (the sample's pages 0 and 1) as a job with many points: progress comes inside the
// frame, by blocks of points (fractional frames, increasing), and a cancel stops the frame at
// the next block (nothing committed, no report after it), for both propagation modes.
class InFrame : public BatchRun, public ::testing::WithParamInterface<dic::Propagation> {};

TEST_P(InFrame, ProgressComesInsideAFrameAndCancelStopsIt) {
  auto s = io::read_image_stack(kSample);
  ASSERT_TRUE(s.is_ok());
  StackView<const float> pair = s.value().frames.view();
  pair.count = 2;
  ASSERT_TRUE(io::write_image_stack(path("pair.tif"), pair, io::PixelType::u16).is_ok());
  dic::DicJob j = job("pair.csv");
  j.reference = path("pair.tif");
  j.options.step = 2;  // 8,100 points
  j.options.propagation = GetParam();
  std::vector<double> seen;
  auto whole = run_job(j, cpu_factory(), [&](double done, Index total) {
    EXPECT_EQ(total, 1);
    seen.push_back(done);
    return true;
  });
  ASSERT_TRUE(whole.is_ok()) << whole.status().message();
  ASSERT_GE(seen.size(), 4u) << "reports inside the frame";
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_GT(seen.front(), 0);
  EXPECT_LT(seen[seen.size() - 2], 1) << "inside the frame";
  EXPECT_EQ(seen.back(), 1) << "the frame's end, once";

  fs::remove(path("pair.csv"));
  fs::remove_all(partial_folder(j));
  int after_cancel = 0;
  bool cancelled = false;
  auto stopped = run_job(j, cpu_factory(), [&](double done, Index) {
    if (cancelled) ++after_cancel;
    cancelled = cancelled || (done > 0.3 && done < 1);
    return !cancelled;
  });
  ASSERT_FALSE(stopped.is_ok());
  EXPECT_EQ(stopped.status().code(), ErrorCode::cancelled);
  EXPECT_NE(stopped.status().message().find("in frame 1"), std::string::npos)
      << stopped.status().message();
  EXPECT_EQ(after_cancel, 0);
  EXPECT_FALSE(fs::exists(path("pair.csv")));
  EXPECT_FALSE(fs::exists(fs::path(partial_folder(j)) / "frame_000001.bin"));
}

INSTANTIATE_TEST_SUITE_P(Propagation, InFrame,
                         ::testing::Values(dic::Propagation::independent,
                                           dic::Propagation::reliability_guided));

// A share of the batch (xcorr-mpi's ranks): only the jobs in scope run, the .partial folders
// stay for the caller, and counts the caller made (count_batch_frames) are taken as they are;
// counts that do not match the batch are refused.
TEST_F(BatchRun, ScopeRunsItsJobsWithTheCallersCounts) {
  dic::Batch b{{job("a.csv"), job("b.csv")}, {}, {}};
  auto frames = count_batch_frames(b);
  ASSERT_TRUE(frames.is_ok()) << frames.status().message();
  EXPECT_EQ(frames.value(), (std::vector<Index>{5, 5}));
  BatchScope scope;
  scope.runs = {false, true};
  scope.remove_partials = false;
  scope.frames = frames.value();
  std::vector<Index> started;
  BatchHooks hooks;
  hooks.started = [&](const std::vector<Index>& f) { started = f; };
  auto reports = run_batch(b, cpu_factory(), hooks, scope);
  ASSERT_TRUE(reports.is_ok()) << reports.status().message();
  ASSERT_EQ(reports.value().size(), 1u);
  EXPECT_EQ(reports.value()[0].job, 1u);
  EXPECT_EQ(started, frames.value());
  EXPECT_FALSE(fs::exists(path("a.csv")));
  EXPECT_TRUE(fs::exists(path("b.csv")));
  EXPECT_TRUE(fs::exists(partial_folder(b.jobs[1]))) << "kept for the caller";
  remove_partials(b);
  EXPECT_FALSE(fs::exists(partial_folder(b.jobs[1])));

  scope.frames = {5};
  auto wrong = run_batch(b, cpu_factory(), {}, scope);
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_EQ(wrong.status().code(), ErrorCode::internal);
}

}  // namespace
}  // namespace xcorr::batch
