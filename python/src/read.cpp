// xcorr.read_stack: a stack file's pages as the engine reads them (io::LazyStack, every page),
// arranged (T, Z, C, Y, X) by the file's hyperstack layout, with its scale and layout.
#include <pybind11/stl.h>

#include <cstring>

#include "core/io/channel.hpp"
#include "core/io/lazy_stack.hpp"
#include "python/src/common.hpp"
#include "python/src/functions.hpp"

namespace xcorr::python {

py::dict read_stack(const std::string& path, const std::string& colour) {
  io::PlaneSelection every;
  every.colour = parse_enum<io::Channel>("channel", colour);
  every.all_pages = true;
  std::optional<Result<std::unique_ptr<io::LazyStack>>> opened;
  Status status = Status::ok();
  {
    py::gil_scoped_release released;
    opened.emplace(io::LazyStack::open(path, io::LazyStack::kDefaultCacheBytes, every));
    if (opened->is_ok()) status = opened->value()->wait_indexed();
  }
  std::unique_ptr<io::LazyStack> st = value(std::move(*opened));
  if (!status.is_ok()) raise(status);  // a damaged file is refused, not read in part
  const io::HyperLayout& layout = st->metadata().layout;
  const long pages = static_cast<long>(st->count());
  const long planes = layout.channels * layout.slices;
  const long T = layout.frames > 0 ? layout.frames : pages / planes;
  const Shape shape = st->shape();
  py::array_t<float> out({static_cast<py::ssize_t>(T), static_cast<py::ssize_t>(layout.slices),
                          static_cast<py::ssize_t>(layout.channels),
                          static_cast<py::ssize_t>(shape.rows),
                          static_cast<py::ssize_t>(shape.cols)});
  float* to = out.mutable_data();
  {
    py::gil_scoped_release released;
    for (long t = 0; t < T && status.is_ok(); ++t)
      for (long z = 0; z < layout.slices && status.is_ok(); ++z)
        for (long ch = 0; ch < layout.channels && status.is_ok(); ++ch) {
          auto f = st->frame(layout.page(ch, z, t));
          if (!f.is_ok()) {
            status = f.status();
            break;
          }
          std::memcpy(to, f.value()->data(),
                      sizeof(float) * static_cast<std::size_t>(shape.area()));
          to += shape.area();
        }
  }
  if (!status.is_ok()) raise(status);
  const io::StackMetadata& m = st->metadata();
  py::dict d;
  d["pages"] = out;
  const io::PixelType type = st->pixel_type();
  d["pixel_type"] = type == io::PixelType::u8 ? "u8" : type == io::PixelType::u16 ? "u16" : "f32";
  put_scale(d, m.scale);
  d["spacing_z"] = m.spacing_z > 0 ? py::object(py::float_(m.spacing_z)) : py::none();
  d["channel_names"] = m.channel_names;
  d["metadata_source"] = layout.plain() && !m.scale.has_length() && !m.scale.has_time()
                             ? std::string()
                             : std::string(m.source());
  return d;
}

}  // namespace xcorr::python
