// Real microscope images made into drifting hyperstacks with known sub-pixel shifts, for the
// tests of the whole path on real data (docs/registration.md, "Real images"). The images come
// from Debian's python3-skimage package (scripts/real-images.sh, a CTest fixture unpacks them
// into XCORR_REAL_IMAGES): ihc.png, a brightfield RGB section (its R, G, B are the channels),
// and cell.png, a quantitative phase image (a second modality, grey).
#pragma once

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "core/io/image_metadata.hpp"
#include "core/io/tiff_writer.hpp"
#include "tests/support/fourier_shift.hpp"

namespace xcorr::testing {

inline std::string real_image(const std::string& name) {
  return std::string(XCORR_REAL_IMAGES) + "/" + name;
}

struct DriftingHyperstack {
  std::vector<double> dx, dy;  // px per time point, time point 0 at (0, 0)
  long channels = 0, frames = 0;
  unsigned seed = 0;
};

// A scale of `um` micrometres per pixel and `seconds` per time point.
inline io::ImageScale scale_of(double um, double seconds) {
  io::ImageScale scale;
  scale.pixel_x = scale.pixel_y = um;
  scale.unit = "um";
  scale.frame_interval_s = seconds;
  return scale;
}

// A stack's description with its drift over `frames` time points: a random walk of 0.8 px steps
// drifting by (0.3, -0.2) px a time point, from (0, 0).
inline DriftingHyperstack drifting(long channels, long frames, unsigned seed, std::mt19937& g) {
  DriftingHyperstack h;
  h.channels = channels;
  h.frames = frames;
  h.seed = seed;
  std::normal_distribution<double> step(0, 0.8);
  double x = 0, y = 0;
  for (long t = 0; t < frames; ++t) {
    h.dx.push_back(x);
    h.dy.push_back(y);
    x += step(g) + 0.3;
    y += step(g) - 0.2;
  }
  return h;
}

// A TCYX float32 ImageJ hyperstack of `frames` time points: ihc.png's R, G and B (channels 0-2;
// the first `channels` of them)
// cut to 128 x 128 px around (row0, col0) after a band-limited shift of a random walk
// (sub-pixel, up to about 6 px), Gaussian noise of 2 % of each channel's range, 12 hot pixels
// (4 x the channel's maximum) per plane at random places, and a 10 x 10 NaN block in time
// points 3 and 6 (missing data, e.g. after stitching). 0.32 um pixels, 2 s per time point.
// defects false: the same stack (same seed: drift and noise) without hot pixels and NaN.
inline Result<DriftingHyperstack> write_real_hyperstack(const std::string& file, long frames,
                                                        unsigned seed, bool defects = true,
                                                        long channels = 3) {
  constexpr Index kSource = 160, kOut = 128, kRow0 = 200, kCol0 = 180;
  std::mt19937 g(seed);
  const DriftingHyperstack h = drifting(3, frames, seed, g);
  std::vector<Stack<float>> channel;  // kSource^2 crops of R, G, B
  std::vector<float> range;
  for (const io::Channel c : {io::Channel::red, io::Channel::green, io::Channel::blue}) {
    auto rgb = io::read_image_stack(real_image("ihc.png"), c);
    if (!rgb.is_ok()) return rgb.status();
    Stack<float> crop(kSource, kSource, 1);
    for (Index r = 0; r < kSource; ++r)
      for (Index col = 0; col < kSource; ++col)
        crop[0](r, col) = rgb.value().frames[0](kRow0 + r, kCol0 + col);
    float lo = crop[0](0, 0), hi = lo;
    for (const float v : crop.values()) lo = std::min(lo, v), hi = std::max(hi, v);
    range.push_back(hi - lo);
    channel.push_back(std::move(crop));
  }
  io::StackMetadata m;
  m.layout.channels = channels;
  m.layout.frames = frames;
  m.channel_names = {"red", "green", "blue"};
  m.channel_names.resize(static_cast<std::size_t>(channels));
  const io::ImageScale scale = scale_of(0.32, 2);
  const std::string description =
      io::derived_description(m, {kOut, kOut}, frames, io::PixelType::f32, scale);
  std::uniform_int_distribution<Index> at(0, kOut - 11);
  const Status written =
      io::write_atomically(file, [&](const std::filesystem::path& tmp) -> Status {
        auto w = io::TiffWriter::create(tmp, io::PixelType::f32, {kOut, kOut}, channels * frames,
                                        description, scale);
        if (!w.is_ok()) return w.status();
        for (long t = 0; t < frames; ++t) {
          const Index nan_row = at(g), nan_col = at(g);
          for (long c = 0; c < channels; ++c) {
            const Stack<float> moved = test::fourier_shift(channel[static_cast<std::size_t>(c)],
                                                           h.dx[static_cast<std::size_t>(t)],
                                                           h.dy[static_cast<std::size_t>(t)]);
            const float r = range[static_cast<std::size_t>(c)];
            std::normal_distribution<float> noise(0, 0.02f * r);
            Stack<float> page(kOut, kOut, 1);
            const Index o = (kSource - kOut) / 2;
            float top = 0;
            for (Index row = 0; row < kOut; ++row)
              for (Index col = 0; col < kOut; ++col) {
                page[0](row, col) = moved[0](o + row, o + col) + noise(g);
                top = std::max(top, page[0](row, col));
              }
            std::uniform_int_distribution<Index> any(0, kOut - 1);
            for (int k = 0; k < 12; ++k) {
              const Index row = any(g), col = any(g);
              if (defects) page[0](row, col) = 4 * top;
            }
            if (defects && (t == 3 || t == 6))
              for (Index row = nan_row; row < nan_row + 10; ++row)
                for (Index col = nan_col; col < nan_col + 10; ++col) page[0](row, col) = NAN;
            XCORR_RETURN_IF_ERROR(w.value()->add_page(std::as_const(page)[0]));
          }
        }
        return w.value()->close();
      });
  if (!written.is_ok()) return written;
  return h;
}

// A TZYX float32 ImageJ z-stack of `frames` time points and 3 z-planes from cell.png (a
// quantitative phase image): plane z is the 128 x 128 px crop blurred z times by a [1 2 1] / 4
// binomial in each direction (defocus), every plane of time point t moved by the same random
// walk as write_real_hyperstack's, 2 % noise and 12 hot pixels per plane.
inline Result<DriftingHyperstack> write_real_zstack(const std::string& file, long frames,
                                                    unsigned seed) {
  constexpr Index kSource = 160, kOut = 128, kRow0 = 120, kCol0 = 160;
  std::mt19937 g(seed);
  const DriftingHyperstack h = drifting(1, frames, seed, g);
  auto grey = io::read_image_stack(real_image("cell.png"));
  if (!grey.is_ok()) return grey.status();
  std::vector<Stack<float>> plane(3, Stack<float>(kSource, kSource, 1));
  for (Index r = 0; r < kSource; ++r)
    for (Index c = 0; c < kSource; ++c)
      plane[0][0](r, c) = grey.value().frames[0](kRow0 + r, kCol0 + c);
  for (std::size_t z = 1; z < 3; ++z) {  // one more binomial blur per plane (periodic edges)
    const Stack<float>& a = plane[z - 1];
    for (Index r = 0; r < kSource; ++r)
      for (Index c = 0; c < kSource; ++c) {
        double sum = 0;
        for (Index dr = -1; dr <= 1; ++dr)
          for (Index dc = -1; dc <= 1; ++dc)
            sum += (2 - std::abs(dr)) * (2 - std::abs(dc)) *
                   a[0]((r + dr + kSource) % kSource, (c + dc + kSource) % kSource);
        plane[z][0](r, c) = static_cast<float>(sum / 16);
      }
  }
  float lo = plane[0].values()[0], hi = lo;
  for (const float v : plane[0].values()) lo = std::min(lo, v), hi = std::max(hi, v);
  io::StackMetadata m;
  m.layout.slices = 3;
  m.layout.frames = frames;
  m.spacing_z = 0.5;
  const io::ImageScale scale = scale_of(0.2, 30);
  const std::string description =
      io::derived_description(m, {kOut, kOut}, frames, io::PixelType::f32, scale);
  const Status written =
      io::write_atomically(file, [&](const std::filesystem::path& tmp) -> Status {
        auto w = io::TiffWriter::create(tmp, io::PixelType::f32, {kOut, kOut}, 3 * frames,
                                        description, scale);
        if (!w.is_ok()) return w.status();
        std::normal_distribution<float> noise(0, 0.02f * (hi - lo));
        std::uniform_int_distribution<Index> any(0, kOut - 1);
        for (long t = 0; t < frames; ++t) {
          for (std::size_t z = 0; z < 3; ++z) {
            const Stack<float> moved = test::fourier_shift(
                plane[z], h.dx[static_cast<std::size_t>(t)], h.dy[static_cast<std::size_t>(t)]);
            Stack<float> page(kOut, kOut, 1);
            const Index o = (kSource - kOut) / 2;
            for (Index r = 0; r < kOut; ++r)
              for (Index c = 0; c < kOut; ++c) page[0](r, c) = moved[0](o + r, o + c) + noise(g);
            for (int k = 0; k < 12; ++k) page[0](any(g), any(g)) = 4 * hi;
            XCORR_RETURN_IF_ERROR(w.value()->add_page(std::as_const(page)[0]));
          }
        }
        return w.value()->close();
      });
  if (!written.is_ok()) return written;
  return h;
}

}  // namespace xcorr::testing
