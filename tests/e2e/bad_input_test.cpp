// Bad input through the real `xcorr` executable (the catalogue in docs/reliability.md):
// each case exits 2 with one line that names the problem and leaves no output, no temporary
// file and no .partial folder behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>

#include "tests/support/temp_dir.hpp"
#include "tests/support/xcorr_cli.hpp"

namespace xcorr {
namespace {

namespace fs = std::filesystem;
using testing::run_xcorr;

class BadInput : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ASSERT_EQ(run_xcorr("speckle --out " + path("s.tif") +
                        " --size 96,96 --frames 3 --shift 0.5,0.5 --seed 2")
                  .code,
              0);
  }
  void text(const std::string& name, const std::string& content) const {
    std::ofstream(path(name), std::ios::binary) << content;
  }
  // Exit 2, one line holding `message`, and nothing written beside the inputs.
  void expect_refused(const std::string& args, const std::string& message) {
    const auto before = files();
    const testing::CliRun r = run_xcorr(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << "\n" << r.output;
    EXPECT_EQ(files(), before) << args << ": something was left behind";
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      names.push_back(e.path().lexically_relative(dir_).string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string read_bytes(const std::string& file) const {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::string job(const std::string& name, const std::string& fields) const {
    text(name, "{\"reference\": \"" + path("s.tif") + "\", \"out\": \"" + path("out.csv") + "\"" +
                   fields + "}");
    return path(name);
  }
};

TEST_F(BadInput, SizeOptionsPastTheImagesAreRefusedBeforeAnyWork) {
  // These ran for ever (window^2 cells per point; a radius of 10^6 px).
  const std::string dic = "dic --reference " + path("s.tif") + " --out " + path("out.csv");
  expect_refused(dic + " --strain-window 99999", "strain_window 99999 points is larger than");
  expect_refused(dic + " --strain-window 2147483647", "strain_window 2147483647 points");
  expect_refused(dic + " --search-radius 1000000", "search_radius 1000000 px is larger than");
  expect_refused("run " + job("w.json", ", \"strain_window\": 99999"), "strain_window 99999");
  expect_refused("dic --job " + job("r.json", ", \"search_radius\": 1000000"), "search_radius");
}

TEST_F(BadInput, DeviceListsAreCheckedBeforeAnyWork) {
  const std::string dic = "dic --reference " + path("s.tif") + " --out " + path("out.csv");
  expect_refused(dic + " --devices 0,x", "devices '0,x': 'x' is not a device number");
  expect_refused(dic + " --devices 1,1", "device 1 is listed twice");
  expect_refused("run " + job("d.json", ", \"devices\": \"all,0\""), "'all' is not a device");
  expect_refused("run " + job("ok.json", "") + " --devices 0,", "'' is not a device number");
  text("m.csv", "# 2,2\n1,2\n3,4\n");
  expect_refused("correlate --form one_to_one --left " + path("m.csv") + " --right " +
                     path("m.csv") + " --out " + path("c.csv") + " --devices 0,x",
                 "devices '0,x': 'x' is not a device number");
}

TEST_F(BadInput, FilesystemTroubleIsNamed) {
  fs::create_directories(dir_ / "frames");
  fs::copy_file(path("s.tif"), dir_ / "frames" / "a.tif");
  fs::create_symlink("c.tif", dir_ / "frames" / "b.tif");  // b -> c -> b
  fs::create_symlink("b.tif", dir_ / "frames" / "c.tif");
  expect_refused("dic --reference " + path("s.tif") + " --frames " + path("frames") + " --out " +
                     path("out.csv"),
                 "Too many levels of symbolic links");
  const std::string long_name = path(std::string(300, 'a') + ".csv");
  expect_refused("dic --reference " + path("s.tif") + " --out " + long_name, "bytes long");
  text("m.csv", "# 2,2\n1,2\n3,4\n");
  expect_refused("correlate --form one_to_one --left " + path("m.csv") + " --right " +
                     path("m.csv") + " --out " + long_name,
                 "bytes long");
}

// The output rule (core/io/output_rules.hpp): an output is never an input, another output, a path
// inside a resume folder or an existing non-regular file; refused before any work, both roles
// named, the input's bytes untouched.
TEST_F(BadInput, AnOutputIsNeverAnInput) {
  const std::string before = read_bytes(path("s.tif"));
  const std::string reg = "register " + path("s.tif");
  expect_refused(reg + " --out " + path("s.tif"),
                 "the corrected stack (out) '" + path("s.tif") + "' is the stack '");
  expect_refused(reg + " --drift " + path("s.tif"), "the drift table (drift) '");
  expect_refused(reg + " --out " + dir_.string() + "/./sub/../s.tif",
                 "an output is never an input");  // however spelled
  fs::create_symlink(path("s.tif"), path("link.tif"));
  expect_refused(reg + " --out " + path("link.tif"), "an output is never an input");
  fs::remove(path("link.tif"));
  expect_refused("dic --reference " + path("s.tif") + " --out " + path("s.tif"),
                 "the output (out) '" + path("s.tif") + "' is the reference '");
  text("m.csv", "# 2,2\n1,2\n3,4\n");
  expect_refused("correlate --form one_to_one --left " + path("m.csv") + " --right " +
                     path("m.csv") + " --out " + path("m.csv"),
                 "--out '" + path("m.csv") + "' is --left '");
  // In a batch: a register job writing another job's input.
  text("b.json",
       "{\"jobs\": [{\"reference\": \"s.tif\", \"out\": \"d.csv\"},"
       " {\"type\": \"register\", \"stack\": \"t.tif\", \"out\": \"s.tif\"}]}");
  fs::copy_file(path("s.tif"), path("t.tif"));
  expect_refused("run " + path("b.json"), "register job 2: the corrected stack (out) '" +
                                              path("s.tif") + "' is job 1: the reference '");
  fs::remove(path("t.tif"));
  EXPECT_EQ(read_bytes(path("s.tif")), before);
}

TEST_F(BadInput, TwoOutputsNeverShareAFile) {
  expect_refused(
      "register " + path("s.tif") + " --out " + path("x.tif") + " --drift " + path("x.tif"),
      "the drift table (drift) '" + path("x.tif") + "' is also the corrected stack (out) '");
}

TEST_F(BadInput, ADeviceOrFifoIsNeverReplaced) {
  ASSERT_EQ(::mkfifo(path("fifo.csv").c_str(), 0644), 0);
  expect_refused("dic --reference " + path("s.tif") + " --out " + path("fifo.csv"),
                 "'" + path("fifo.csv") + "' is a FIFO: an output is written only as a regular");
  expect_refused("register " + path("s.tif") + " --drift " + path("fifo.csv"), "is a FIFO");
  EXPECT_TRUE(fs::is_fifo(path("fifo.csv")));
  // A character device (the null device's numbers); needs root, as CI runs.
  if (::mknod(path("fakenull").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod needs root: the device case is not run";
  expect_refused("register " + path("s.tif") + " --drift " + path("fakenull"),
                 "'" + path("fakenull") + "' is a character device");
  EXPECT_TRUE(fs::is_character_file(path("fakenull")));
}

TEST_F(BadInput, NoOutputLiesInsideAResumeFolder) {
  text("b.json",
       "{\"jobs\": [{\"type\": \"register\", \"stack\": \"s.tif\", \"drift\":"
       " \"d.csv\"}, {\"reference\": \"s.tif\", \"out\": \"d.csv.partial/r.csv\"}]}");
  expect_refused("run " + path("b.json"), "job 2: the output (out) '" +
                                              path("d.csv.partial/r.csv") +
                                              "' lies inside register job 1: the resume folder");
}

// Misleading messages, now named (the 'Misleading messages' of the real-data review).
TEST_F(BadInput, EveryJobOfABatchIsCheckedBeforeTheFirstStarts) {
  // Failed before: job 1 wrote its CSV, then job 2's strain window or job 3's region stopped the
  // run.
  ASSERT_EQ(run_xcorr("speckle --out " + path("big.tif") + " --size 200,200 --frames 2").code, 0);
  const std::string ok = R"({"reference": "s.tif", "out": "one.csv"})";
  text("strain.json", "{\"jobs\": [" + ok +
                          R"(, {"reference": "s.tif", "out": "two.csv", "strain_window": 99})" +
                          "]}");
  expect_refused("run " + path("strain.json"), "job 2: strain_window 99 points is larger than");
  text(
      "region.json",
      "{\"jobs\": [" + ok +
          R"(, {"type": "register", "stack": "big.tif", "drift": "d.csv", "region": "rect:150,150,64,64"}]})");
  expect_refused("run " + path("region.json"),
                 "register job 2: region 'rect:150,150,64,64' must lie inside the 200 x 200 px "
                 "frame (width x height)");
}

TEST_F(BadInput, AnUnwritableFolderIsNamedBeforeAnyWork) {
  fs::create_directories(path("locked"));
  // As root (CI) permissions do not stop a write: the run drops to user nobody.
  const std::string as =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  if (::geteuid() != 0)
    fs::permissions(path("locked"), fs::perms::owner_read | fs::perms::owner_exec);
  const std::string args = "register " + path("s.tif") + " --drift " + path("locked/d.csv");
  const auto before = files();
  const auto r = testing::run_command(as + XCORR_EXE + " " + args);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot write '" + path("locked/d.csv") + "': folder '" + path("locked") +
                          "' is not writable (Permission denied)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(files(), before);
  fs::permissions(path("locked"), fs::perms::owner_all);
}

TEST_F(BadInput, AFullDiskIsNamed) {
  fs::create_directories(path("small"));
  if (testing::run_command("mount -t tmpfs -o size=256k tmpfs " + path("small")).code != 0)
    GTEST_SKIP() << "no tmpfs mount here (needs root): the full-disk case is not run";
  ASSERT_EQ(run_xcorr("speckle --out " + path("large.tif") + " --size 300,300 --frames 4").code, 0);
  const auto r = run_xcorr("register " + path("large.tif") + " --out " + path("small/c.tif"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot write '" + path("small/c.tif") + "': No space left on device"),
            std::string::npos)
      << r.output;
  // Nothing half-written: no corrected stack, no temporary file; the measured drift stays
  // committed in the resume folder for the run after space is freed.
  for (const auto& e : fs::directory_iterator(path("small")))
    EXPECT_EQ(e.path().filename(), "c.tif.partial") << e.path();
  EXPECT_EQ(testing::run_command("umount " + path("small")).code, 0);
}

TEST_F(BadInput, TextThatParsersUsedToAcceptIsRefused) {
  expect_refused(
      "dic --reference " + path("s.tif") + " --roi rect:10,10,50,50, --out " + path("out.csv"),
      "ends in a comma");
  expect_refused("run " + job("dup.json", ", \"subset\": 21, \"subset\": 31"),
                 "names the key 'subset' twice");
  text("nul.json", "{\"reference\": \"" + path("s.tif") + "\\u0000.png\", \"out\": \"" +
                       path("out.csv") + "\"}");
  expect_refused("run " + path("nul.json"), "NUL character");
  expect_refused("run " + job("wrap.json", ", \"subset\": 4294967327"), "subset");
  expect_refused("run " + job("wrap2.json", ", \"step\": -4294967288"), "step");
}

TEST_F(BadInput, MatrixCsvHeadersAreCheckedAgainstTheFile) {
  text("big.csv", "# 20000,20000,1\n0\n");  // allocated 1.6 GB before finding line 2 missing
  expect_refused("correlate --form one_to_one --left " + path("big.csv") + " --right " +
                     path("big.csv") + " --out " + path("out.csv"),
                 "but the file has only 18 bytes");
  text("bom.csv", "\xEF\xBB\xBF# 2,2\n1,2\n3,4\n");  // a byte-order mark is not part of the header
  const testing::CliRun r = run_xcorr("correlate --form one_to_one --left " + path("bom.csv") +
                                      " --right " + path("bom.csv") + " --out " + path("o.csv"));
  EXPECT_EQ(r.code, 0) << r.output;
}

TEST_F(BadInput, StaleTemporaryFilesOfDeadProcessesAreRemoved) {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);  // a process id that no longer runs
  const fs::path stale = dir_ / (".o.partial-" + std::to_string(child) + "-0.csv");
  const fs::path alive = dir_ / (".o.partial-" + std::to_string(getpid()) + "-0.csv");
  text(stale.filename().string(), "half");
  text(alive.filename().string(), "another process is writing this");
  text("m.csv", "# 2,2\n1,2\n3,4\n");
  ASSERT_EQ(run_xcorr("correlate --form one_to_one --left " + path("m.csv") + " --right " +
                      path("m.csv") + " --out " + path("o.csv"))
                .code,
            0);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(alive)) << "a running process's temporary file is kept";
}

TEST_F(BadInput, InterruptedWritesLeaveNoTemporaryFile) {
  // A 10^6-value CSV takes a while to write; SIGINT and SIGTERM at several moments.
  ASSERT_EQ(run_xcorr("speckle --out " + path("big.tif") + " --size 700,700 --seed 4").code, 0);
  for (int sig : {SIGINT, SIGTERM}) {
    for (int delay_ms : {20, 150, 250, 300, 350, 400, 500}) {
      const std::string cmd = std::string(XCORR_EXE) + " correlate --form one_to_one --left " +
                              path("big.tif") + " --right " + path("big.tif") + " --out " +
                              path("big.csv");
      const pid_t child = fork();
      if (child == 0) {
        execl("/bin/sh", "sh", "-c", ("exec " + cmd + " > /dev/null 2>&1").c_str(), nullptr);
        _exit(127);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      kill(child, sig);
      int status = 0;
      waitpid(child, &status, 0);
      for (const auto& e : fs::directory_iterator(dir_)) {
        EXPECT_EQ(e.path().filename().string().find(".partial-"), std::string::npos)
            << "left behind after signal " << sig << " at " << delay_ms << " ms";
      }
      (void)status;  // a signal after the rename leaves the finished output: that is fine
      fs::remove(path("big.csv"));
    }
  }
}

// The differential check (docs/reliability.md): for a mutated TIFF, `xcorr run` and `xcorr dic`
// agree (both reject it, or both write the same bytes), and neither crashes. Fixed seeds: the same
// 60 mutations each run (scripts/fuzz.sh explores new ones).
TEST_F(BadInput, RunAndDicAgreeOnMutatedTiffs) {
  std::ifstream in(path("s.tif"), std::ios::binary);
  const std::string original((std::istreambuf_iterator<char>(in)), {});
  std::mt19937 rng(15);
  int rejected = 0, accepted = 0;
  for (int k = 0; k < 60; ++k) {
    std::string bytes = original;
    const int kind = k % 3;
    if (kind == 0) {  // flip a few bytes
      for (int f = 0; f < 4; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    } else if (kind == 1) {  // cut the file
      bytes.resize(rng() % bytes.size());
    } else {  // overwrite a header or directory field
      const std::size_t at = rng() % std::min<std::size_t>(bytes.size(), 4096);
      bytes[at] = static_cast<char>(rng());
      bytes[(at + 1) % bytes.size()] = static_cast<char>(rng());
    }
    text("m.tif", bytes);
    fs::remove(path("run.csv"));
    fs::remove(path("dic.csv"));
    // Frames committed from the previous mutation are not resumed (the input changed) but
    // refused by name; each mutation starts afresh.
    fs::remove_all(path("run.csv.partial"));
    fs::remove_all(path("dic.csv.partial"));
    text("job.json", "{\"reference\": \"" + path("m.tif") + "\", \"out\": \"" + path("run.csv") +
                         "\", \"step\": 16}");
    const testing::CliRun run = run_xcorr("run --quiet " + path("job.json"));
    const testing::CliRun dic = run_xcorr("dic --quiet --reference " + path("m.tif") +
                                          " --step 16 --out " + path("dic.csv"));
    ASSERT_TRUE(run.code == 0 || run.code == 2) << "mutation " << k << ": " << run.output;
    ASSERT_TRUE(dic.code == 0 || dic.code == 2) << "mutation " << k << ": " << dic.output;
    EXPECT_EQ(run.code, dic.code) << "mutation " << k << "\nrun: " << run.output
                                  << "\ndic: " << dic.output;
    EXPECT_EQ(fs::exists(path("run.csv")), fs::exists(path("dic.csv"))) << "mutation " << k;
    if (fs::exists(path("run.csv")) && fs::exists(path("dic.csv"))) {
      std::ifstream a(path("run.csv"), std::ios::binary), b(path("dic.csv"), std::ios::binary);
      EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}),
                std::string(std::istreambuf_iterator<char>(b), {}))
          << "mutation " << k;
    }
    (run.code == 0 ? accepted : rejected)++;
  }
  std::printf("[ mutated  ] 60 TIFFs: %d accepted by both, %d rejected by both\n", accepted,
              rejected);
}

}  // namespace
}  // namespace xcorr
