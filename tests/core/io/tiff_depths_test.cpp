// TIFF pages of every depth the readers take, written with libtiff on fresh random values: the
// eager reader (read_image_stack) and the lazy one (LazyStack) both return the stored numbers,
// unscaled (docs/reliability.md: 12-bit pages used to come back x16 and 1-bit ones as 0/255).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <vector>

#include "core/io/image_io.hpp"
#include "core/io/lazy_stack.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiff_writing.hpp"

namespace xcorr::io {
namespace {

using testing::TiffPageSpec;

struct Depth {
  const char* name;
  std::uint16_t bits, format;
  double lo, hi;  // stored values drawn in [lo, hi], integers unless float
  PixelType type;
  std::uint32_t tile = 0;
};

std::ostream& operator<<(std::ostream& o, const Depth& d) {
  return o << d.name;
}

TiffPageSpec page_of(const Depth& d, std::uint32_t h, std::uint32_t w, unsigned seed) {
  TiffPageSpec p{w, h, d.bits, d.format, 1, d.tile, 3, {}};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(d.lo, d.hi);
  for (std::uint32_t i = 0; i < w * h; ++i) {
    const double v = u(rng);
    p.values.push_back(d.format == SAMPLEFORMAT_IEEEFP ? v : std::floor(v + 0.5));
  }
  if (d.format != SAMPLEFORMAT_IEEEFP) p.values[0] = d.hi;  // the extremes are stored too
  if (d.format != SAMPLEFORMAT_IEEEFP) p.values[1] = d.lo;
  return p;
}

class TiffDepths : public testing::TempDirTest, public ::testing::WithParamInterface<Depth> {};

TEST_P(TiffDepths, BothReadersReturnTheStoredValues) {
  const Depth& d = GetParam();
  const std::uint32_t h = 29, w = 37;  // odd, prime, rows not a whole number of bytes at 1-12 bits
  const std::vector<TiffPageSpec> pages = {page_of(d, h, w, 1), page_of(d, h, w, 2)};
  const auto path = dir_ / "d.tif";
  testing::write_tiff(path, pages);

  const auto eager = read_image_stack(path);
  ASSERT_TRUE(eager.is_ok()) << eager.status().message();
  EXPECT_EQ(eager.value().pixel_type, d.type);
  ASSERT_EQ(eager.value().frames.count(), 2);
  auto lazy = LazyStack::open(path);
  ASSERT_TRUE(lazy.is_ok()) << lazy.status().message();
  ASSERT_TRUE(lazy.value()->wait_indexed().is_ok());
  EXPECT_EQ(lazy.value()->pixel_type(), d.type);
  ASSERT_EQ(lazy.value()->count(), 2);
  for (Index k = 0; k < 2; ++k) {
    const auto f = lazy.value()->frame(k);
    ASSERT_TRUE(f.is_ok()) << f.status().message();
    for (std::uint32_t i = 0; i < h * w; ++i) {
      const auto want = static_cast<float>(pages[static_cast<std::size_t>(k)].values[i]);
      ASSERT_EQ(eager.value().frames[k].data[i], want) << "eager, page " << k << ", pixel " << i;
      ASSERT_EQ(f.value()->data()[i], want) << "lazy, page " << k << ", pixel " << i;
    }
    // A region decodes only the strips or tiles it touches, and equals the same pixels of the
    // whole page (rows 5-20, columns 3-19: inside strips and tiles, not on their edges).
    const auto region = lazy.value()->region(k, 5, 3, 16, 17);
    ASSERT_TRUE(region.is_ok()) << region.status().message();
    for (Index r = 0; r < 16; ++r)
      for (Index c = 0; c < 17; ++c)
        ASSERT_EQ(region.value()[0](r, c), eager.value().frames[k](5 + r, 3 + c))
            << "region, page " << k << " at " << r << "," << c;
  }
  EXPECT_FALSE(lazy.value()->region(0, 20, 0, 10, 5).is_ok()) << "rows past the page";
}

INSTANTIATE_TEST_SUITE_P(
    EveryDepth, TiffDepths,
    ::testing::Values(Depth{"u1", 1, SAMPLEFORMAT_UINT, 0, 1, PixelType::u8},
                      Depth{"u4", 4, SAMPLEFORMAT_UINT, 0, 15, PixelType::u8},
                      Depth{"u8", 8, SAMPLEFORMAT_UINT, 0, 255, PixelType::u8},
                      Depth{"u10", 10, SAMPLEFORMAT_UINT, 0, 1023, PixelType::u16},
                      Depth{"u12", 12, SAMPLEFORMAT_UINT, 0, 4095, PixelType::u16},
                      Depth{"u12_tiled", 12, SAMPLEFORMAT_UINT, 0, 4095, PixelType::u16, 16},
                      Depth{"u16", 16, SAMPLEFORMAT_UINT, 0, 65535, PixelType::u16},
                      Depth{"u16_tiled", 16, SAMPLEFORMAT_UINT, 0, 65535, PixelType::u16, 16},
                      Depth{"u32", 32, SAMPLEFORMAT_UINT, 0, 16777216, PixelType::f32},
                      Depth{"i8", 8, SAMPLEFORMAT_INT, -128, 127, PixelType::f32},
                      Depth{"i16", 16, SAMPLEFORMAT_INT, -32768, 32767, PixelType::f32},
                      Depth{"i32", 32, SAMPLEFORMAT_INT, -16777216, 16777216, PixelType::f32},
                      Depth{"f32", 32, SAMPLEFORMAT_IEEEFP, -1e3, 1e3, PixelType::f32},
                      Depth{"f64", 64, SAMPLEFORMAT_IEEEFP, -1e3, 1e3, PixelType::f32},
                      Depth{"f32_tiled", 32, SAMPLEFORMAT_IEEEFP, -1, 1, PixelType::f32, 32}),
    [](const auto& p) { return std::string(p.param.name); });

class TiffLayouts : public testing::TempDirTest {};

TEST_F(TiffLayouts, A12BitValueStaysItself) {
  TiffPageSpec p{3, 2, 12, SAMPLEFORMAT_UINT, 1, 0, 2, {2793, 0, 4095, 1, 2048, 7}};
  testing::write_tiff(dir_ / "twelve.tif", {p});
  const auto s = read_image_stack(dir_ / "twelve.tif");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  EXPECT_EQ(s.value().frames.values(), (std::vector<float>{2793, 0, 4095, 1, 2048, 7}));
}

TEST_F(TiffLayouts, UnsupportedLayoutsAreNamedNotCalledCorrupt) {
  TiffPageSpec p{5, 4, 32, SAMPLEFORMAT_IEEEFP, 4, 0, 4, std::vector<double>(80, 0.5)};
  testing::write_tiff(dir_ / "rgba_float.tif", {p});
  for (const auto& path : {dir_ / "rgba_float.tif"}) {
    const auto eager = read_image_stack(path);
    ASSERT_FALSE(eager.is_ok());
    EXPECT_EQ(eager.status().code(), ErrorCode::unsupported);
    EXPECT_NE(eager.status().message().find("4 samples per pixel of 32-bit float"),
              std::string::npos)
        << eager.status().message();
    EXPECT_EQ(eager.status().message().find("corrupt"), std::string::npos);
    const auto lazy = LazyStack::open(path);
    ASSERT_FALSE(lazy.is_ok());
    EXPECT_EQ(lazy.status().message(), eager.status().message());
  }
}

TEST_F(TiffLayouts, RgbPagesBecomeGrey) {
  TiffPageSpec p{4, 3, 8, SAMPLEFORMAT_UINT, 3, 0, 3, {}};
  for (int i = 0; i < 12; ++i) {
    p.values.push_back(100);  // R
    p.values.push_back(100);  // G
    p.values.push_back(100);  // B
  }
  testing::write_tiff(dir_ / "rgb.tif", {p});
  const auto s = read_image_stack(dir_ / "rgb.tif");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  EXPECT_EQ(s.value().pixel_type, PixelType::u8);
  for (float v : s.value().frames.values()) EXPECT_EQ(v, 100.0f);
}

// The `channel` option: luminance (OpenCV's weights) or one channel as stored, for 8- and
// 16-bit RGB, through both readers; a grey page is read as it is whatever the choice.
TEST_F(TiffLayouts, AColourChannelIsReadAsStored) {
  for (const std::uint16_t bits : {8, 16}) {
    const double k = bits == 8 ? 1 : 200;
    TiffPageSpec p{5, 2, bits, SAMPLEFORMAT_UINT, 3, 0, 3, {}};
    for (int i = 0; i < 10; ++i) p.values.insert(p.values.end(), {200 * k, 100 * k, (50 + i) * k});
    testing::write_tiff(dir_ / "rgb.tif", {p, p});
    const struct {
      Channel channel;
      double first, last;  // pixel 0 and pixel 9
    } cases[] = {{Channel::red, 200 * k, 200 * k},
                 {Channel::green, 100 * k, 100 * k},
                 {Channel::blue, 50 * k, 59 * k},
                 {Channel::luminance, (0.299 * 200 + 0.587 * 100 + 0.114 * 50) * k,
                  (0.299 * 200 + 0.587 * 100 + 0.114 * 59) * k}};
    for (const auto& c : cases) {
      const auto s = read_image_stack(dir_ / "rgb.tif", c.channel);
      ASSERT_TRUE(s.is_ok()) << s.status().message();
      ASSERT_EQ(s.value().frames.count(), 2);
      EXPECT_NEAR(s.value().frames[1](0, 0), c.first, k) << label(c.channel) << " " << bits;
      EXPECT_NEAR(s.value().frames[1](1, 4), c.last, k) << label(c.channel) << " " << bits;
      auto lazy = LazyStack::open(dir_ / "rgb.tif", LazyStack::kDefaultCacheBytes, {c.channel});
      ASSERT_TRUE(lazy.is_ok());
      auto f = lazy.value()->frame(1);
      ASSERT_TRUE(f.is_ok());
      EXPECT_EQ((*f.value())[0](1, 4), s.value().frames[1](1, 4));
    }
  }
  TiffPageSpec grey{3, 2, 8, SAMPLEFORMAT_UINT, 1, 0, 3, {1, 2, 3, 4, 5, 6}};
  testing::write_tiff(dir_ / "grey.tif", {grey});
  const auto g = read_image_stack(dir_ / "grey.tif", Channel::red);
  ASSERT_TRUE(g.is_ok());
  EXPECT_EQ(g.value().frames[0](1, 2), 6.0f);
}

// 16-bit RGB and RGBA with one plane per sample (PlanarConfiguration 2) read as the same pixels
// stored contiguously: grey 0.299 R + 0.587 G + 0.114 B within one grey level, each channel as
// stored. Failed before (OpenCV's TIFF decoder): 34671 where the weights give 29731.
TEST_F(TiffLayouts, PlanarColourPagesReadAsContiguousOnes) {
  for (const std::uint16_t samples : {3, 4}) {
    for (const std::uint16_t bits : {8, 16}) {
      const double top = bits == 8 ? 255 : 65535;
      TiffPageSpec p{7, 5, bits, SAMPLEFORMAT_UINT, samples, 0, 2, {}, false};
      for (int i = 0; i < 35; ++i) {
        const double r = std::fmod(i * 0.137, 1.0) * top, g = std::fmod(i * 0.311, 1.0) * top,
                     b = std::fmod(i * 0.071 + 0.5, 1.0) * top;
        p.values.insert(p.values.end(), {std::round(r), std::round(g), std::round(b)});
        if (samples == 4) p.values.push_back(top);
      }
      TiffPageSpec planar = p;
      planar.planar = true;
      testing::write_tiff(dir_ / "contiguous.tif", {p, p});
      testing::write_tiff(dir_ / "planar.tif", {planar, planar});
      for (const Channel c : {Channel::luminance, Channel::red, Channel::green, Channel::blue}) {
        const auto a = read_image_stack(dir_ / "contiguous.tif", c);
        const auto b = read_image_stack(dir_ / "planar.tif", c);
        ASSERT_TRUE(a.is_ok()) << a.status().message();
        ASSERT_TRUE(b.is_ok()) << b.status().message();
        ASSERT_EQ(b.value().frames.count(), 2);
        EXPECT_EQ(b.value().pixel_type, bits == 8 ? PixelType::u8 : PixelType::u16);
        for (Index y = 0; y < 5; ++y) {
          for (Index x = 0; x < 7; ++x) {
            const double* v = p.values.data() + (y * 7 + x) * samples;
            const double want = c == Channel::red     ? v[0]
                                : c == Channel::green ? v[1]
                                : c == Channel::blue  ? v[2]
                                                      : 0.299 * v[0] + 0.587 * v[1] + 0.114 * v[2];
            EXPECT_EQ(b.value().frames[1](y, x), a.value().frames[1](y, x));
            EXPECT_NEAR(b.value().frames[1](y, x), want, 1.0)
                << label(c) << " " << bits << "-bit, " << samples << " samples";
          }
        }
        auto lazy = LazyStack::open(dir_ / "planar.tif", LazyStack::kDefaultCacheBytes, {c});
        ASSERT_TRUE(lazy.is_ok());
        auto f = lazy.value()->frame(1);
        ASSERT_TRUE(f.is_ok());
        EXPECT_EQ((*f.value())[0](4, 6), b.value().frames[1](4, 6));
      }
    }
  }
}

TEST_F(TiffLayouts, APageOfAnotherDepthIsNamed) {
  const Depth u8{"u8", 8, SAMPLEFORMAT_UINT, 0, 255, PixelType::u8};
  const Depth u12{"u12", 12, SAMPLEFORMAT_UINT, 0, 4095, PixelType::u16};
  testing::write_tiff(dir_ / "mixed.tif", {page_of(u8, 9, 7, 1), page_of(u12, 9, 7, 2)});
  const auto eager = read_image_stack(dir_ / "mixed.tif");
  ASSERT_FALSE(eager.is_ok());
  EXPECT_NE(eager.status().message().find("mixed.tif[page 1]"), std::string::npos)
      << eager.status().message();
  auto lazy = LazyStack::open(dir_ / "mixed.tif");
  ASSERT_TRUE(lazy.is_ok());
  const Status indexed = lazy.value()->wait_indexed();
  ASSERT_FALSE(indexed.is_ok());
  EXPECT_NE(indexed.message().find("page 1 is 7 x 9 px (width x height) 16-bit but page 0 is 7 x 9 "
                                   "px (width x height) 8-bit"),
            std::string::npos)
      << indexed.message();
}

// A few bytes that announce a huge page are refused before its memory is taken (2.5e9 pixels
// would be 10 GB as float32), by both readers, naming what the page claims.
TEST_F(TiffLayouts, AHugePageFromAFewBytesIsRefusedBeforeAllocating) {
  for (const uint16_t compression : {COMPRESSION_NONE, COMPRESSION_LZW}) {
    const auto file = dir_ / ("huge" + std::to_string(compression) + ".tif");
    TIFF* t = TIFFOpen(file.c_str(), "w");
    ASSERT_NE(t, nullptr);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 40000u);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 40000u);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_COMPRESSION, compression);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 40000u);
    unsigned char few[16] = {};
    TIFFWriteRawStrip(t, 0, few, sizeof few);
    TIFFWriteDirectory(t);
    TIFFClose(t);
    const auto eager = read_image_stack(file);
    ASSERT_FALSE(eager.is_ok());
    const auto lazy = LazyStack::open(file);
    ASSERT_FALSE(lazy.is_ok());
    for (const std::string& m : {eager.status().message(), lazy.status().message()}) {
      EXPECT_NE(m.find("corrupt or truncated"), std::string::npos) << m;
      if (compression == COMPRESSION_LZW) {  // libtiff finds the uncompressed one short
        EXPECT_NE(m.find("40000x40000 page from 16 stored bytes"), std::string::npos) << m;
      }
    }
  }
}

// A tile far wider than its page (16x16 pixels in tiles of 1209317376x1, 1-bit: 16 tiles of 8
// bytes) would take 77 GB to decode: refused before allocating, by both readers (the fuzz target
// found a tile 4.8 GB wide). libtiff does not write such a file: its bytes are laid out here.
TEST_F(TiffLayouts, ATileFarLargerThanItsPageIsRefusedBeforeAllocating) {
  std::vector<unsigned char> b = {'I', 'I', 42, 0, 8, 0, 0, 0};
  auto u16 = [&](std::uint32_t v) {
    for (int i = 0; i < 2; ++i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
  };
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
  };
  const std::uint32_t tiles = 16, tables = 8 + 2 + 10 * 12 + 4, data = tables + 8 * tiles;
  auto entry = [&](std::uint32_t tag, std::uint32_t type, std::uint32_t count, std::uint32_t v) {
    u16(tag), u16(type), u32(count), type == 3 ? (u16(v), u16(0)) : u32(v);
  };
  u16(10);
  entry(256, 4, 1, 16);                      // ImageWidth
  entry(257, 4, 1, 16);                      // ImageLength
  entry(258, 3, 1, 1);                       // BitsPerSample
  entry(259, 3, 1, 1);                       // Compression: none
  entry(262, 3, 1, 1);                       // Photometric: min is black
  entry(277, 3, 1, 1);                       // SamplesPerPixel
  entry(322, 4, 1, 1209317376);              // TileWidth
  entry(323, 4, 1, 1);                       // TileLength
  entry(324, 4, tiles, tables);              // TileOffsets
  entry(325, 4, tiles, tables + 4 * tiles);  // TileByteCounts
  u32(0);
  for (std::uint32_t i = 0; i < tiles; ++i) u32(data + 8 * i);
  for (std::uint32_t i = 0; i < tiles; ++i) u32(8);
  b.resize(b.size() + 8 * tiles, 0x55);
  const auto file = dir_ / "wide_tile.tif";
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  const auto eager = read_image_stack(file);
  ASSERT_FALSE(eager.is_ok());
  const auto lazy = LazyStack::open(file);
  ASSERT_FALSE(lazy.is_ok());
  for (const std::string& m : {eager.status().message(), lazy.status().message()})
    EXPECT_NE(m.find("a 16x16 page in tiles of 1209317376 pixels from 128 stored bytes"),
              std::string::npos)
        << m;
}

}  // namespace
}  // namespace xcorr::io
