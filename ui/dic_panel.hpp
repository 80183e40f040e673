// The DIC parameters form, bound to dic::DicOptions (the same struct as the CLI and job files):
// options() reads the widgets, set_options() fills them, and the validation message of
// DicOptions::check() shows under the form as the user edits.
#pragma once

#include <QWidget>

#include "core/dic/options.hpp"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace xcorr::ui {

class DicPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DicPanel(QWidget* parent = nullptr);
  dic::DicOptions options() const;
  void set_options(const dic::DicOptions& o);
  bool valid() const;

 signals:
  void changed();

 private:
  void validate();
  QSpinBox *subset_, *step_, *radius_, *iterations_, *update_, *window_;
  QDoubleSpinBox *convergence_, *min_zncc_;
  QComboBox *shape_, *propagation_, *stack_, *strain_, *device_;
  QLabel* message_;
};

}  // namespace xcorr::ui
