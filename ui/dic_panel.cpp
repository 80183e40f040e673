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
  set_options(dic::DicOptions{});
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
