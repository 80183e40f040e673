// The Channels dock: a hyperstack's channels as Fiji shows them. Composite adds the colours of
// every visible channel; otherwise the active channel shows alone. The active channel (C) is
// the one whose levels the Levels dock edits; each channel has its visibility and LUT
// (ui/lut.hpp: Green and Magenta for two). Z (when the stack has several z-planes) is the
// analysis' z-plane, shared by the view, tracking and registration; T is the frame slider.
#pragma once

#include <QWidget>
#include <vector>

#include "ui/lut.hpp"

class QCheckBox;
class QComboBox;
class QGridLayout;
class QSlider;
class QLabel;

namespace xcorr::ui {

class ChannelsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ChannelsPanel(QWidget* parent = nullptr);
  // A stack of `channels` channels (default LUTs, all visible, composite when more than one,
  // `active` active) and `slices` z-planes with `z` shown. Emits nothing.
  void set_stack_layout(long channels, long slices, long z, long active);
  long channels() const { return static_cast<long>(rows_.size()); }
  long active() const;
  bool composite() const;
  bool visible(long c) const;
  Lut lut(long c) const;
  void set_active(long c);
  void set_composite(bool on);
  void set_visible(long c, bool on);
  void set_lut(long c, Lut lut);

 signals:
  void display_changed();    // composite, a visibility, a LUT or the active channel
  void z_requested(long z);  // the Z slider moved

 private:
  struct Row {
    QCheckBox* visible;
    QComboBox* lut;
  };
  std::vector<Row> rows_;
  QGridLayout* grid_;
  QCheckBox* composite_;
  QSlider *c_slider_, *z_slider_;
  QLabel *c_label_, *z_label_;
};

}  // namespace xcorr::ui
