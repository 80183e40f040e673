// The DIC results CSV's writing time: `frames` frames (default 50) of a 2048^2 grid at step 4
// (255,025 points) with values like a real run's (u, v up to 15 px with random fractions,
// strains ~1e-4, ZNCC ~0.999, sigma ~1e-3 px), written by dic::write_dic_csv to `folder`
// (default /dev/shm: the disk left out), three times; prints the seconds and the file's bytes
// and FNV-1a hash (the same values and hash from two builds: the same bytes). Not part of the
// build; link it against a build's libraries, e.g. before and after a change:
//   g++ -O2 -std=c++20 -I. scripts/perf/csv_write_bench.cpp -Wl,--start-group \
//       build/ci/core/*.a -Wl,--end-group -lpthread -lz -o csv_write_bench && ./csv_write_bench
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "core/dic/results_csv.hpp"
using namespace xcorr;

int main(int argc, char** argv) {
  const int frames = argc > 1 ? std::atoi(argv[1]) : 50;
  const std::string folder = argc > 2 ? argv[2] : "/dev/shm";
  dic::DicResult r;
  r.grid.rows = r.grid.cols = 505;
  for (int gy = 0; gy < 505; ++gy)
    for (int gx = 0; gx < 505; ++gx) r.grid.points.push_back({15.0 + 4 * gx, 15.0 + 4 * gy, true});
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int f = 1; f <= frames; ++f) {
    dic::FrameResult fr;
    fr.frame = f;
    for (const dic::GridPoint& g : r.grid.points) {
      dic::PointResult p;
      p.x = g.x, p.y = g.y;
      p.u = 0.2 * f + 0.01 * unit(rng), p.v = 0.3 * f - 0.01 * unit(rng);
      p.exx = 1e-4 * (unit(rng) - 0.5), p.eyy = 1e-4 * (unit(rng) - 0.5);
      p.exy = 1e-4 * (unit(rng) - 0.5), p.zncc = 1 - 1e-3 * unit(rng);
      p.iterations = 2 + static_cast<int>(2 * unit(rng));
      p.status = dic::PointStatus::converged;
      p.sigma_u = 1e-3 * (1 + unit(rng)), p.sigma_v = 1e-3 * (1 + unit(rng));
      fr.points.push_back(p);
    }
    r.frames.push_back(std::move(fr));
  }
  dic::CsvContext ctx{"ref.tif", {}, dic::DicOptions{}, dic::Roi{}, "gpu_guess_strips", "gpu",
                      {},        {}};
  const std::string path = folder + "/csv_write_bench.csv";
  for (int round = 1; round <= 3; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = dic::write_dic_csv(path, r, ctx);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!s.is_ok()) {
      std::printf("%s\n", s.message().c_str());
      return 1;
    }
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t rows = text.find("\nframe,");  // the hash skips the header (its version)
    unsigned long long h = 1469598103934665603ULL;
    for (std::size_t i = rows; i < text.size(); ++i)
      h = (h ^ static_cast<unsigned char>(text[i])) * 1099511628211ULL;
    std::printf("round %d: %d frames, %.3f s, %zu bytes, rows' FNV-1a %016llx\n", round, frames,
                sec, text.size(), h);
  }
  std::remove(path.c_str());
  return 0;
}
