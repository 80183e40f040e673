#include "ui/dic_panel.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>
#include <cmath>

namespace xcorr::ui {
namespace {

using Field = OptionField<dic::DicOptions>;

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QWidget* make_widget(const Field& f) {
  const QString suffix = f.unit.empty() ? QString() : " " + qs(f.unit);
  switch (f.kind) {
    case OptionKind::integer: {
      auto* s = new QSpinBox;
      s->setRange(static_cast<int>(f.lo), static_cast<int>(std::min(f.hi, 1e6)));
      s->setSingleStep(f.odd ? 2 : 1);
      s->setSuffix(suffix);
      return s;
    }
    case OptionKind::real: {
      auto* s = new QDoubleSpinBox;
      s->setDecimals(5);
      s->setRange(f.lo_exclusive ? f.lo + 1e-5 : f.lo, std::isfinite(f.hi) ? f.hi : 1e6);
      s->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
      s->setSuffix(suffix);
      return s;
    }
    case OptionKind::choice:
    case OptionKind::text: {
      auto* c = new QComboBox;
      for (const std::string& v : f.choices) c->addItem(qs(v));
      c->setEditable(f.kind == OptionKind::text && !f.closed);
      return c;
    }
  }
  return nullptr;
}

}  // namespace

DicPanel::DicPanel(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  for (const Field& f : dic::dic_option_table()) {
    QWidget* w = make_widget(f);
    w->setObjectName(qs(f.key));
    w->setToolTip(qs(f.doc));
    form->addRow(qs(f.label), w);
    widgets_.push_back(w);
    if (auto* s = qobject_cast<QSpinBox*>(w))
      connect(s, &QSpinBox::valueChanged, this, [this] { validate(); });
    if (auto* s = qobject_cast<QDoubleSpinBox*>(w))
      connect(s, &QDoubleSpinBox::valueChanged, this, [this] { validate(); });
    if (auto* c = qobject_cast<QComboBox*>(w))
      connect(c, &QComboBox::currentTextChanged, this, [this] { validate(); });
  }
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->setStyleSheet("color: #d33");
  form->addRow(message_);
  set_options(dic::DicOptions{});
}

dic::DicOptions DicPanel::options() const {
  dic::DicOptions o = options_;
  const auto& table = dic::dic_option_table();
  for (std::size_t k = 0; k < table.size(); ++k) {
    const Field& f = table[k];
    if (auto* s = qobject_cast<QSpinBox*>(widgets_[k])) f.set_number(o, s->value());
    if (auto* s = qobject_cast<QDoubleSpinBox*>(widgets_[k])) f.set_number(o, s->value());
    if (auto* c = qobject_cast<QComboBox*>(widgets_[k])) {
      const std::string text = c->currentText().toStdString();
      // A label the table does not know stays out (check() would name it for text fields).
      if (f.kind != OptionKind::choice ||
          std::find(f.choices.begin(), f.choices.end(), text) != f.choices.end())
        f.set_text(o, text);
    }
  }
  return o;
}

void DicPanel::set_options(const dic::DicOptions& o) {
  options_ = o;
  const auto& table = dic::dic_option_table();
  for (std::size_t k = 0; k < table.size(); ++k) {
    const Field& f = table[k];
    const QSignalBlocker block(widgets_[k]);
    if (auto* s = qobject_cast<QSpinBox*>(widgets_[k])) s->setValue(static_cast<int>(f.number(o)));
    if (auto* s = qobject_cast<QDoubleSpinBox*>(widgets_[k])) s->setValue(f.number(o));
    if (auto* c = qobject_cast<QComboBox*>(widgets_[k])) {
      const QString v = qs(f.get(o));
      if (c->findText(v) < 0) c->addItem(v);
      c->setCurrentText(v);
    }
  }
  validate();
}

void DicPanel::set_suggestions(const std::string& key, const std::vector<std::string>& values) {
  const auto& table = dic::dic_option_table();
  for (std::size_t k = 0; k < table.size(); ++k) {
    auto* c = qobject_cast<QComboBox*>(widgets_[k]);
    if (table[k].key != key || c == nullptr) continue;
    const QSignalBlocker block(c);
    const QString current = c->currentText();
    c->clear();
    for (const std::string& v : values) c->addItem(qs(v));
    if (c->findText(current) < 0) c->addItem(current);
    c->setCurrentText(current);
  }
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
