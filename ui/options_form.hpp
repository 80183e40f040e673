// The widgets of an options table (core/options_table.hpp) in a form: one per field (spin box
// with the unit, list of choices, or editable text with suggestions), named by the field's key,
// with its doc line as tooltip; read back into a copy of the options and written from one. The
// DIC form (ui/dic_panel.hpp) and the registration dialog (ui/register_dialog.hpp) are built
// from it, so every options struct has one form code.
#pragma once

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/options_table.hpp"

namespace xcorr::ui {

template <class S>
class OptionWidgets {
 public:
  // Adds a row per field of `table` to `form`; `changed` is called on every edit.
  OptionWidgets(const std::vector<OptionField<S>>& table, QFormLayout* form,
                const std::function<void()>& changed)
      : table_(table) {
    for (const OptionField<S>& f : table_) {
      QWidget* w = make(f);
      w->setObjectName(QString::fromStdString(f.key));
      w->setToolTip(QString::fromStdString(f.doc));
      form->addRow(QString::fromStdString(f.label), w);
      widgets_.push_back(w);
      if (auto* s = qobject_cast<QSpinBox*>(w))
        QObject::connect(s, &QSpinBox::valueChanged, form, [changed] { changed(); });
      if (auto* s = qobject_cast<QDoubleSpinBox*>(w))
        QObject::connect(s, &QDoubleSpinBox::valueChanged, form, [changed] { changed(); });
      if (auto* c = qobject_cast<QComboBox*>(w))
        QObject::connect(c, &QComboBox::currentTextChanged, form, [changed] { changed(); });
    }
  }

  // `base` with the widgets' values.
  S read(S o) const {
    for (std::size_t k = 0; k < table_.size(); ++k) {
      const OptionField<S>& f = table_[k];
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

  void write(const S& o) {
    for (std::size_t k = 0; k < table_.size(); ++k) {
      const OptionField<S>& f = table_[k];
      const QSignalBlocker block(widgets_[k]);
      if (auto* s = qobject_cast<QSpinBox*>(widgets_[k]))
        s->setValue(static_cast<int>(f.number(o)));
      if (auto* s = qobject_cast<QDoubleSpinBox*>(widgets_[k])) s->setValue(f.number(o));
      if (auto* c = qobject_cast<QComboBox*>(widgets_[k])) {
        const QString v = QString::fromStdString(f.get(o));
        if (c->findText(v) < 0) c->addItem(v);
        c->setCurrentText(v);
      }
    }
  }

  // Choices offered for a text field; the current value stays.
  void set_suggestions(const std::string& key, const std::vector<std::string>& values) {
    for (std::size_t k = 0; k < table_.size(); ++k) {
      auto* c = qobject_cast<QComboBox*>(widgets_[k]);
      if (table_[k].key != key || c == nullptr) continue;
      const QSignalBlocker block(c);
      const QString current = c->currentText();
      c->clear();
      for (const std::string& v : values) c->addItem(QString::fromStdString(v));
      if (c->findText(current) < 0) c->addItem(current);
      c->setCurrentText(current);
    }
  }

 private:
  // Each field may shrink to kFieldWidth px (its text scrolls), so that the form fits a narrow
  // dock with every combo box's arrow in view (1024 x 700 screens).
  static constexpr int kFieldWidth = 80;
  static QWidget* make(const OptionField<S>& f) {
    QWidget* w = make_editor(f);
    w->setMinimumWidth(kFieldWidth);
    if (auto* c = qobject_cast<QComboBox*>(w)) {
      c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
      c->setMinimumContentsLength(4);
    }
    return w;
  }
  static QWidget* make_editor(const OptionField<S>& f) {
    const QString suffix = f.unit.empty() ? QString() : " " + QString::fromStdString(f.unit);
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
        for (const std::string& v : f.choices) c->addItem(QString::fromStdString(v));
        c->setEditable(f.kind == OptionKind::text && !f.closed);
        return c;
      }
    }
    return nullptr;
  }

  const std::vector<OptionField<S>>& table_;
  std::vector<QWidget*> widgets_;  // one per table field, in table order
};

}  // namespace xcorr::ui
