#include "ui/dic_panel.hpp"

#include <QFormLayout>
#include <QLabel>

namespace xcorr::ui {

DicPanel::DicPanel(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  widgets_ = std::make_unique<OptionWidgets<dic::DicOptions>>(dic::dic_option_table(), form,
                                                              [this] { validate(); });
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->setStyleSheet("color: #d33");
  form->addRow(message_);
  // Under the Device field: why the GPU is not used (set_device_note), hidden when it is.
  device_note_ = new QLabel;
  device_note_->setObjectName("device_note");
  device_note_->setWordWrap(true);
  device_note_->setStyleSheet("color: #b60");
  device_note_->hide();
  int row = -1;
  QFormLayout::ItemRole role{};
  if (auto* device = findChild<QWidget*>("device")) form->getWidgetPosition(device, &row, &role);
  form->insertRow(row >= 0 ? row + 1 : form->rowCount(), device_note_);
  set_options(dic::DicOptions{});
}

void DicPanel::set_device_note(const QString& note) {
  device_note_->setText(note);
  device_note_->setToolTip(note);
  device_note_->setVisible(!note.isEmpty());
}

DicPanel::~DicPanel() = default;

dic::DicOptions DicPanel::options() const {
  return widgets_->read(options_);
}

void DicPanel::set_options(const dic::DicOptions& o) {
  options_ = o;
  widgets_->write(o);
  validate();
}

void DicPanel::set_suggestions(const std::string& key, const std::vector<std::string>& values) {
  widgets_->set_suggestions(key, values);
}

bool DicPanel::valid() const {
  return options().check().is_ok();
}

void DicPanel::validate() {
  const Status s = options().check();
  message_->setText(s.is_ok() ? QString() : QString::fromStdString(s.message()));
  emit changed();
}

}  // namespace xcorr::ui
