// TIFF files of any layout written with libtiff, for reader tests: depths OpenCV cannot write
// (1, 4, 10, 12-bit packed, 32-bit unsigned, signed, float64), tiles, several samples.
#pragma once

#include <tiffio.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace xcorr::testing {

struct TiffPageSpec {
  std::uint32_t width = 0, height = 0;
  std::uint16_t bits = 8, format = SAMPLEFORMAT_UINT, samples = 1;
  std::uint32_t tile = 0;  // tile side (a multiple of 16); 0: strips of rows_per_strip
  std::uint32_t rows_per_strip = 3;
  std::vector<double> values;  // height x width x samples, stored as given (cast to the type)
  bool planar = false;         // strips: one plane per sample (PlanarConfiguration 2)
};

// Packs row-major samples into the TIFF bit stream (big-endian bits for depths that are not a
// whole number of bytes; host order otherwise, which libtiff records as the file's order).
inline std::vector<unsigned char> pack_row(const TiffPageSpec& p, const double* v,
                                           std::uint32_t n) {
  const std::uint32_t bits = p.bits;
  std::vector<unsigned char> out((std::uint64_t{n} * bits + 7) / 8, 0);
  auto put = [&](auto x, std::uint32_t i) {
    std::memcpy(out.data() + i * sizeof(x), &x, sizeof(x));
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    if (p.format == SAMPLEFORMAT_IEEEFP) {
      bits == 32 ? put(static_cast<float>(v[i]), i) : put(v[i], i);
    } else if (p.format == SAMPLEFORMAT_INT) {
      bits == 8    ? put(static_cast<std::int8_t>(v[i]), i)
      : bits == 16 ? put(static_cast<std::int16_t>(v[i]), i)
                   : put(static_cast<std::int32_t>(v[i]), i);
    } else if (bits == 8 || bits == 16 || bits == 32) {
      bits == 8    ? put(static_cast<std::uint8_t>(v[i]), i)
      : bits == 16 ? put(static_cast<std::uint16_t>(v[i]), i)
                   : put(static_cast<std::uint32_t>(v[i]), i);
    } else {
      const auto x = static_cast<std::uint32_t>(v[i]);
      for (std::uint32_t b = 0; b < bits; ++b) {
        const std::uint64_t bit = std::uint64_t{i} * bits + b;
        if ((x >> (bits - 1 - b)) & 1u)
          out[bit >> 3] |= static_cast<unsigned char>(0x80u >> (bit & 7));
      }
    }
  }
  return out;
}

inline void write_tiff(const std::filesystem::path& path, const std::vector<TiffPageSpec>& pages) {
  TIFF* t = TIFFOpen(path.c_str(), "w");
  if (t == nullptr) throw std::runtime_error("cannot create " + path.string());
  for (const TiffPageSpec& p : pages) {
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, p.width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, p.height);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, p.bits);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, p.format);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, p.samples);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, p.planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, p.samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    if (p.samples == 4) {
      const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
      TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    if (pages.size() > 1) {
      TIFFSetField(t, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
    }
    const std::uint32_t row_values = p.width * p.samples;
    if (p.tile == 0 && p.planar) {
      TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, p.rows_per_strip);
      TiffPageSpec one = p;
      one.samples = 1;
      for (std::uint16_t c = 0; c < p.samples; ++c) {
        for (std::uint32_t r = 0; r < p.height; r += p.rows_per_strip) {
          std::vector<unsigned char> strip;
          for (std::uint32_t k = r; k < std::min(p.height, r + p.rows_per_strip); ++k) {
            std::vector<double> v(p.width);
            for (std::uint32_t x = 0; x < p.width; ++x)
              v[x] = p.values[std::size_t{k} * row_values + std::size_t{x} * p.samples + c];
            const auto row = pack_row(one, v.data(), p.width);
            strip.insert(strip.end(), row.begin(), row.end());
          }
          TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, r, c), strip.data(),
                                static_cast<tmsize_t>(strip.size()));
        }
      }
    } else if (p.tile == 0) {
      TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, p.rows_per_strip);
      for (std::uint32_t r = 0; r < p.height; r += p.rows_per_strip) {
        std::vector<unsigned char> strip;
        for (std::uint32_t k = r; k < std::min(p.height, r + p.rows_per_strip); ++k) {
          const auto row = pack_row(p, p.values.data() + std::size_t{k} * row_values, row_values);
          strip.insert(strip.end(), row.begin(), row.end());
        }
        TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, r, 0), strip.data(),
                              static_cast<tmsize_t>(strip.size()));
      }
    } else {
      TIFFSetField(t, TIFFTAG_TILEWIDTH, p.tile);
      TIFFSetField(t, TIFFTAG_TILELENGTH, p.tile);
      for (std::uint32_t y = 0; y < p.height; y += p.tile) {
        for (std::uint32_t x = 0; x < p.width; x += p.tile) {
          std::vector<unsigned char> tile;
          for (std::uint32_t k = 0; k < p.tile; ++k) {
            std::vector<double> v(std::size_t{p.tile} * p.samples, 0.0);
            for (std::uint32_t c = 0; c < p.tile * p.samples; ++c) {
              const std::uint32_t row = y + k, col = x * p.samples + c;
              if (row < p.height && col < row_values)
                v[c] = p.values[std::size_t{row} * row_values + col];
            }
            const auto packed = pack_row(p, v.data(), p.tile * p.samples);
            tile.insert(tile.end(), packed.begin(), packed.end());
          }
          TIFFWriteEncodedTile(t, TIFFComputeTile(t, x, y, 0, 0), tile.data(),
                               static_cast<tmsize_t>(tile.size()));
        }
      }
    }
    TIFFWriteDirectory(t);
  }
  TIFFClose(t);
}

}  // namespace xcorr::testing
