// The options that say how a stack is read, shared by every options struct that reads one (the
// DIC options, the registration options): the colour or hyperstack channel, the z-plane, and the
// scale overrides (core/io/channel.hpp, core/io/scale.hpp). Declared here once; each table
// inserts them where its struct lists the members `channel`, `z`, `pixel_size`,
// `frame_interval`.
#pragma once

#include <limits>
#include <vector>

#include "core/io/channel.hpp"
#include "core/options_table.hpp"

namespace xcorr::io {

template <class S>
std::vector<OptionField<S>> stack_fields() {
  return {
      text_field<S>("channel", "Channel",
                    "Colour images: luminance (0.299 R + 0.587 G + 0.114 B), red, green or blue; "
                    "hyperstacks: the channel number (0, 1, ...); grey images are read as they are",
                    &S::channel, labels<Channel>(), false),
      integer_field<S>("z", "Z-plane", "",
                       "Hyperstacks: the z-plane (0-based) whose time points are the frames", &S::z,
                       0, std::numeric_limits<int>::max()),
      text_field<S>("pixel_size", "Pixel size",
                    "Length of a pixel with its unit (0.65um, 0.65x0.7um, 120nm); empty: from the "
                    "file's metadata; none: px only",
                    &S::pixel_size, {"", "none"}, false),
      text_field<S>("frame_interval", "Frame interval",
                    "Time between frames with its unit (2s, 500ms, 1.5min); empty: from the "
                    "file's metadata; none: frame numbers only",
                    &S::frame_interval, {"", "none"}, false),
  };
}

// A table with the stack fields inserted before the field named `before` ("" : at the end).
template <class S>
std::vector<OptionField<S>> with_stack_fields(std::vector<OptionField<S>> table,
                                              const std::string& before) {
  auto at = table.end();
  for (auto it = table.begin(); it != table.end(); ++it)
    if (it->key == before) at = it;
  const std::vector<OptionField<S>> fields = stack_fields<S>();
  table.insert(at, fields.begin(), fields.end());
  return table;
}

}  // namespace xcorr::io
