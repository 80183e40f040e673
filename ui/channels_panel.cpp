#include "ui/channels_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>

namespace xcorr::ui {

ChannelsPanel::ChannelsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  composite_ = new QCheckBox(tr("Composite"));
  composite_->setObjectName("composite");
  composite_->setToolTip(
      tr("Add the colours of every visible channel; off: the active channel "
         "alone"));
  layout->addWidget(composite_);
  grid_ = new QGridLayout;
  layout->addLayout(grid_);
  const auto slider_row = [&](const QString& name, QSlider*& slider, QLabel*& label,
                              const QString& tip) {
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(name));
    slider = new QSlider(Qt::Horizontal);
    slider->setObjectName(name.toLower());
    slider->setToolTip(tip);
    label = new QLabel;
    label->setMinimumWidth(40);
    row->addWidget(slider, 1);
    row->addWidget(label);
    layout->addLayout(row);
  };
  slider_row("C", c_slider_, c_label_, tr("The active channel: the one the Levels dock edits"));
  slider_row("Z", z_slider_, z_label_,
             tr("The z-plane shown and analysed (DIC, tracking and registration)"));
  layout->addStretch(1);
  connect(composite_, &QCheckBox::toggled, this, [this] { emit display_changed(); });
  connect(c_slider_, &QSlider::valueChanged, this, [this](int c) {
    c_label_->setText(tr("%1 / %2").arg(c + 1).arg(channels()));
    emit display_changed();
  });
  connect(z_slider_, &QSlider::valueChanged, this, [this](int z) {
    z_label_->setText(tr("%1 / %2").arg(z + 1).arg(z_slider_->maximum() + 1));
    emit z_requested(z);
  });
}

void ChannelsPanel::set_stack_layout(long channels, long slices, long z, long active) {
  const QSignalBlocker a(this), b(composite_), c(c_slider_), d(z_slider_);
  for (Row& r : rows_) {
    delete r.visible;
    delete r.lut;
  }
  rows_.clear();
  for (long k = 0; k < std::max(1L, channels); ++k) {
    Row r{new QCheckBox(tr("Channel %1").arg(k + 1)), new QComboBox};
    r.visible->setObjectName(QString("visible_%1").arg(k));
    r.visible->setChecked(true);
    r.visible->setToolTip(tr("Show this channel in the composite"));
    r.lut->setObjectName(QString("lut_%1").arg(k));
    for (const auto& [lut, name] : EnumLabels<Lut>::table)
      r.lut->addItem(name, static_cast<int>(lut));
    r.lut->setCurrentIndex(r.lut->findData(static_cast<int>(default_lut(k, channels))));
    r.lut->setToolTip(tr("The colours of this channel's grey values, black to white level"));
    grid_->addWidget(r.visible, static_cast<int>(k), 0);
    grid_->addWidget(r.lut, static_cast<int>(k), 1);
    connect(r.visible, &QCheckBox::toggled, this, [this] { emit display_changed(); });
    connect(r.lut, &QComboBox::currentIndexChanged, this, [this] { emit display_changed(); });
    rows_.push_back(r);
  }
  composite_->setChecked(channels > 1);
  composite_->setEnabled(channels > 1);
  c_slider_->setRange(0, static_cast<int>(std::max(1L, channels) - 1));
  c_slider_->setValue(static_cast<int>(std::clamp(active, 0L, std::max(1L, channels) - 1)));
  c_slider_->setEnabled(channels > 1);
  c_label_->setText(tr("%1 / %2").arg(c_slider_->value() + 1).arg(this->channels()));
  z_slider_->setRange(0, static_cast<int>(std::max(1L, slices) - 1));
  z_slider_->setValue(static_cast<int>(z));
  z_slider_->setEnabled(slices > 1);
  z_label_->setText(tr("%1 / %2").arg(z + 1).arg(std::max(1L, slices)));
}

long ChannelsPanel::active() const {
  return c_slider_->value();
}
bool ChannelsPanel::composite() const {
  return composite_->isChecked() && channels() > 1;
}
bool ChannelsPanel::visible(long c) const {
  return rows_.at(static_cast<std::size_t>(c)).visible->isChecked();
}
Lut ChannelsPanel::lut(long c) const {
  return static_cast<Lut>(rows_.at(static_cast<std::size_t>(c)).lut->currentData().toInt());
}
void ChannelsPanel::set_active(long c) {
  c_slider_->setValue(static_cast<int>(c));
}
void ChannelsPanel::set_composite(bool on) {
  composite_->setChecked(on);
}
void ChannelsPanel::set_visible(long c, bool on) {
  rows_.at(static_cast<std::size_t>(c)).visible->setChecked(on);
}
void ChannelsPanel::set_lut(long c, Lut lut) {
  QComboBox* box = rows_.at(static_cast<std::size_t>(c)).lut;
  box->setCurrentIndex(box->findData(static_cast<int>(lut)));
}

}  // namespace xcorr::ui
