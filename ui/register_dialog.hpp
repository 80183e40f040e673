// Register stack (drift correction) settings: the registration options (ui/options_form.hpp from
// register_option_table()), where the corrected stack and the drift table go (beside the stack
// by default), and the region: the last drawn template, or the whole frame. Accepting it hands
// the job to the window, which runs it (core/register/register_stack.hpp) like DIC.
#pragma once

#include <QDialog>
#include <memory>
#include <optional>

#include "core/register/register_stack.hpp"
#include "core/tracking/tracking.hpp"
#include "ui/options_form.hpp"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace xcorr::ui {

class RegisterDialog : public QDialog {
  Q_OBJECT
 public:
  // stack: the open stack's path; region: the template offered as the region (none: whole
  // frame only). options: the stack's channel, z-plane and scale overrides to start from.
  RegisterDialog(const std::string& stack, std::optional<TemplateRect> region,
                 const reg::RegisterOptions& options, QWidget* parent = nullptr);
  ~RegisterDialog() override;
  reg::RegisterJob job() const;
  Status check() const;  // job().check(), shown under the form as the user edits
  // The job as a file that `xcorr run` and the batch dialog (Add job file) run; checked first.
  Status save_job(const QString& path) const;

 private:
  void validate();
  std::string stack_;
  std::optional<TemplateRect> region_;
  reg::RegisterOptions base_;
  std::unique_ptr<OptionWidgets<reg::RegisterOptions>> widgets_;
  QLineEdit *out_, *drift_;
  QCheckBox* use_region_;
  QLabel* message_;
  QPushButton* ok_ = nullptr;
  QPushButton* save_ = nullptr;
};

}  // namespace xcorr::ui
