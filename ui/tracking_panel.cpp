#include "ui/tracking_panel.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace xcorr::ui {

TrackingPanel::TrackingPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* help =
      new QLabel(tr("Draw templates with the Template tool on the reference "
                    "frame; each is found in every frame by ZNCC (integer peak, "
                    "then sub-pixel)."));
  help->setWordWrap(true);
  subpixel_ = new QComboBox;
  for (const char* m : {"quadratic2d", "parabolic", "gaussian", "none"}) subpixel_->addItem(m);
  subpixel_->setToolTip(
      tr("Sub-pixel peak: quadratic2d (2-D quadratic fit of the 3x3 ZNCC neighbourhood, the most "
         "accurate here), parabolic or gaussian (1-D fits per axis), none (integer px)"));
  accuracy_ = new QComboBox;
  accuracy_->setObjectName("accuracy");
  for (const auto& [a, name] : EnumLabels<Accuracy>::table) accuracy_->addItem(name);
  accuracy_->setToolTip(
      tr("fast: the fastest correlation variant (FFT errors are relative to the largest value); "
         "exact: only direct variants, each ZNCC its own sum (docs/formats.md, Accuracy)"));
  run_ = new QPushButton(tr("Run tracking"));
  auto* cancel = new QPushButton(tr("Cancel"));
  layout->addWidget(help);
  auto* sub_row = new QHBoxLayout;
  sub_row->addWidget(new QLabel(tr("Sub-pixel")));
  sub_row->addWidget(subpixel_, 1);
  layout->addLayout(sub_row);
  auto* accuracy_row = new QHBoxLayout;
  accuracy_row->addWidget(new QLabel(tr("Accuracy")));
  accuracy_row->addWidget(accuracy_, 1);
  layout->addLayout(accuracy_row);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(cancel);
  layout->addLayout(buttons);
  layout->addStretch(1);
  connect(run_, &QPushButton::clicked, this, &TrackingPanel::run_requested);
  connect(cancel, &QPushButton::clicked, this, &TrackingPanel::cancel_requested);
}

SubpixelMethod TrackingPanel::subpixel() const {
  return *parse_subpixel_method(subpixel_->currentText().toStdString());
}

Accuracy TrackingPanel::accuracy() const {
  return *parse_accuracy(accuracy_->currentText().toStdString());
}

QString TrackingPanel::parameters() const {
  return subpixel_->currentText() + " " + accuracy_->currentText();
}

void TrackingPanel::set_parameters(const QString& text) {
  const QStringList words = text.split(' ');
  if (words.size() != 2) return;
  if (const int k = subpixel_->findText(words[0]); k >= 0) subpixel_->setCurrentIndex(k);
  if (const int k = accuracy_->findText(words[1]); k >= 0) accuracy_->setCurrentIndex(k);
}

void TrackingPanel::set_run_enabled(bool on) {
  run_->setEnabled(on);
}

}  // namespace xcorr::ui
