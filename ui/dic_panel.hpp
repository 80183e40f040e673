// The DIC parameters form, generated from dic_option_table() (core/dic/options.hpp) by
// ui/options_form.hpp: one widget per option, named by the option's key, with its doc line as
// tooltip. The form edits a copy of the project's
// options (set_options() keeps it; options() returns it with the widgets' values), and the
// message of DicOptions::check() shows under the form as the user edits.
#pragma once

#include <QString>
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "core/dic/options.hpp"
#include "ui/options_form.hpp"

class QLabel;

namespace xcorr::ui {

class DicPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DicPanel(QWidget* parent = nullptr);
  ~DicPanel() override;
  dic::DicOptions options() const;
  void set_options(const dic::DicOptions& o);
  bool valid() const;
  // Choices offered for a text option (e.g. the variants for "method"); the current value stays.
  void set_suggestions(const std::string& key, const std::vector<std::string>& values);
  // One line under the Device field (engine::gpu_not_used(): why the GPU is not used and the
  // work runs on the CPU); empty hides it.
  void set_device_note(const QString& note);

 signals:
  void changed();

 private:
  void validate();
  dic::DicOptions options_;  // the project's copy; widgets overwrite their fields
  std::unique_ptr<OptionWidgets<dic::DicOptions>> widgets_;
  QLabel* message_;
  QLabel* device_note_;
};

}  // namespace xcorr::ui
