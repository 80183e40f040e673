#include "ui/register_dialog.hpp"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <filesystem>

#include "core/io/atomic_write.hpp"

namespace xcorr::ui {

RegisterDialog::RegisterDialog(const std::string& stack, std::optional<TemplateRect> region,
                               const reg::RegisterOptions& options, QWidget* parent)
    : QDialog(parent), stack_(stack), region_(region), base_(options) {
  setWindowTitle(tr("Register stack (drift correction)"));
  setObjectName("register_dialog");
  auto* layout = new QVBoxLayout(this);
  auto* intro =
      new QLabel(tr("Measures each frame's drift from the reference and writes the "
                    "corrected stack and the drift table (docs/registration.md)."));
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* form = new QFormLayout;
  layout->addLayout(form);
  widgets_ = std::make_unique<OptionWidgets<reg::RegisterOptions>>(reg::register_option_table(),
                                                                   form, [this] { validate(); });
  // Beside the stack: <stem>_registered.tif and <stem>_drift.csv.
  const std::filesystem::path p(stack);
  const std::filesystem::path base = p.parent_path() / p.stem();
  out_ = new QLineEdit(QString::fromStdString(base.string() + "_registered.tif"));
  out_->setObjectName("out");
  drift_ = new QLineEdit(QString::fromStdString(base.string() + "_drift.csv"));
  drift_->setObjectName("drift");
  form->addRow(tr("Corrected stack"), out_);
  form->addRow(tr("Drift table"), drift_);
  use_region_ =
      new QCheckBox(region ? tr("Measure on the last template (%1, %2, %3 x %4 px)")
                                 .arg(region->x)
                                 .arg(region->y)
                                 .arg(region->width)
                                 .arg(region->height)
                           : tr("Measure on a template (draw one with the Template tool)"));
  use_region_->setObjectName("use_template");
  use_region_->setEnabled(region.has_value());
  form->addRow(use_region_);
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->setStyleSheet("color: #d33");
  layout->addWidget(message_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  ok_ = buttons->button(QDialogButtonBox::Ok);
  ok_->setText(tr("Register"));
  save_ = buttons->addButton(tr("Save job..."), QDialogButtonBox::ActionRole);
  save_->setObjectName("save_job");
  save_->setToolTip(
      tr("Save these settings as a job file: run it with `xcorr run`, or queue it in Analysis > "
         "Batch > Add job file"));
  connect(save_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save register job"),
        QString::fromStdString(std::filesystem::path(stack_).replace_extension().string() +
                               "_register.json"),
        tr("Job files (*.json)"));
    if (path.isEmpty()) return;
    const Status s = save_job(path);
    message_->setText(s.is_ok() ? QString() : QString::fromStdString(s.message()));
  });
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  for (QLineEdit* e : {out_, drift_})
    connect(e, &QLineEdit::textChanged, this, [this] { validate(); });
  connect(use_region_, &QCheckBox::toggled, this, [this] { validate(); });
  widgets_->write(base_);
  validate();
}

RegisterDialog::~RegisterDialog() = default;

reg::RegisterJob RegisterDialog::job() const {
  reg::RegisterJob j;
  j.stack = stack_;
  j.out = out_->text().toStdString();
  j.drift = drift_->text().toStdString();
  j.options = widgets_->read(base_);
  if (use_region_->isChecked() && region_) {
    j.options.region = "rect:" + to_string(*region_);
  }
  return j;
}

Status RegisterDialog::check() const {
  return job().check();
}

Status RegisterDialog::save_job(const QString& path) const {
  const reg::RegisterJob j = job();
  XCORR_RETURN_IF_ERROR(j.check());
  return io::write_text_atomically(path.toStdString(), reg::to_json(j));
}

void RegisterDialog::validate() {
  const Status s = check();
  message_->setText(s.is_ok() ? QString() : QString::fromStdString(s.message()));
  if (ok_ != nullptr) ok_->setEnabled(s.is_ok());
  if (save_ != nullptr) save_->setEnabled(s.is_ok());
}

}  // namespace xcorr::ui
